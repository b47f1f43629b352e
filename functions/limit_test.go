package functions_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/lambdaemu"
)

// One caller cannot starve another, in the send function as Lambda runs
// it: a burst of 200 requests without credentials from one source address
// is cut at that address's budget (429, Retry-After), before any of them
// reads the body or reaches the agent, while the events' caller, from
// another address, is served throughout. The budgets live in the
// execution environment: one process here, as one environment in Lambda.
func TestOneCallerCannotStarveAnother(t *testing.T) {
	functions(t)
	f := newFixture(t)
	env := map[string]string{}
	for k, v := range f.env {
		env[k] = v
	}
	const rate, burst = 5, 10
	env["A2A_CALLER_RATE_LIMIT"], env["A2A_CALLER_BURST_LIMIT"] = "5", "10"
	p, err := lambdaemu.Start(filepath.Join(binDir, "send"), environ(env), lambdaemu.Options{})
	require.NoError(t, err)
	defer p.Stop()
	_, rep, err := p.Ready(20 * time.Second)
	require.NoError(t, err, "%s", rep.Body)

	sample, err := os.ReadFile(filepath.Join("..", "events", "send", "jsonrpc-message-send.json"))
	require.NoError(t, err)
	flood := eventFrom(t, sample, func(ev map[string]any) {
		delete(ev["headers"].(map[string]any), "authorization")
		ev["requestContext"].(map[string]any)["http"].(map[string]any)["sourceIp"] = "198.51.100.66"
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	invoke := func(event []byte) (int, string, string) {
		rep, err := p.Emulator.Invoke(ctx, event)
		require.NoError(t, err)
		require.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s\nlog: %s", rep.Body, p.Stderr())
		r, body := httpResponse(t, rep.Body)
		return r.StatusCode, r.Headers["Retry-After"], body
	}

	start := time.Now()
	statuses := map[int]int{}
	for i := range 200 {
		status, retryAfter, body := invoke(flood)
		statuses[status]++
		if status == 429 {
			assert.NotEmpty(t, retryAfter, "a 429 says when to come back")
			var rpc struct{ Error struct{ Code int } }
			require.NoError(t, json.Unmarshal([]byte(body), &rpc), body)
			assert.Equal(t, int(a2a.CodeRateLimited), rpc.Error.Code)
		} else {
			assert.Equal(t, 401, status, body)
		}
		if i%50 == 49 {
			status, _, body := invoke(sample)
			require.Equal(t, 200, status, "the other caller is served during the flood: %s", body)
			assert.Contains(t, body, `"state":"completed"`)
		}
	}
	elapsed := time.Since(start)
	admitted := statuses[401]
	assert.LessOrEqual(t, admitted, burst+int(elapsed.Seconds()*rate)+1, "the flood got its burst and the refill of %s, no more: %v", elapsed, statuses)
	assert.Equal(t, 200, statuses[401]+statuses[429], "%v", statuses)
	assert.Greater(t, statuses[429], 100, "most of the flood was refused: %v", statuses)
}

// eventFrom returns the sample API Gateway event changed by edit.
func eventFrom(t *testing.T, sample []byte, edit func(map[string]any)) []byte {
	t.Helper()
	var ev map[string]any
	require.NoError(t, json.Unmarshal(sample, &ev))
	edit(ev)
	b, err := json.Marshal(ev)
	require.NoError(t, err)
	return b
}
