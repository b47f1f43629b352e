package async_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/async"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// invoker records the invocations it is asked for and fails them with err.
type invoker struct {
	function string
	events   []worker.Event
	err      error
}

func (i *invoker) InvokeAsync(_ context.Context, function string, payload []byte) error {
	i.function = function
	var ev worker.Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return err
	}
	i.events = append(i.events, ev)
	return i.err
}

// Each job becomes one run of the worker, which finds the step's message
// (or reply) in the stored task by its trigger.
func TestStartInvokesTheWorker(t *testing.T) {
	inv := &invoker{}
	r, err := async.New(inv, "stack-WorkerFunction-1", nil)
	require.NoError(t, err)
	ctx := context.Background()
	msg := &a2a.Message{MessageID: "m"}
	for _, j := range []engine.Job{
		{TaskID: "t1", Message: msg},
		{TaskID: "t2", Message: msg, Reply: &agent.Reply{RequestID: "r"}},
		{TaskID: "t3", Takeover: 2, Trigger: store.TriggerContinue},
		{TaskID: "t4"},
	} {
		require.NoError(t, r.Start(ctx, j))
	}
	assert.Equal(t, "stack-WorkerFunction-1", inv.function)
	assert.Equal(t, []worker.Event{
		{Action: worker.ActionRun, TaskID: "t1", Trigger: "message"},
		{Action: worker.ActionRun, TaskID: "t2", Trigger: "reply"},
		{Action: worker.ActionRun, TaskID: "t3", Trigger: "continue", Takeover: 2},
		{Action: worker.ActionRun, TaskID: "t4", Trigger: "message"},
	}, inv.events)
	assert.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "t1"}))
}

// An invocation Lambda refuses delays the task (its lease lapses into a
// takeover); it is not the send's error.
func TestARefusedInvocationIsLeftToTheLease(t *testing.T) {
	inv := &invoker{err: errors.New("TooManyRequestsException (HTTP 429): Rate Exceeded.")}
	r, err := async.New(inv, "worker", nil)
	require.NoError(t, err)
	assert.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "t1"}))
	assert.Len(t, inv.events, 1)

	_, err = async.New(inv, "", nil)
	assert.ErrorContains(t, err, "A2A_WORKER_FUNCTION")
	_, err = async.New(nil, "worker", nil)
	assert.Error(t, err)
}
