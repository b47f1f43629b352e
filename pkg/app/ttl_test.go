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

// localServer is the local server as `make run` starts it, with env.
type localServer struct {
	base   string // http://127.0.0.1:<port>/
	logs   *syncbuf.Buffer
	client *http.Client
}

// runLocal starts the local server on a free port with env and waits until
// it serves; the server is shut down (and must end cleanly) when the test
// ends.
func runLocal(t *testing.T, env map[string]string) *localServer {
	t.Helper()
	port := freePort(t)
	env["A2A_PORT"] = strconv.Itoa(port)
	ctx, cancel := context.WithCancel(context.Background())
	s := &localServer{base: "http://127.0.0.1:" + strconv.Itoa(port) + "/", logs: &syncbuf.Buffer{},
		// Its own connections, all closed before the server shuts down
		// (a connection the transport dialed and never used would hold
		// the shutdown for 5 s).
		client: &http.Client{Transport: &http.Transport{}}}
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- app.RunLocal(ctx, func(k string) string { return env[k] }, builtin.Registry(), &out, s.logs, nil)
	}()
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("the server did not shut down")
		}
	})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Fatalf("the server stopped: %v; logs: %s", err, s.logs.String())
		default:
		}
		resp, err := s.client.Get(s.base + ".well-known/agent-card.json")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server does not serve; logs: %s", s.logs.String())
		}
	}
	return s
}

// The local server starts with the TTLs a stack may be deployed with
// (CloudFormation cannot refuse them): the interrupt TTL above the task's
// is clamped to it, with one warning that names both.
func TestLocalServerStartsWithInterruptTTLAboveTaskTTL(t *testing.T) {
	s := runLocal(t, map[string]string{"A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "10800"})
	var warnings []string
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, "configuration corrected") {
			warnings = append(warnings, line)
		}
	}
	require.Len(t, warnings, 1, "one warning: %s", s.logs.String())
	assert.Contains(t, warnings[0], `"level":"WARN"`)
	assert.Contains(t, warnings[0], "A2A_INTERRUPT_REQUEST_TTL_SECONDS=10800")
	assert.Contains(t, warnings[0], "A2A_TASK_TTL_SECONDS=3600")
}
