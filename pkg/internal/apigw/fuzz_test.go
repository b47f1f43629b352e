package apigw

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// DecodeRequest reads any input as json.Unmarshal does: the same event,
// or the same error.
func FuzzDecodeRequest(f *testing.F) {
	for _, data := range httpEvents(f) {
		f.Add(data)
	}
	for _, s := range []string{`{}`, `{"headers":{"a":null},"headers":{"b":"1"}}`, `{"cookies":["a"],"cookies":[null]}`,
		`{"requestContext":{"timeEpoch":1e3,"http":{"Method":"GET"}}}`, `{"body":"\ud800"}`, "{\"body\":\"\xed\xa0\x80\"}",
		`{"x":[{"y":-0.0E-0}]}`, `{"requestContext":{"authorizer":null,"authorizer":{"lambda":null}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assertSameAsEncodingJSON(t, data)
	})
}

// AppendResponse writes what json.Marshal writes, member for member.
func FuzzAppendResponse(f *testing.F) {
	f.Add(200, "Content-Type", "application/json", `{"a":1}`, "c=1", false)
	f.Add(500, "X-\u2028", "<&>\x00", "\xff\"\\", "", true)
	f.Fuzz(func(t *testing.T, status int, name, value, body, cookie string, base64 bool) {
		assertResponseAsEncodingJSON(t, events.APIGatewayV2HTTPResponse{StatusCode: status, Headers: map[string]string{name: value, "Vary": value},
			MultiValueHeaders: map[string][]string{name: {value, cookie}}, Body: body, IsBase64Encoded: base64, Cookies: []string{cookie}})
	})
}
