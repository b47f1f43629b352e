// Package agenttest runs an agent the way a binary does, behind the real
// service, executor and local runner on a memory store, for the agents'
// own tests.
package agenttest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// Owner is the caller every Send speaks for.
const Owner = "me"

// Serve returns a service that runs ag; its runner stops with the test. A
// blocking send waits up to 10 s.
func Serve(t testing.TB, ag agent.Agent) *service.Service {
	store := memory.New(memory.Options{})
	r := local.New(engine.NewExecutor(store, ag, engine.Options{}), local.Options{})
	t.Cleanup(r.Close)
	return service.New(store, r, ag.Info(), service.Config{BlockingTimeout: 10 * time.Second}, service.Options{})
}

// Message is a user message of one text part, with a fresh id.
func Message(text string) a2a.Message {
	return a2a.Message{Role: a2a.RoleUser, MessageID: service.NewID(), Parts: []a2a.Part{a2a.TextPart(text)}}
}

// Send sends msg, blocking, with the request metadata md (nil for none),
// and returns the task as the send answers it: finished, or waiting for
// input.
func Send(t testing.TB, svc *service.Service, msg a2a.Message, md a2a.Metadata) *a2a.Task {
	t.Helper()
	blocking := true
	task, err := svc.SendMessage(context.Background(), Owner, a2a.MessageSendParams{Message: msg, Metadata: md, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	return task
}

// SendText sends text to the task taskID (to a new task when it is empty),
// as Send does.
func SendText(t testing.TB, svc *service.Service, text, taskID string) *a2a.Task {
	t.Helper()
	msg := Message(text)
	msg.TaskID = taskID
	return Send(t, svc, msg, nil)
}
