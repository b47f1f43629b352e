package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// The peer of make bench-peers answers what the harness sends: its card,
// a blocking SendMessage that completes with the echo artifact, and
// GetTask of that task.
func TestEchoServer(t *testing.T) {
	hs := httptest.NewUnstartedServer(nil)
	hs.Config.Handler = handler("http://" + hs.Listener.Addr().String())
	hs.Start()
	t.Cleanup(hs.Close)
	ctx := context.Background()

	card, err := agentcard.DefaultResolver.Resolve(ctx, hs.URL)
	require.NoError(t, err)
	assert.Equal(t, "Echo Agent", card.Name)
	client, err := a2aclient.NewFromCard(ctx, card)
	require.NoError(t, err)

	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	require.NoError(t, err)
	task, ok := res.(*a2a.Task)
	require.True(t, ok, "a task, not a message: %T", res)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Len(t, task.Artifacts, 1)
	assert.Equal(t, "echo: hello", task.Artifacts[0].Parts[0].Text())

	got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, task.ID, got.ID)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
}
