package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacysrv "github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// legacyAgent is an agent for the official a2a-go v0.3.15 server (A2A 0.3):
// "ask" asks a question, "slow" works until canceled, anything else
// completes with the artifact "echo: <text>".
type legacyAgent struct{}

func (legacyAgent) Execute(ctx context.Context, rc *legacysrv.RequestContext, q eventqueue.Queue) error {
	text := ""
	for _, p := range rc.Message.Parts {
		if tp, ok := p.(legacy.TextPart); ok {
			text += tp.Text
		}
	}
	final := func(state legacy.TaskState, msg string) error {
		ev := legacy.NewStatusUpdateEvent(rc, state, legacy.NewMessage(legacy.MessageRoleAgent, legacy.TextPart{Text: msg}))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	if rc.StoredTask != nil {
		return final(legacy.TaskStateCompleted, "You answered: "+text)
	}
	if err := q.Write(ctx, legacy.NewStatusUpdateEvent(rc, legacy.TaskStateSubmitted, nil)); err != nil {
		return err
	}
	switch text {
	case "ask":
		return final(legacy.TaskStateInputRequired, "What is your name?")
	case "slow":
		if err := q.Write(ctx, legacy.NewStatusUpdateEvent(rc, legacy.TaskStateWorking, nil)); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		return nil
	}
	ev := legacy.NewArtifactEvent(rc, legacy.TextPart{Text: "echo: " + text})
	ev.Artifact.Name = "echo"
	if err := q.Write(ctx, ev); err != nil {
		return err
	}
	return final(legacy.TaskStateCompleted, "Done.")
}

func (legacyAgent) Cancel(ctx context.Context, rc *legacysrv.RequestContext, q eventqueue.Queue) error {
	ev := legacy.NewStatusUpdateEvent(rc, legacy.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

// TestOfficialLegacyServer drives the a2a-go v0.3.15 server (JSON-RPC, the
// only binding it serves) with the 0.3 side of the client.
func TestOfficialLegacyServer(t *testing.T) {
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	card := &legacy.AgentCard{
		Name: "legacy test agent", Description: "a2a-go v0.3.15", Version: "0.3.15", ProtocolVersion: "0.3.0",
		URL: hs.URL + "/rpc", PreferredTransport: legacy.TransportProtocolJSONRPC,
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Skills: []legacy.AgentSkill{},
	}
	mux.Handle("/.well-known/agent-card.json", legacysrv.NewStaticAgentCardHandler(card))
	mux.Handle("/rpc", legacysrv.NewJSONRPCHandler(legacysrv.NewHandler(legacyAgent{})))

	c := client.New(hs.URL, client.Options{})
	ctx := clienttest.Context(t)
	ep, err := c.Endpoint(ctx)
	require.NoError(t, err)
	assert.Equal(t, client.AgentInterface{URL: hs.URL + "/rpc", Binding: client.BindingJSONRPC, Version: a2a.V03}, ep)

	done := clienttest.SendHello(t, c)
	assert.Equal(t, "Done.", done.Status.Message.Text())
	got, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: done.ID})
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", clienttest.ArtifactText(got, "echo"))

	asked := clienttest.Send(t, c, "ask", "", true)
	require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
	answered := clienttest.Send(t, c, "Ada", asked.ID, true)
	assert.Equal(t, "You answered: Ada", answered.Status.Message.Text())

	clienttest.CancelSlow(t, c)

	_, err = c.GetTask(ctx, a2a.TaskQueryParams{ID: "no-such-task"})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
	_, err = c.CancelTask(ctx, a2a.TaskIDParams{ID: done.ID})
	assert.ErrorIs(t, err, a2a.ErrTaskNotCancelable)
	_, err = c.SetPushConfig(ctx, a2a.TaskPushNotificationConfig{TaskID: done.ID, PushNotificationConfig: a2a.PushNotificationConfig{URL: "https://example.com/hook"}})
	assert.ErrorIs(t, err, a2a.ErrPushNotificationNotSupported)
}
