package app_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

// The local server starts with the TTLs a stack may be deployed with
// (CloudFormation cannot refuse them): the interrupt TTL above the task's
// is clamped to it, with one warning that names both.
func TestLocalServerStartsWithInterruptTTLAboveTaskTTL(t *testing.T) {
	port := freePort(t)
	env := map[string]string{"A2A_PORT": strconv.Itoa(port), "A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "10800"}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- app.RunLocal(ctx, func(k string) string { return env[k] }, builtin.Registry(), &out, &logs, nil)
	}()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/.well-known/agent-card.json")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond, "the server serves; logs: %s", logs.String())
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not shut down")
	}
	var warnings []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "configuration corrected") {
			warnings = append(warnings, line)
		}
	}
	require.Len(t, warnings, 1, "one warning: %s", logs.String())
	assert.Contains(t, warnings[0], `"level":"WARN"`)
	assert.Contains(t, warnings[0], "A2A_INTERRUPT_REQUEST_TTL_SECONDS=10800")
	assert.Contains(t, warnings[0], "A2A_TASK_TTL_SECONDS=3600")
}
