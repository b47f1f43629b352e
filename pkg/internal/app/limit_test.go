package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// One caller cannot starve another on the local server: a burst of 200
// requests without credentials, 20 at a time, is cut at its source
// address's budget (429 with Retry-After and a JSON-RPC error), while
// another caller's sends, during the burst, are all served.
func TestOneCallerCannotStarveAnother(t *testing.T) {
	const rate, burst = 5, 10
	srv := runLocal(t, map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_BEARER_TOKENS": "alice:alice-token-0123456789,bob:bob-token-0123456789",
		"A2A_CALLER_RATE_LIMIT": strconv.Itoa(rate), "A2A_CALLER_BURST_LIMIT": strconv.Itoa(burst)})

	send := func(token, messageID string) (int, string, []byte) {
		body := `{"jsonrpc":"2.0","id":"` + messageID + `","method":"message/send","params":{"configuration":{"blocking":true},"message":{"kind":"message","role":"user","messageId":"` + messageID + `","parts":[{"kind":"text","text":"hi"}]}}}`
		req, err := http.NewRequest("POST", srv.base, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Retry-After"), b
	}

	start := time.Now()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		wg       sync.WaitGroup
		next     = make(chan int)
	)
	for range 20 {
		wg.Go(func() {
			for i := range next {
				status, retryAfter, b := send("", "flood-"+strconv.Itoa(i))
				if status == http.StatusTooManyRequests {
					assert.NotEmpty(t, retryAfter)
					var rpc struct {
						ID    string
						Error struct{ Code int }
					}
					assert.NoError(t, json.Unmarshal(b, &rpc), string(b))
					assert.Equal(t, int(a2a.CodeRateLimited), rpc.Error.Code)
					assert.Equal(t, "flood-"+strconv.Itoa(i), rpc.ID)
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}
		})
	}
	served := make(chan int, 5)
	go func() {
		for i := range 5 {
			status, _, b := send("bob-token-0123456789", "bob-"+strconv.Itoa(i))
			assert.Contains(t, string(b), `"state":"completed"`)
			served <- status
		}
		close(served)
	}()
	for i := range 200 {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	for status := range served {
		assert.Equal(t, http.StatusOK, status, "bob is served during the burst")
	}
	assert.Equal(t, 200, statuses[http.StatusUnauthorized]+statuses[http.StatusTooManyRequests], "%v", statuses)
	assert.LessOrEqual(t, statuses[http.StatusUnauthorized], burst+int(elapsed.Seconds()*rate)+1, "the burst got its budget and the refill of %s, no more: %v", elapsed, statuses)
	assert.Greater(t, statuses[http.StatusTooManyRequests], 100, "%v", statuses)
}
