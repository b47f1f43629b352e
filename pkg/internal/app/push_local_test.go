package app_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

// localPushServer is the local server as `make run` starts it (the demo
// agent, quick steps, loopback webhooks allowed), signing with a new key of
// alg, and a receiver that trusts that key.
func localPushServer(t *testing.T, alg string) (*httptest.Server, *pushtest.Receiver) {
	t.Helper()
	env := map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_DEMO_STEP_MS": "10", "A2A_PUSH_ALLOW_INSECURE": "true"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	ag, err := builtin.Registry().New("demo", func(k string) string { return env[k] })
	require.NoError(t, err)
	ks, err := keys.Generate(alg)
	require.NoError(t, err)
	srv, err := app.NewLocal(cfg, ag, app.LocalOptions{Auth: auth.Anonymous{}, Push: app.PushOptions{Keys: ks}})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Close)
	return hs, pushtest.NewReceiver(t, ks, cfg.PublicURL)
}

// TestLocalPushNotifications is what `make run` does with a webhook: the
// demo agent's `long 3`, registered inline on message/send, reaches a local
// receiver as signed notifications, one per step, then the result.
func TestLocalPushNotifications(t *testing.T) {
	hs, rcv := localPushServer(t, keys.AlgES256)
	hook := rcv.Hook("/hook", pushtest.Behaviour{Token: "local-token"})
	body := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"push-1","parts":[{"kind":"text","text":"long 3"}]},
		"configuration":{"blocking":false,"pushNotificationConfig":{"url":"` + hook + `","token":"local-token"}}}}`
	resp, err := http.Post(hs.URL+"/", "application/json", bytes.NewBufferString(body))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// The queue delivers concurrently: the completed notification may
	// overtake the last progress ones, so wait for all six.
	require.Eventually(t, func() bool { return len(rcv.Delivered("/hook")) >= 6 }, 10*time.Second, 10*time.Millisecond,
		"six notifications arrive")

	var seen []string
	for _, d := range rcv.DeliveredTasks("/hook") {
		line := string(d.Task.Status.State)
		if d.Task.Status.Message != nil {
			line += ": " + d.Task.Status.Message.Text()
		}
		for _, a := range d.Task.Artifacts {
			line += " [" + a.ArtifactID + ": " + a2a.PartsText(a.Parts) + "]"
		}
		seen = append(seen, line)
	}
	assert.Equal(t, []string{
		"working", // submitted -> working
		"working: Working: step 1 of 3",
		"working: Working: step 2 of 3",
		"working: Working: step 3 of 3",
		"working: Working: step 3 of 3 [progress: step 1 of 3step 2 of 3step 3 of 3]",
		"completed: Finished all 3 steps. [progress: step 1 of 3step 2 of 3step 3 of 3]",
	}, seen)
	for _, a := range rcv.Attempts("/hook") {
		assert.NoError(t, a.Err, "every notification verifies")
	}
}

// TestLocalPushNotificationsUnder10: a config registered by an A2A 1.0
// client gets 1.0 bodies, StreamResponse objects sent as
// application/a2a+json.
func TestLocalPushNotificationsUnder10(t *testing.T) {
	hs, rcv := localPushServer(t, keys.AlgEdDSA)
	hook := rcv.Hook("/v1-hook", pushtest.Behaviour{})

	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"push-v1",
		"parts":[{"text":"long 2"}]},"configuration":{"returnImmediately":true,"taskPushNotificationConfig":{"url":"` + hook + `"}}}}`
	req, err := http.NewRequest(http.MethodPost, hs.URL+"/", bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var out struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
		Error any `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	resp.Body.Close()
	require.Nil(t, out.Error)
	require.NotEmpty(t, out.Result.Task.ID)

	require.Eventually(t, func() bool {
		for _, n := range rcv.Delivered("/v1-hook") {
			if bytes.Contains(n.Body, []byte(`TASK_STATE_COMPLETED`)) {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the completed notification arrives")
	for _, n := range rcv.Delivered("/v1-hook") {
		assert.Equal(t, "application/a2a+json", n.ContentType)
		var sr struct {
			Task map[string]any `json:"task"`
		}
		require.NoError(t, json.Unmarshal(n.Body, &sr), string(n.Body))
		require.NotNil(t, sr.Task, "a StreamResponse holding the task: %s", n.Body)
		assert.Equal(t, out.Result.Task.ID, sr.Task["id"])
		assert.NotContains(t, string(n.Body), `"kind"`, "1.0 has no kind")
	}
}
