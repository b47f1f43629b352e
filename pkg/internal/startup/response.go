package startup

import (
	"encoding/base64"
	"unicode/utf8"
)

// MaxResponseBytes is the largest response body an HTTP function returns:
// Lambda refuses a synchronous response above 6 MB (6,291,456 bytes) of
// JSON, and the API Gateway event's status and headers take the rest.
const MaxResponseBytes = 6<<20 - 32<<10

// ResponseSize is how many bytes body takes in the function's response, as
// boot.LambdaHTTP and the function encode it: base64 when it is not
// UTF-8 (gzip-compressed), else a JSON string with encoding/json's escapes.
func ResponseSize(body []byte) int {
	if !utf8.Valid(body) {
		return base64.StdEncoding.EncodedLen(len(body)) + 2
	}
	n := 2
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xe2 && i+2 < len(body) && body[i+1] == 0x80 && (body[i+2] == 0xa8 || body[i+2] == 0xa9):
			n += 6 // U+2028, U+2029
			i += 3
			continue
		default:
			n++
		}
		i++
	}
	return n
}

// ResponseFits reports whether any body of n bytes takes at most limit
// bytes in a response, however it is encoded (ResponseSize: at most 6
// bytes per byte, and the quotes), so that a body well below the limit
// need not be scanned.
func ResponseFits(n, limit int) bool { return n <= (limit-2)/6 }
