package boot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

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
