package boot_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
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
			assert.Equal(t, len(withBody)-len(without)+2, boot.ResponseSize(body), "the body's bytes in the marshaled response")
		})
	}
}

// ResponseFits is true only where no body of that length can take more
// than the limit: the worst body (every byte escaped as \u00XX) takes
// 6 bytes per byte and the quotes.
func TestResponseFits(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		worst := boot.ResponseSize(bytes.Repeat([]byte{0x01}, n))
		assert.Equal(t, 6*n+2, worst)
		assert.True(t, boot.ResponseFits(n, worst), "%d bytes fit in %d", n, worst)
		assert.False(t, boot.ResponseFits(n+1, worst), "%d bytes may not fit in %d", n+1, worst)
	}
	assert.True(t, boot.ResponseFits(1_000_000, boot.MaxResponseBytes), "a body of a million bytes is not measured")
	assert.False(t, boot.ResponseFits(2<<20, boot.MaxResponseBytes), "a 2 MiB body is")
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// An adapter failure (here a handler that never answers) and a response
// over Lambda's limit become a JSON 500 answer and a JSON log line, not a
// failed invocation (which API Gateway turns into a bare 500).
func TestLambdaHTTPFailures(t *testing.T) {
	ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "GET /health", RawPath: "/health"}
	ev.RequestContext.HTTP.Method = "GET"
	for name, tc := range map[string]struct {
		handler http.HandlerFunc
		log     string
	}{
		"no answer": {func(http.ResponseWriter, *http.Request) {}, "the HTTP adapter failed"},
		"too large": {func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte(`"` + strings.Repeat("a", boot.MaxResponseBytes) + `"`))
		}, "the response is too large for Lambda"},
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			resp, err := boot.LambdaHTTP(tc.handler, boot.NewLogger(&logs, 0))(context.Background(), ev)
			require.NoError(t, err, "never a failed invocation")
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Headers["Content-Type"])
			var body struct {
				Error struct {
					Code    int    `json:"code"`
					Status  string `json:"status"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &body), resp.Body)
			assert.Equal(t, 500, body.Error.Code)
			assert.NotEmpty(t, body.Error.Message)
			var line map[string]any
			require.NoError(t, json.Unmarshal(logs.Bytes(), &line), "one JSON log line: %s", logs.String())
			assert.Equal(t, tc.log, line["msg"])
			assert.Equal(t, "ERROR", line["level"])
			assert.Equal(t, "/health", line["path"])
		})
	}
}

// The length a handler states for net/http is not copied into the API
// Gateway response, which states its own; the other headers are.
func TestLambdaHTTPLeavesTheLengthToAPIGateway(t *testing.T) {
	h := boot.LambdaHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "2")
		w.Write([]byte("{}"))
	}), nil)
	resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{RawPath: "/", RequestContext: events.APIGatewayV2HTTPRequestContext{
		HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodGet, Path: "/"}}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "{}", resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	assert.NotContains(t, resp.Headers, "Content-Length")
	assert.NotContains(t, resp.MultiValueHeaders, "Content-Length")
}
