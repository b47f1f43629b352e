package app_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
)

// Without a token, on loopback, the local server answers only requests
// addressed to a loopback name (or A2A_PUBLIC_URL's host) and refuses
// those a browser sends from another site's page: no web page the
// developer visits can drive it, by a cross-site POST or DNS rebinding.
func TestLocalServerRefusesWebPages(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`
	newServer := func(t *testing.T, env map[string]string, authn app.LocalOptions) http.Handler {
		cfg, err := config.Load(func(k string) string { return env[k] })
		require.NoError(t, err)
		srv, err := app.NewLocal(cfg, echo.Agent{}, authn)
		require.NoError(t, err)
		t.Cleanup(srv.Close)
		return srv.Handler
	}
	anonymous := newServer(t, map[string]string{"A2A_PUBLIC_URL": "http://agent.test:8000"}, app.LocalOptions{Auth: auth.Anonymous{}})
	// In order, on one server: each Host refused comes right after a
	// local one, which the guard remembers.
	for _, tc := range []struct {
		name, host     string
		origins, hosts []string // Origin headers; Host headers besides host
		contentType    string
		want           int
		says           string
	}{
		{"curl to 127.0.0.1", "127.0.0.1:8000", nil, nil, "application/json", 200, `"result"`},
		{"curl to localhost", "localhost:8000", nil, nil, "application/json", 200, `"result"`},
		{"curl to [::1]", "[::1]:8000", nil, nil, "application/json", 200, `"result"`},
		{"A2A_PUBLIC_URL's host", "agent.test:8000", nil, nil, "application/json", 200, `"result"`},
		{"a local page", "127.0.0.1:8000", []string{"http://localhost:3000"}, nil, "application/json", 200, `"result"`},
		{"DNS rebinding", "evil.example", nil, nil, "text/plain", 403, `Host header \"evil.example\" is not a loopback name`},
		{"DNS rebinding, same origin", "evil.example:8000", []string{"http://evil.example:8000"}, nil, "text/plain", 403, "not a loopback name"},
		{"cross-site simple POST", "127.0.0.1:8000", []string{"https://evil.example"}, nil, "text/plain", 403, `Origin \"https://evil.example\"`},
		{"sandboxed page", "127.0.0.1:8000", []string{"null"}, nil, "text/plain", 403, `Origin \"null\"`},
		{"two Origins, the local one first", "127.0.0.1:8000", []string{"http://localhost:3000", "https://evil.example"}, nil, "text/plain", 403, "more than one Origin header"},
		{"two Origins, both local", "127.0.0.1:8000", []string{"http://localhost:3000", "http://localhost:3000"}, nil, "application/json", 403, "more than one Origin header"},
		{"two Hosts", "127.0.0.1:8000", nil, []string{"127.0.0.1:8000", "evil.example"}, "application/json", 403, "more than one Host header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(list))
			req.Host = tc.host
			req.Header.Set("Content-Type", tc.contentType)
			for _, o := range tc.origins {
				req.Header.Add("Origin", o)
			}
			for _, h := range tc.hosts {
				req.Header.Add("Host", h)
			}
			rec := httptest.NewRecorder()
			anonymous.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Body)
			assert.Equal(t, tc.want, rec.Code, "%s", body)
			assert.Contains(t, string(body), tc.says)
		})
	}

	// net/http itself refuses a request with two Host headers before any
	// handler sees it.
	srv := httptest.NewServer(anonymous)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(list))+"\r\n\r\n"+list)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)

	// With a token, callers prove who they are: any Host is served.
	bearer := newServer(t, map[string]string{"A2A_HOST": "0.0.0.0", "A2A_BEARER_TOKEN": "test-token-16-ch"}, app.LocalOptions{Auth: auth.NewBearer(map[string]string{"default": "test-token-16-ch"})})
	req := httptest.NewRequest("POST", "/", strings.NewReader(list))
	req.Host = "agent.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer test-token-16-ch")
	rec := httptest.NewRecorder()
	bearer.ServeHTTP(rec, req)
	assert.Equal(t, 200, rec.Code, rec.Body.String())
}

// The local server answers CORS preflights for the origins of
// A2A_CORS_ALLOWED_ORIGINS; without a token it serves the pages of the
// origins listed by name (the operator's choice), but "*" lets no other
// site's page through its guard.
func TestLocalServerCORS(t *testing.T) {
	serve := func(t *testing.T, origins string) http.Handler {
		cfg, err := config.Load(func(k string) string { return map[string]string{"A2A_CORS_ALLOWED_ORIGINS": origins}[k] })
		require.NoError(t, err)
		srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: auth.Anonymous{}})
		require.NoError(t, err)
		t.Cleanup(srv.Close)
		return srv.Handler
	}
	send := func(h http.Handler, method, origin string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`))
		req.Host = "127.0.0.1:8000"
		req.Header.Set("Origin", origin)
		if method == http.MethodOptions {
			req.Header.Set("Access-Control-Request-Method", "POST")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	listed := serve(t, "https://app.example.com")
	rec := send(listed, http.MethodOptions, "https://app.example.com")
	assert.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	assert.Equal(t, "https://app.example.com", rec.Header().Get("Access-Control-Allow-Origin"))
	rec = send(listed, http.MethodPost, "https://app.example.com")
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "https://app.example.com", rec.Header().Get("Access-Control-Allow-Origin"))
	rec = send(listed, http.MethodOptions, "https://evil.example")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"))

	anyOrigin := serve(t, "*")
	rec = send(anyOrigin, http.MethodPost, "https://evil.example")
	assert.Equal(t, http.StatusForbidden, rec.Code, "without a token, * does not open the guard")
	rec = send(anyOrigin, http.MethodOptions, "http://localhost:3000")
	assert.Equal(t, http.StatusNoContent, rec.Code)
	assert.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
}
