package clienttest

// The steps of a conversation that the client tests, local and against
// a2a-go's servers, go through alike, each with its checks.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// RequireEndpoint checks that c chooses the agent's interface of version and
// binding, and returns it.
func RequireEndpoint(t testing.TB, c *client.Client, version a2a.Version, binding string) client.AgentInterface {
	t.Helper()
	ep, err := c.Endpoint(Context(t))
	require.NoError(t, err)
	assert.Equal(t, version, ep.Version)
	assert.Equal(t, binding, ep.Binding)
	return ep
}

// SendHello sends "hello", blocking, to an agent that echoes it (the demo
// agent and the test agents do), checks that the task completed with
// "echo: hello" in its artifact "echo", and returns the task.
func SendHello(t testing.TB, c *client.Client) *a2a.Task {
	t.Helper()
	done := Send(t, c, "hello", "", true)
	assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	assert.Equal(t, "echo: hello", ArtifactText(done, "echo"))
	return done
}

// CancelSlow sends "slow" without blocking to an agent that then works on
// (the demo agent and the test agents do), checks that the task is still at
// work, cancels it, checks that the cancel answers the canceled task, and
// returns the task as sent.
func CancelSlow(t testing.TB, c *client.Client) *a2a.Task {
	t.Helper()
	slow := Send(t, c, "slow", "", false)
	assert.False(t, slow.Status.State.Terminal())
	canceled, err := c.CancelTask(Context(t), a2a.TaskIDParams{ID: slow.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	return slow
}
