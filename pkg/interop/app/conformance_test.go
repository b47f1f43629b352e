package app

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/a2aschema"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// startConformance serves A2A_AGENT=conformance with
// A2A_PROTOCOL_VERSIONS=1.0, the setting to certify a deployment with.
func startConformance(t *testing.T) string {
	t.Helper()
	env := map[string]string{"A2A_AGENT": "conformance", "A2A_PROTOCOL_VERSIONS": "1.0", "A2A_CONFORMANCE_WORK_MS": "50", "A2A_CONFORMANCE_DELAY_MS": "500"}
	ag, err := builtin.Registry().New(env["A2A_AGENT"], func(k string) string { return env[k] })
	require.NoError(t, err)
	return clienttest.Start(t, clienttest.Options{Agent: ag, Token: interopToken, Env: env}).URL
}

// TestConformanceAgent: with A2A_AGENT=conformance A2A_PROTOCOL_VERSIONS=1.0
// the card validates against the official 1.0 JSON Schema, and the
// official a2a-go 1.0 client, over both bindings, sees each scenario of the
// conformance kit's reference system under test.
func TestConformanceAgent(t *testing.T) {
	url := startConformance(t)
	resp, err := http.Get(url + "/.well-known/agent-card.json")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.NoError(t, a2aschema.Validate(a2aschema.AgentCard, body), "%s", body)

	for _, transport := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		t.Run(string(transport), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			hc := httpClient(true)
			card, err := agentcard.NewResolver(hc).Resolve(ctx, url)
			require.NoError(t, err)
			assert.Equal(t, "a2a-lambda conformance agent", card.Name)
			client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
				a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{transport}}))
			require.NoError(t, err)
			t.Cleanup(func() { client.Destroy() })

			n := 0
			send := func(prefix string, task *a2a.Task) a2a.SendMessageResult {
				t.Helper()
				n++
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
				msg.ID = prefix + "-" + string(transport) + "-" + strings.Repeat("x", n)
				if task != nil {
					msg.TaskID, msg.ContextID = task.ID, task.ContextID
				}
				res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
				require.NoError(t, err, prefix)
				return res
			}
			task := func(prefix string) *a2a.Task {
				t.Helper()
				res := send(prefix, nil)
				tk, ok := res.(*a2a.Task)
				require.True(t, ok, "%s: want a task, got %T", prefix, res)
				return tk
			}
			statusText := func(tk *a2a.Task) string {
				require.NotNil(t, tk.Status.Message)
				return tk.Status.Message.Parts[0].Text()
			}

			done := task("tck-complete-task")
			assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
			assert.Equal(t, "Hello from TCK", statusText(done))
			other := task("some-other-id")
			assert.Equal(t, a2a.TaskStateCompleted, other.Status.State)

			artifact := func(prefix string) *a2a.Part {
				tk := task(prefix)
				assert.Equal(t, a2a.TaskStateCompleted, tk.Status.State, prefix)
				require.Len(t, tk.Artifacts, 1, prefix)
				require.Len(t, tk.Artifacts[0].Parts, 1, prefix)
				return tk.Artifacts[0].Parts[0]
			}
			assert.Equal(t, "Generated text content", artifact("tck-artifact-text").Text())
			file := artifact("tck-artifact-file")
			assert.Equal(t, "Generated file content", string(file.Raw()))
			assert.Equal(t, "output.txt", file.Filename)
			assert.Equal(t, "text/plain", file.MediaType)
			fileURL := artifact("tck-artifact-file-url")
			assert.Equal(t, a2a.URL("https://example.com/output.txt"), fileURL.URL())
			assert.Equal(t, "output.txt", fileURL.Filename)
			assert.Equal(t, map[string]any{"key": "value", "count": float64(42)}, artifact("tck-artifact-data").Data())

			res := send("tck-message-response", nil)
			m, ok := res.(*a2a.Message)
			require.True(t, ok, "want a Message result, got %T", res)
			assert.Equal(t, a2a.MessageRoleAgent, m.Role)
			assert.Equal(t, "Direct message response", m.Parts[0].Text(), "DM-MSG-001")
			assert.NotContains(t, m.Metadata, "a2a-lambda.response", "host bookkeeping stays out of the answer")

			asked := task("tck-input-required")
			assert.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
			answered, ok := send("tck-reply", asked).(*a2a.Task)
			require.True(t, ok)
			assert.Equal(t, asked.ID, answered.ID)
			assert.Equal(t, a2a.TaskStateCompleted, answered.Status.State)

			assert.Equal(t, a2a.TaskStateRejected, task("tck-reject-task").Status.State)

			// CORE-EXECUTION-MODE-001/002: a blocking send waits for the
			// delayed completion, a non-blocking one returns while it works.
			delayed := task("tck-delayed-complete")
			assert.Equal(t, a2a.TaskStateCompleted, delayed.Status.State)
			assert.Equal(t, "Done after delay", statusText(delayed))
			n++
			quick := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
			quick.ID = "tck-delayed-complete-" + string(transport) + "-" + strings.Repeat("y", n)
			nb, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: quick, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
			require.NoError(t, err)
			working, ok := nb.(*a2a.Task)
			require.True(t, ok, "want a task, got %T", nb)
			assert.False(t, working.Status.State.Terminal(), "a non-blocking send returns before the delayed completion: %s", working.Status.State)

			started := time.Now()
			long := task("test-resubscribe-message-id")
			assert.Equal(t, a2a.TaskStateCompleted, long.Status.State, "a blocking send waits for the work")
			assert.GreaterOrEqual(t, time.Since(started), 50*time.Millisecond, "it worked A2A_CONFORMANCE_WORK_MS")
		})
	}
}
