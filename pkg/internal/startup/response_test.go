package startup_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
)

// ResponseSize is what the body really takes in the function's response:
// encoding/json's string (as aws-lambda-go marshals the response) for
// UTF-8, base64 otherwise (aws-lambda-go-api-proxy's choice).
func TestResponseSize(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(`{"kind":"text","text":"hello"}`, 100)))
	zw.Close()
	for name, body := range map[string][]byte{
		"empty":       {},
		"json":        []byte(`{"jsonrpc":"2.0","id":1,"result":{"id":"t-1","status":{"state":"completed"}}}`),
		"escapes":     []byte("quote \" backslash \\ newline \n tab \t cr \r bell \x07 html <a href=\"x\">&amp;</a>"),
		"unicode":     []byte("héllo wörld ✓ 🎉 line\u2028para\u2029end"),
		"gzip":        gz.Bytes(),
		"invalid utf": {0xff, 0xfe, 'a'},
	} {
		t.Run(name, func(t *testing.T) {
			resp := events.APIGatewayV2HTTPResponse{Body: string(body)}
			if !utf8Valid(body) {
				resp = events.APIGatewayV2HTTPResponse{Body: base64.StdEncoding.EncodeToString(body), IsBase64Encoded: true}
			}
			withBody, err := json.Marshal(resp)
			require.NoError(t, err)
			resp.Body = ""
			without, err := json.Marshal(resp)
			require.NoError(t, err)
			assert.Equal(t, len(withBody)-len(without)+2, startup.ResponseSize(body), "the body's bytes in the marshaled response")
		})
	}
}

// ResponseFits is true only where no body of that length can take more
// than the limit: the worst body (every byte escaped as \u00XX) takes
// 6 bytes per byte and the quotes.
func TestResponseFits(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		worst := startup.ResponseSize(bytes.Repeat([]byte{0x01}, n))
		assert.Equal(t, 6*n+2, worst)
		assert.True(t, startup.ResponseFits(n, worst), "%d bytes fit in %d", n, worst)
		assert.False(t, startup.ResponseFits(n+1, worst), "%d bytes may not fit in %d", n+1, worst)
	}
	assert.True(t, startup.ResponseFits(1_000_000, startup.MaxResponseBytes), "a body of a million bytes is not measured")
	assert.False(t, startup.ResponseFits(2<<20, startup.MaxResponseBytes), "a 2 MiB body is")
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }
