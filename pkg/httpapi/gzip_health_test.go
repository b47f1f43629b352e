package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}

func TestGzip(t *testing.T) {
	srv := newServer(t, "https://agent.example.com") // the default threshold: 8192 bytes
	ext := do(t, "GET", srv.URL+"/rest/extendedAgentCard", aliceToken, "", "Accept-Encoding", "gzip")
	require.Equal(t, http.StatusOK, ext.status)
	plain := do(t, "GET", srv.URL+"/rest/extendedAgentCard", aliceToken, "", "Accept-Encoding", "identity")
	require.Equal(t, http.StatusOK, plain.status)
	assert.Empty(t, plain.header.Get("Content-Encoding"), "not without Accept-Encoding: gzip")
	if len(plain.body) >= config.DefaultGzipMinimumSize {
		assert.Equal(t, "gzip", ext.header.Get("Content-Encoding"))
		assert.Equal(t, plain.body, gunzip(t, ext.body))
	} else {
		assert.Empty(t, ext.header.Get("Content-Encoding"), "below the threshold")
	}
	small := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "", "Accept-Encoding", "gzip")
	assert.Empty(t, small.header.Get("Content-Encoding"), "the public card is below 8 KiB")

	// A low threshold compresses JSON-RPC and REST answers and cards.
	h, err := httpapi.New(httpapi.Options{Service: brokenService{}, Auth: auth.Anonymous{}, Cards: cards(agent.Info{Name: "n"}, false), GzipMinimumSize: 64})
	require.NoError(t, err)
	low := httptest.NewServer(h)
	t.Cleanup(low.Close)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/.well-known/agent-card.json", ""},
		{"POST", "/", `{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`},
		{"POST", "/", `{"jsonrpc":"2.0","id":1,"method":"nope"}`},
	} {
		for _, ae := range []string{"gzip", "gzip;q=1.0, br", "*", "deflate, gzip;q=0.5"} {
			r := do(t, tc.method, low.URL+tc.path, "", tc.body, "Accept-Encoding", ae)
			require.Equal(t, http.StatusOK, r.status)
			assert.Equal(t, "gzip", r.header.Get("Content-Encoding"), "%s %s (%s)", tc.method, tc.path, ae)
			assert.Equal(t, "Accept-Encoding", r.header.Get("Vary"))
			assert.True(t, json.Valid(gunzip(t, r.body)))
			assert.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"), "the compressed length")
		}
		for _, ae := range []string{"identity", "gzip;q=0", "br"} {
			r := do(t, tc.method, low.URL+tc.path, "", tc.body, "Accept-Encoding", ae)
			assert.Empty(t, r.header.Get("Content-Encoding"), "%s %s (%s)", tc.method, tc.path, ae)
			assert.Equal(t, "Accept-Encoding", r.header.Get("Vary"))
			assert.True(t, json.Valid(r.body))
			assert.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"))
		}
	}
	// A cached card revalidates whatever the encoding.
	r := do(t, "GET", low.URL+"/.well-known/agent-card.json", "", "", "Accept-Encoding", "gzip")
	nm := do(t, "GET", low.URL+"/.well-known/agent-card.json", "", "", "Accept-Encoding", "gzip", "If-None-Match", r.header.Get("ETag"))
	assert.Equal(t, http.StatusNotModified, nm.status)
}

func TestHealth(t *testing.T) {
	profile := httpapi.NewProfile("v1.2.3", "demo", "1.0.0", "dynamodb", "auto", true)
	h, err := httpapi.New(httpapi.Options{Service: brokenService{}, Auth: auth.NewBearer(map[string]string{"alice": aliceToken}),
		Cards: cards(agent.Info{Name: "n"}, true), Profile: profile})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	assert.Equal(t, http.StatusUnauthorized, do(t, "GET", srv.URL+"/health", "", "").status, "the profile is for authenticated callers")
	r := do(t, "GET", srv.URL+"/health", aliceToken, "")
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"status":"ok","version":"v1.2.3","agent":{"name":"demo","version":"1.0.0"},
		"default_protocol_version":"0.3","supported_protocol_versions":["0.3","1.0"],
		"store_backend":"dynamodb","execution_mode":"auto","push_notifications":true,"streaming":false}`, string(r.body))

	none, err := httpapi.New(httpapi.Options{Service: brokenService{}, Auth: auth.Anonymous{}, Cards: cards(agent.Info{}, false)})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	none.ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code, "no profile, no /health")
}

// An answer above net/http's 2 KiB buffer, written without a length, goes
// out in chunks: every answer states its length instead.
func TestLargeAnswersStateTheirLength(t *testing.T) {
	srv := newServer(t, "")
	text := strings.Repeat("a long line of text. ", 150) // about 3 KB
	send := do(t, "POST", srv.URL+"/", aliceToken, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-long","parts":[{"kind":"text","text":%q}]}}}`, text))
	require.Equal(t, http.StatusOK, send.status)
	id, _ := send.json(t)["result"].(map[string]any)["id"].(string)
	require.NotEmpty(t, id, string(send.body))

	for _, tc := range []struct{ name, method, path, body string }{
		{"JSON-RPC result", "POST", "/", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":%q}}`, id)},
		{"REST result", "GET", "/rest/v1/tasks/" + id, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, tc.method, srv.URL+tc.path, aliceToken, tc.body)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			require.Greater(t, len(r.body), 2048, "an answer above net/http's buffer")
			assert.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"), "a length, not chunks")
		})
	}
}
