package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// Context is a context that ends with the test, or after 20 s.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TextMessage is a message of one text part (role and id left to the
// client).
func TextMessage(text string) a2a.Message {
	return a2a.Message{Parts: []a2a.Part{a2a.TextPart(text)}}
}

// Send sends text through c, to the task taskID when it is set, and
// returns the task the agent answers with.
func Send(t testing.TB, c *client.Client, text, taskID string, blocking bool) *a2a.Task {
	t.Helper()
	m := TextMessage(text)
	m.TaskID = taskID
	res, err := c.SendMessage(Context(t), a2a.MessageSendParams{Message: m, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	require.NotNil(t, res.Task, "the agent answers with a task")
	return res.Task
}

// ArtifactText is the text of the task's artifact named (or with the id)
// name, "" when it has none.
func ArtifactText(t *a2a.Task, name string) string {
	for _, a := range t.Artifacts {
		if a.Name == name || a.ArtifactID == name {
			return a2a.PartsText(a.Parts)
		}
	}
	return ""
}
