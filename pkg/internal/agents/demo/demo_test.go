package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

func newService(t *testing.T) *service.Service {
	ag, err := demo.New(envtest.Settings(demo.EnvWorkMS, "1", demo.EnvStepMS, "1"))
	require.NoError(t, err)
	return agenttest.Serve(t, ag)
}

func artifact(t *testing.T, task *a2a.Task, name string) a2a.Artifact {
	t.Helper()
	for _, a := range task.Artifacts {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no artifact %q in %+v", name, task.Artifacts)
	return a2a.Artifact{}
}

func TestDemoCommands(t *testing.T) {
	svc := newService(t)
	t.Run("echo", func(t *testing.T) {
		task := agenttest.SendText(t, svc, "hello there", "")
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assert.Equal(t, "echo: hello there", artifact(t, task, "echo").Parts[0].Text)
		assert.Equal(t, "Working on it...", task.History[1].Text(), "a progress message while working")
	})
	t.Run("files", func(t *testing.T) {
		file := a2a.FileBytesPart("aGVsbG8=", "hello.txt", "text/plain")
		link := a2a.FileURIPart("https://example.com/a.png", "a.png", "image/png")
		blocking := true
		task, err := svc.SendMessage(context.Background(), "caller", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, MessageID: "m-files",
			Parts: []a2a.Part{a2a.TextPart("keep these"), file, link}}, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
		require.NoError(t, err)
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assert.Equal(t, "echo: keep these", artifact(t, task, "echo").Parts[0].Text)
		assert.Equal(t, []a2a.Part{file, link}, artifact(t, task, "files").Parts, "the same files, as they were sent")
	})
	t.Run("long", func(t *testing.T) {
		task := agenttest.SendText(t, svc, "long 3", "")
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		parts := artifact(t, task, "progress").Parts
		require.Len(t, parts, 3, "one part appended per step")
		assert.Equal(t, "step 3 of 3", parts[2].Text)
	})
	t.Run("long needs a count", func(t *testing.T) {
		for _, text := range []string{"long", "long 0", "long 101", "long x"} {
			task := agenttest.SendText(t, svc, text, "")
			assert.Equal(t, a2a.TaskStateRejected, task.Status.State, text)
			assert.Contains(t, task.Status.Message.Text(), "between 1 and 100")
		}
	})
	t.Run("fail and reject", func(t *testing.T) {
		assert.Equal(t, a2a.TaskStateFailed, agenttest.SendText(t, svc, "fail", "").Status.State)
		assert.Equal(t, a2a.TaskStateRejected, agenttest.SendText(t, svc, "reject", "").Status.State)
	})
	t.Run("data", func(t *testing.T) {
		task := agenttest.SendText(t, svc, "data please", "")
		p := artifact(t, task, "data").Parts[0]
		assert.Equal(t, a2a.PartKindData, p.Kind)
		assert.JSONEq(t, `{"input":"data please","words":2,"characters":11}`, string(p.Data))
	})
	t.Run("ask", func(t *testing.T) {
		task := agenttest.SendText(t, svc, "ask Favourite colour?", "")
		require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
		assert.Equal(t, "Favourite colour?", task.Status.Message.Text())
		done := agenttest.SendText(t, svc, "blue", task.ID)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		assert.Equal(t, `You answered: "blue"`, done.Status.Message.Text())
		assert.Equal(t, "answer: blue", artifact(t, done, "result").Parts[0].Text)
	})
	t.Run("permission", func(t *testing.T) {
		for reply, want := range map[string]string{"once": "performed deploy", "always": "performed deploy", "reject": "deploy was not performed: permission rejected"} {
			task := agenttest.SendText(t, svc, "permission deploy", "")
			require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
			im := task.Status.Message.Metadata.Object("shared").Object("interrupt")
			assert.Equal(t, "permission", im["type"])
			done := agenttest.SendText(t, svc, reply, task.ID)
			assert.Equal(t, a2a.TaskStateCompleted, done.Status.State, reply)
			assert.Equal(t, want, artifact(t, done, "result").Parts[0].Text, reply)
		}
	})
}

func TestDemoSettings(t *testing.T) {
	_, err := demo.New(envtest.Settings(demo.EnvWorkMS, "soon"))
	assert.ErrorContains(t, err, `A2A_DEMO_WORK_MS="soon" must be an integer from 0 to 3600000`)
	_, err = demo.New(envtest.Settings(demo.EnvStepMS, "-5"))
	assert.ErrorContains(t, err, "A2A_DEMO_STEP_MS")
}

func TestDemoWorkStopsOnCancel(t *testing.T) {
	ag, err := demo.New(envtest.Settings(demo.EnvWorkMS, "60000"))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ag.Step(ctx, agent.StepInput{Message: agent.Text("slow")}, nopEmitter{})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the demo's work ignored cancellation")
	}
}

type nopEmitter struct{}

func (nopEmitter) Status(context.Context, *a2a.Message) error { return nil }
func (nopEmitter) Artifact(context.Context, a2a.Artifact, agent.ArtifactOptions) error {
	return nil
}
