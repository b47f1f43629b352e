package countdown_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/countdown"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// newService serves the countdown agent, registered next to the built-in
// agents as a binary does, behind the real service and local runner.
func newService(t *testing.T) *service.Service {
	reg := builtin.Registry()
	reg.Register(countdown.Name, countdown.New)
	ag, err := reg.New(countdown.Name, func(k string) string { return map[string]string{countdown.EnvStepMS: "1"}[k] })
	require.NoError(t, err)
	store := memory.New(memory.Options{})
	r := local.New(service.NewExecutor(store, ag, service.ExecutorOptions{}), local.Options{})
	t.Cleanup(r.Close)
	return service.New(store, r, ag.Info(), service.Config{BlockingTimeout: 10 * time.Second}, service.Options{})
}

// send sends text (to taskID when set) and waits until the task is
// finished or waits for input.
func send(t *testing.T, svc *service.Service, text, taskID string) *a2a.Task {
	t.Helper()
	blocking := true
	msg := a2a.Message{Role: a2a.RoleUser, MessageID: service.NewID(), TaskID: taskID, Parts: []a2a.Part{a2a.TextPart(text)}}
	task, err := svc.SendMessage(context.Background(), "me", a2a.MessageSendParams{Message: msg, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	return task
}

func countdownText(t *a2a.Task) string {
	for _, a := range t.Artifacts {
		if a.ArtifactID == "countdown" {
			return a2a.PartsText(a.Parts)
		}
	}
	return ""
}

func TestCountdown(t *testing.T) {
	svc := newService(t)
	for _, tc := range []struct {
		reply, status, artifact string
	}{
		{"once", "Liftoff!", "3...2...1...Liftoff!"},
		{"always", "Liftoff!", "3...2...1...Liftoff!"},
		{"reject", "Launch aborted.", "3...2...1..."},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			task := send(t, svc, "countdown 3", "")
			require.Equal(t, a2a.TaskStateInputRequired, task.Status.State, "three Continue steps, then the permission interrupt")
			assert.Equal(t, "3...2...1...", countdownText(task))
			im := task.Status.Message.Metadata.Object("shared").Object("interrupt")
			assert.Equal(t, "permission", im["type"])

			done := send(t, svc, tc.reply, task.ID)
			require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
			assert.Equal(t, tc.status, done.Status.Message.Text())
			assert.Equal(t, tc.artifact, countdownText(done))
		})
	}
}

func TestCountdownAsksForTheNumber(t *testing.T) {
	svc := newService(t)
	task := send(t, svc, "please count", "")
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	assert.Equal(t, "From which number should I count down? (1 to 20)", task.Status.Message.Text())
	again := send(t, svc, "100", task.ID)
	require.Equal(t, a2a.TaskStateInputRequired, again.Status.State)
	assert.Contains(t, again.Status.Message.Text(), "(1 to 20)", "out of range: asked again")
	counted := send(t, svc, "2", task.ID)
	require.Equal(t, a2a.TaskStateInputRequired, counted.Status.State)
	assert.Equal(t, "2...1...", countdownText(counted))
	assert.Contains(t, counted.Status.Message.Text(), "Launch?")
}

func TestSettings(t *testing.T) {
	_, err := countdown.New(func(string) string { return "x" })
	assert.ErrorContains(t, err, `A2A_COUNTDOWN_STEP_MS="x"`)
}
