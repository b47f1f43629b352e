package proxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/proxy"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

const remoteToken = "remote-s3cret"

// setup serves the demo agent (the remote) and, in front of it, a second
// local server whose agent is the proxy. It returns a client of the front
// server and one of the remote.
func setup(t *testing.T, mutate func(*proxy.Config)) (front, remote *client.Client) {
	return setupRemote(t, nil, mutate)
}

// setupRemote is setup with extra settings for the remote (demo) server.
func setupRemote(t *testing.T, remoteEnv map[string]string, mutate func(*proxy.Config)) (front, remote *client.Client) {
	t.Helper()
	rs := clienttest.Start(t, clienttest.Options{Token: remoteToken, Env: remoteEnv})
	cfg := proxy.Config{URL: rs.URL, Token: remoteToken, Wait: 2 * time.Second, Poll: 10 * time.Millisecond, PollInterval: 5 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	ag, err := proxy.NewAgent(cfg)
	require.NoError(t, err)
	fs := clienttest.Start(t, clienttest.Options{Agent: ag})
	return client.New(fs.URL, client.Options{}), client.New(rs.URL, client.Options{Token: remoteToken})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// run sends text (to taskID when set) and waits until the task settles.
func run(t *testing.T, c *client.Client, text, taskID string) *a2a.Task {
	t.Helper()
	ctx := ctxT(t)
	blocking := false
	res, err := c.SendMessage(ctx, a2a.MessageSendParams{
		Message:       a2a.Message{TaskID: taskID, Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	})
	require.NoError(t, err)
	task, err := c.Wait(ctx, res.Task.ID, client.WaitOptions{MinInterval: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	return task
}

func artifact(t *a2a.Task, name string) *a2a.Artifact {
	for i := range t.Artifacts {
		if t.Artifacts[i].Name == name {
			return &t.Artifacts[i]
		}
	}
	return nil
}

func TestProxyMirrorsTheRemoteTask(t *testing.T) {
	front, remote := setup(t, nil)
	ctx := ctxT(t)

	t.Run("completed with artifact and progress", func(t *testing.T) {
		// The remote works 150ms, so the proxy sees its progress message.
		front, _ := setupRemote(t, map[string]string{demo.EnvWorkMS: "150"}, nil)
		task := run(t, front, "hello", "")
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assert.Equal(t, "Done.", task.Status.Message.Text())
		require.NotNil(t, artifact(task, "echo"))
		assert.Equal(t, "echo: hello", a2a.PartsText(artifact(task, "echo").Parts))
		full, err := front.GetTask(ctxT(t), a2a.TaskQueryParams{ID: task.ID})
		require.NoError(t, err)
		var texts []string
		for _, m := range full.History {
			texts = append(texts, m.Text())
		}
		assert.Contains(t, texts, "Working on it...", "the remote's progress message is mirrored")
	})

	t.Run("failed and rejected", func(t *testing.T) {
		task := run(t, front, "fail", "")
		assert.Equal(t, a2a.TaskStateFailed, task.Status.State)
		assert.Contains(t, task.Status.Message.Text(), "Failed on purpose")
		task = run(t, front, "reject", "")
		assert.Equal(t, a2a.TaskStateRejected, task.Status.State)
		assert.Contains(t, task.Status.Message.Text(), "Rejected on purpose")
	})

	t.Run("data parts", func(t *testing.T) {
		task := run(t, front, "data", "")
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		p := artifact(task, "data").Parts[0]
		assert.Equal(t, a2a.PartKindData, p.Kind)
		assert.JSONEq(t, `{"input":"data","words":1,"characters":4}`, string(p.Data))
	})

	t.Run("input-required round trip", func(t *testing.T) {
		asked := run(t, front, "ask What is your name?", "")
		require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
		assert.Equal(t, "What is your name?", asked.Status.Message.Text())
		pi := client.Interrupt(asked)
		assert.Equal(t, "question", pi.Type)
		assert.NotEmpty(t, pi.RequestID, "this host's own interrupt")

		done := run(t, front, "Ada", asked.ID)
		assert.Equal(t, asked.ID, done.ID)
		require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		assert.Equal(t, `You answered: "Ada"`, done.Status.Message.Text())
		assert.Equal(t, "answer: Ada", a2a.PartsText(artifact(done, "result").Parts))

		// The remote task went through the same turns.
		list, err := remote.ListTasks(ctx, a2a.ListTasksParams{Status: a2a.TaskStateCompleted})
		require.NoError(t, err)
		found := false
		for _, rt := range list.Tasks {
			found = found || rt.Status.Message.Text() == `You answered: "Ada"`
		}
		assert.True(t, found, "the reply was forwarded to the remote task")
	})

	t.Run("permission round trip", func(t *testing.T) {
		asked := run(t, front, "permission deploy", "")
		require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
		assert.Equal(t, "permission", client.Interrupt(asked).Type)
		assert.Equal(t, "deploy", client.Interrupt(asked).Details["permission"])
		done := run(t, front, "once", asked.ID)
		require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		assert.Equal(t, "performed deploy", a2a.PartsText(artifact(done, "result").Parts))
	})
}

// TestProxyContinuesWhileTheRemoteWorks: a step follows the remote for
// 20ms at most, so a long remote task is mirrored over several Continue
// steps; the artifact grows by appends without duplicates.
func TestProxyContinuesWhileTheRemoteWorks(t *testing.T) {
	front, _ := setup(t, func(c *proxy.Config) { c.Wait = 20 * time.Millisecond })
	task := run(t, front, "long 8", "")
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	assert.Equal(t, "Finished all 8 steps.", task.Status.Message.Text())
	parts := artifact(task, "progress").Parts
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	assert.Equal(t, []string{"step 1 of 8", "step 2 of 8", "step 3 of 8", "step 4 of 8", "step 5 of 8", "step 6 of 8", "step 7 of 8", "step 8 of 8"}, texts)
}

func TestProxyCancelReachesTheRemote(t *testing.T) {
	front, remote := setup(t, nil)
	ctx := ctxT(t)
	blocking := false
	res, err := front.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart("long 100")}}, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	// Wait until the remote task exists and works.
	require.Eventually(t, func() bool {
		l, err := remote.ListTasks(ctx, a2a.ListTasksParams{Status: a2a.TaskStateWorking})
		return err == nil && len(l.Tasks) == 1
	}, 5*time.Second, 5*time.Millisecond)
	canceled, err := front.CancelTask(ctx, a2a.TaskIDParams{ID: res.Task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	assert.Eventually(t, func() bool {
		l, err := remote.ListTasks(ctx, a2a.ListTasksParams{Status: a2a.TaskStateCanceled})
		return err == nil && len(l.Tasks) == 1
	}, 5*time.Second, 5*time.Millisecond, "the remote task is canceled too")
}

func TestProxyFailures(t *testing.T) {
	t.Run("wrong token", func(t *testing.T) {
		front, _ := setup(t, func(c *proxy.Config) { c.Token = "wrong" })
		task := run(t, front, "hello", "")
		assert.Equal(t, a2a.TaskStateFailed, task.Status.State)
		assert.Contains(t, task.Status.Message.Text(), "The remote agent refused the proxy's credentials (A2A_PROXY_TOKEN)")
		assert.NotContains(t, task.Status.Message.Text(), "wrong")
	})
	t.Run("remote unreachable", func(t *testing.T) {
		front, _ := setup(t, func(c *proxy.Config) { c.URL = "http://127.0.0.1:1"; c.MaxFailures = 2 })
		task := run(t, front, "hello", "")
		assert.Equal(t, a2a.TaskStateFailed, task.Status.State)
		assert.Contains(t, task.Status.Message.Text(), "Lost contact with the remote agent after 2 attempts")
	})
	t.Run("over the remote REST binding", func(t *testing.T) {
		front, _ := setup(t, func(c *proxy.Config) { c.Binding = "rest" })
		task := run(t, front, "hello", "")
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "the REST binding works too")
	})
}

func TestSettings(t *testing.T) {
	env := envtest.Settings
	_, err := proxy.New(env())
	assert.ErrorContains(t, err, "A2A_PROXY_URL is required")
	_, err = proxy.New(env(proxy.EnvURL, "localhost:9"))
	assert.ErrorContains(t, err, "must be an absolute http(s) URL")
	_, err = proxy.New(env(proxy.EnvURL, "http://x", proxy.EnvPollMS, "soon", proxy.EnvBinding, "grpc", proxy.EnvProtocol, "2"))
	assert.ErrorContains(t, err, "A2A_PROXY_POLL_MS")
	assert.ErrorContains(t, err, "A2A_PROXY_BINDING")
	assert.ErrorContains(t, err, "A2A_PROXY_PROTOCOL")
	ag, err := proxy.New(env(proxy.EnvURL, "https://agent.example.com", proxy.EnvName, "Weather via proxy"))
	require.NoError(t, err)
	assert.Equal(t, "Weather via proxy", ag.Info().Name)
	assert.NotContains(t, ag.Info().Description, "example.com", "the remote URL is not advertised")
}
