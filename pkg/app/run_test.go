package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
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

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRunLocalServesTheBannerExample starts the local server as `make run`
// does and runs the curl command its banner prints.
func TestRunLocalServesTheBannerExample(t *testing.T) {
	port := freePort(t)
	env := map[string]string{"A2A_PORT": strconv.Itoa(port), "A2A_DEMO_WORK_MS": "0"}
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- app.RunLocal(ctx, func(k string) string { return env[k] }, builtin.Registry(), &out, &logs, nil)
	}()

	base := "http://127.0.0.1:" + strconv.Itoa(port)
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/.well-known/agent-card.json")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)

	banner := out.String()
	assert.Contains(t, banner, base+"/.well-known/agent-card.json")
	m := regexp.MustCompile(`curl -s (\S+) -H 'Content-Type: application/json' -d '([^']+)'`).FindStringSubmatch(banner)
	require.Len(t, m, 3, "the banner shows a curl command:\n%s", banner)
	assert.Equal(t, base+"/", m[1])
	resp, err := http.Post(m[1], "application/json", strings.NewReader(m[2]))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var rpc struct {
		Result struct {
			Status struct{ State string }
		}
	}
	require.NoError(t, json.Unmarshal(body, &rpc), string(body))
	assert.Equal(t, "completed", rpc.Result.Status.State, string(body))
	assert.Contains(t, logs.String(), "authentication is off", "running without a token is logged")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not shut down")
	}
}

func TestRunLocalRefusesUnsafeOrBadSettings(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"A2A_HOST": "0.0.0.0"}, "A2A_HOST=0.0.0.0 is not a loopback address: set A2A_BEARER_TOKEN"},
		{map[string]string{"A2A_AGENT": "nope"}, `A2A_AGENT="nope" is not a registered agent`},
		{map[string]string{"A2A_PORT": "x"}, "A2A_PORT"},
		{map[string]string{"A2A_AUTH": "jwt"}, "A2A_AUTH=jwt needs API Gateway's JWT authorizer"},
	}
	for _, tt := range tests {
		err := app.RunLocal(context.Background(), func(k string) string { return tt.env[k] }, builtin.Registry(), io.Discard, io.Discard, nil)
		assert.ErrorContains(t, err, tt.want)
	}
}
