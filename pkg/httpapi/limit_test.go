package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// limited is the demo agent behind an edge that gives each caller 2
// requests a second and a burst of 3, on a fake clock.
func limited(t *testing.T, maxCallers int) (http.Handler, *clocktest.Clock) {
	t.Helper()
	clk := clocktest.New(clocktest.Start(t))
	ag := fastDemo(t)
	store := memory.New(memory.Options{})
	runner := local.New(engine.NewExecutor(store, ag, engine.Options{}), local.Options{})
	t.Cleanup(runner.Close)
	h, err := httpapi.New(httpapi.Options{
		Service:   service.New(store, runner, ag.Info(), service.Config{BlockingTimeout: 5 * time.Second}, service.Options{}),
		Auth:      auth.NewBearer(map[string]string{"alice": aliceToken, "bob": bobToken}),
		Cards:     cards(ag.Info(), true),
		RateLimit: httpapi.RateLimit{PerSecond: 2, Burst: 3, MaxCallers: maxCallers, Clock: clk},
		Profile:   &httpapi.Profile{},
	})
	require.NoError(t, err)
	return h, clk
}

// call sends one request from addr with token ("" for none).
func call(h http.Handler, method, path, addr, token, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = addr
	r.Header.Set("Content-Type", "application/json")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const getUnknown = `{"jsonrpc":"2.0","id":"req-7","method":"tasks/get","params":{"id":"t-none"}}`

// Each caller has its own budget: alice spending hers leaves bob's, and a
// caller without credentials spends its address's, never anyone else's.
// Beyond it, every binding answers 429 with Retry-After, JSON-RPC with the
// request's id and -32060; the budget refills with time.
func TestRateLimitPerCaller(t *testing.T) {
	h, clk := limited(t, 0)
	for i := range 3 {
		w := call(h, "POST", "/", "198.51.100.1:1000", aliceToken, getUnknown)
		assert.Equal(t, http.StatusOK, w.Code, "request %d is within alice's burst", i)
	}
	w := call(h, "POST", "/", "198.51.100.1:1000", aliceToken, getUnknown)
	require.Equal(t, http.StatusTooManyRequests, w.Code, w.Body.String())
	assert.Equal(t, "1", w.Header().Get("Retry-After"), "half a second to the next request, rounded up")
	var rpc struct {
		ID    string
		Error struct {
			Code    int
			Message string
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rpc), w.Body.String())
	assert.Equal(t, "req-7", rpc.ID)
	assert.Equal(t, int(a2a.CodeRateLimited), rpc.Error.Code)
	assert.Contains(t, rpc.Error.Message, "retry after 1 s")

	// Bob, from the same address, and a caller without credentials still
	// have theirs.
	assert.Equal(t, http.StatusOK, call(h, "POST", "/", "198.51.100.1:1000", bobToken, getUnknown).Code)
	assert.Equal(t, http.StatusUnauthorized, call(h, "POST", "/", "198.51.100.9:1000", "", getUnknown).Code)

	// The other bindings, in their shapes.
	w = call(h, "GET", "/rest/v1/tasks/t-none", "198.51.100.1:1000", aliceToken, "")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Contains(t, w.Body.String(), `"RESOURCE_EXHAUSTED"`)
	assert.Contains(t, w.Body.String(), `RATE_LIMIT_EXCEEDED`)
	assert.NotEmpty(t, w.Header().Get("Retry-After"))
	w = call(h, "POST", "/orchestrate", "198.51.100.1:1000", aliceToken, `{}`)
	assert.Equal(t, http.StatusTooManyRequests, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), fmt.Sprint(int(a2a.CodeRateLimited)))
	w = call(h, "GET", "/health", "198.51.100.1:1000", aliceToken, "")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, http.StatusOK, call(h, "GET", "/.well-known/agent-card.json", "198.51.100.1:1000", "", "").Code, "the public card is not limited")

	// Half a second refills one request.
	clk.Advance(500 * time.Millisecond)
	assert.Equal(t, http.StatusOK, call(h, "POST", "/", "198.51.100.1:1000", aliceToken, getUnknown).Code)
	assert.Equal(t, http.StatusTooManyRequests, call(h, "POST", "/", "198.51.100.1:1000", aliceToken, getUnknown).Code)
}

// Without valid credentials the budget is the source address's: an IPv4
// address, or an IPv6 /64 (one host holds a whole /64); a wrong token
// counts as none.
func TestRateLimitUnauthenticatedBySourceAddress(t *testing.T) {
	h, _ := limited(t, 0)
	for _, addr := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2::ffff]:2", "[2001:db8:1:2:aaaa::3]:3"} {
		assert.Equal(t, http.StatusUnauthorized, call(h, "POST", "/", addr, "wrong-token", getUnknown).Code, addr)
	}
	assert.Equal(t, http.StatusTooManyRequests, call(h, "POST", "/", "[2001:db8:1:2::9]:4", "", getUnknown).Code, "the /64 spent its burst")
	assert.Equal(t, http.StatusUnauthorized, call(h, "POST", "/", "[2001:db8:1:3::1]:5", "", getUnknown).Code, "another /64 has its own")
	assert.Equal(t, http.StatusUnauthorized, call(h, "POST", "/", "203.0.113.5", "", getUnknown).Code, "a bare address (Lambda's adapter)")
	assert.Equal(t, http.StatusOK, call(h, "POST", "/", "[2001:db8:1:2::9]:4", aliceToken, getUnknown).Code, "alice from that /64 has her own budget")
}

// Off by default.
func TestNoRateLimit(t *testing.T) {
	srv := newServer(t, "")
	for range 50 {
		req, err := http.NewRequest("POST", srv.URL+"/", strings.NewReader(getUnknown))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
}
