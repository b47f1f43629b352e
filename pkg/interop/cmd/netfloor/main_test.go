package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConstantAnswersEveryRequestWithItsBody(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"id":"t-1"}}`)
	srv := httptest.NewServer(constant(body, 0))
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/.well-known/agent-card.json", ""},
		{"POST", "/", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t-1"}}`},
	} {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		assert.Equal(t, int64(len(body)), resp.ContentLength)
		assert.Equal(t, body, got)
	}
}

// With a spin, each answer comes after at least that long on the CPU.
func TestConstantSpinsBeforeEachAnswer(t *testing.T) {
	const spin = 5 * time.Millisecond
	srv := httptest.NewServer(constant([]byte("{}"), spin))
	t.Cleanup(srv.Close)
	start := time.Now()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.GreaterOrEqual(t, time.Since(start), spin)
}
