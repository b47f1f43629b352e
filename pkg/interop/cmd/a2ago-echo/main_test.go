package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The peer of make bench-peers answers what the harness sends: its card,
// a blocking SendMessage that completes with the echo artifact, and
// GetTask of that task.
func TestEchoServer(t *testing.T) {
	hs := httptest.NewUnstartedServer(nil)
	hs.Config.Handler = handler(echoCard("http://" + hs.Listener.Addr().String()))
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

// -card serves another card, as a2a-go's 1.0 card type reads it: the A2A
// 0.3 fields of a card that carries both versions are left out.
func TestReadCard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "card.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"protocolVersion":"0.3.0","name":"Echo Agent","url":"http://127.0.0.1:1","preferredTransport":"JSONRPC",
		"capabilities":{"extensions":[{"uri":"https://example.com/ext"}]},
		"supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"skills":[]}`), 0o600))
	card, err := readCard(path)
	require.NoError(t, err)
	hs := httptest.NewServer(handler(card))
	t.Cleanup(hs.Close)
	resp, err := http.Get(hs.URL + "/.well-known/agent-card.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"uri":"https://example.com/ext"`)
	assert.NotContains(t, string(body), "preferredTransport")

	_, err = readCard(filepath.Join(t.TempDir(), "missing.json"))
	assert.Error(t, err)
}
