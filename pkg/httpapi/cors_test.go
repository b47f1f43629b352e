package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/oap"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
)

// corsServer serves the demo agent to alice with the allowed origins.
// Every answer of 100 bytes or more is compressed for clients that ask.
func corsServer(t *testing.T, origins ...string) string {
	t.Helper()
	ag := fastDemo(t)
	srv, _ := serveAgent(t, ag, service.Config{}, service.Options{}, httpapi.Options{
		Auth: auth.NewBearer(map[string]string{"alice": aliceToken}), Cards: cards(ag.Info(), true), CORSAllowedOrigins: origins,
		GzipMinimumSize: 100,
	})
	return srv.URL
}

// preflight sends a browser's CORS preflight from origins (none: no
// Origin header).
func preflight(t *testing.T, url string, origins ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	require.NoError(t, err)
	for _, o := range origins {
		req.Header.Add("Origin", o)
	}
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,a2a-version")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// A preflight from an allowed origin is answered on every route, with the
// methods and headers A2A clients send; one from another origin, or with
// two Origin headers, is refused and carries no CORS header. Credentials
// are never allowed.
func TestCORSPreflight(t *testing.T) {
	const app = "https://app.example.com"
	url := corsServer(t, app, "http://localhost:3000")
	for _, path := range []string{"/", "/rest/v1/message:send", "/rest/tasks/t-1:cancel", "/orchestrate", "/.well-known/agent-card.json", "/no/such/route"} {
		resp := preflight(t, url+path, app)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode, path)
		h := resp.Header
		assert.Equal(t, app, h.Get("Access-Control-Allow-Origin"), path)
		for _, m := range []string{"GET", "POST", "DELETE"} {
			assert.Contains(t, h.Get("Access-Control-Allow-Methods"), m, path)
		}
		for _, hd := range []string{"Authorization", "Content-Type", "A2A-Version", "Orch-Session-Id"} {
			assert.Contains(t, h.Get("Access-Control-Allow-Headers"), hd, path)
		}
		assert.Equal(t, "600", h.Get("Access-Control-Max-Age"))
		assert.Contains(t, h.Values("Vary"), "Origin")
		assert.Empty(t, h.Get("Access-Control-Allow-Credentials"), "credentials are never allowed")
	}
	for _, origins := range [][]string{{"https://evil.example"}, {"https://app.example.com.evil.example"}, {app, "https://evil.example"}, nil} {
		resp := preflight(t, url+"/", origins...)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%v", origins)
		assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "%v", origins)
	}
	r := do(t, http.MethodOptions, url+"/", "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "POST")
	assert.Contains(t, string(r.body), `CORS preflight refused: its one Origin header must name an origin of A2A_CORS_ALLOWED_ORIGINS`)

	// The request itself: an allowed page may read the answer; another
	// page's request is served (CORS protects the page's reader, the
	// token protects the agent) but carries nothing that lets it read.
	list := `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`
	r = do(t, http.MethodPost, url+"/", aliceToken, list, "Origin", app)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, app, r.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Credentials"))
	r = do(t, http.MethodPost, url+"/", aliceToken, list, "Origin", "https://evil.example")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, r.header.Values("Vary"), "Origin", "caches keep the answers to each origin apart")

	// A large answer varies by both Origin and Accept-Encoding.
	r = do(t, http.MethodGet, url+"/.well-known/agent-card.json", "", "", "Origin", app, "Accept-Encoding", "gzip")
	assert.Equal(t, app, r.header.Get("Access-Control-Allow-Origin"))
	assert.Subset(t, strings.Split(strings.Join(r.header.Values("Vary"), ","), ","), []string{"Origin", "Accept-Encoding"})
}

// "*" allows every origin, without credentials and without Vary: Origin
// (the answer is the same for all).
func TestCORSAnyOrigin(t *testing.T) {
	url := corsServer(t, "*")
	resp := preflight(t, url+"/", "https://anyone.example")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Credentials"))
	assert.NotContains(t, resp.Header.Values("Vary"), "Origin")
}

// Without allowed origins (the default) a preflight gets a 403 that says
// how to allow one, instead of the 404 of an unknown route, and no answer
// carries a CORS header.
func TestCORSOff(t *testing.T) {
	url := corsServer(t)
	r := do(t, http.MethodOptions, url+"/", "", "", "Origin", "https://app.example.com", "Access-Control-Request-Method", "POST")
	assert.Equal(t, http.StatusForbidden, r.status)
	assert.Contains(t, string(r.body), "CORS preflight refused")
	assert.Contains(t, string(r.body), "A2A_CORS_ALLOWED_ORIGINS")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	r = do(t, http.MethodGet, url+"/.well-known/agent-card.json", "", "", "Origin", "https://app.example.com")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	assert.NotContains(t, r.header.Values("Vary"), "Origin")
}

// The headers a preflight allows include the OAP correlation headers.
func TestCORSAllowsTheOAPHeaders(t *testing.T) {
	for _, h := range oap.Headers {
		assert.Contains(t, strings.Split(httpapi.CORSAllowedHeaders, ", "), h)
		assert.Contains(t, strings.Split(httpapi.CORSExposedHeaders, ", "), h)
	}
}
