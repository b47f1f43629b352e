package countdown_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/countdown"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// newService serves the countdown agent, registered next to the built-in
// agents as a binary does, behind the real service and local runner.
func newService(t *testing.T) *service.Service {
	reg := builtin.Registry()
	reg.Register(countdown.Name, countdown.New)
	ag, err := reg.New(countdown.Name, func(k string) string { return map[string]string{countdown.EnvStepMS: "1"}[k] })
	require.NoError(t, err)
	return agenttest.Serve(t, ag)
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
			task := agenttest.SendText(t, svc, "countdown 3", "")
			require.Equal(t, a2a.TaskStateInputRequired, task.Status.State, "three Continue steps, then the permission interrupt")
			assert.Equal(t, "3...2...1...", countdownText(task))
			im := task.Status.Message.Metadata.Object("shared").Object("interrupt")
			assert.Equal(t, "permission", im["type"])

			done := agenttest.SendText(t, svc, tc.reply, task.ID)
			require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
			assert.Equal(t, tc.status, done.Status.Message.Text())
			assert.Equal(t, tc.artifact, countdownText(done))
		})
	}
}

func TestCountdownAsksForTheNumber(t *testing.T) {
	svc := newService(t)
	task := agenttest.SendText(t, svc, "please count", "")
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	assert.Equal(t, "From which number should I count down? (1 to 20)", task.Status.Message.Text())
	again := agenttest.SendText(t, svc, "100", task.ID)
	require.Equal(t, a2a.TaskStateInputRequired, again.Status.State)
	assert.Contains(t, again.Status.Message.Text(), "(1 to 20)", "out of range: asked again")
	counted := agenttest.SendText(t, svc, "2", task.ID)
	require.Equal(t, a2a.TaskStateInputRequired, counted.Status.State)
	assert.Equal(t, "2...1...", countdownText(counted))
	assert.Contains(t, counted.Status.Message.Text(), "Launch?")
}

func TestSettings(t *testing.T) {
	_, err := countdown.New(envtest.Settings(countdown.EnvStepMS, "x"))
	assert.ErrorContains(t, err, `A2A_COUNTDOWN_STEP_MS="x"`)
}
