package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// A step whose context the runner ends before the step's result is stored
// is stopped: whatever the agent makes of it, an outcome or an error,
// nothing of the step is stored (not even a write the agent makes after the
// stop), and the task keeps its lease, for the runner it is handed to.
func TestAStoppedStepStoresNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// after is what the agent does once its context ended; writes
		// says that it writes (and returns the write's error).
		after  func(ctx context.Context, emit agent.Emitter) (agent.Outcome, error)
		writes bool
	}{
		{"the agent fails on its ended context", func(ctx context.Context, _ agent.Emitter) (agent.Outcome, error) {
			return agent.Outcome{}, ctx.Err()
		}, false},
		{"the agent answers anyway", func(context.Context, agent.Emitter) (agent.Outcome, error) {
			return agent.Fail(agent.Text("deadline exceeded")), nil
		}, false},
		{"the agent writes on", func(_ context.Context, emit agent.Emitter) (agent.Outcome, error) {
			err := emit.Status(context.Background(), agent.Text("still here"))
			return agent.Complete(agent.Text("done")), err
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			started := make(chan struct{})
			emitted := make(chan error, 1)
			f := newLeaseFixture(t, func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
				close(started)
				<-ctx.Done()
				out, err := tc.after(ctx, emit)
				emitted <- err
				return out, err
			})
			task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))
			before, _ := f.state(t, task.ID)

			stepCtx, stop := context.WithCancelCause(ctx)
			result := make(chan error, 1)
			go func() {
				_, err := f.exec.Step(stepCtx, engine.Job{TaskID: task.ID, Trigger: store.TriggerMessage})
				result <- err
			}()
			<-started
			st, rec := f.state(t, task.ID)
			require.Equal(t, a2a.TaskStateWorking, st, "the step took its lease")
			stop(errors.New("the request's budget is spent"))
			err := <-result
			require.ErrorIs(t, err, engine.ErrStepStopped)
			assert.ErrorContains(t, err, "the request's budget is spent")
			if e := <-emitted; tc.writes {
				assert.ErrorIs(t, e, agent.ErrTaskFinished, "a write after the stop is refused as for a finished task")
			}

			st, after := f.state(t, task.ID)
			assert.Equal(t, a2a.TaskStateWorking, st, "nothing of the step was stored (was %s)", before)
			assert.Equal(t, rec.Version, after.Version)
			assert.Len(t, after.Task.History, 1)
			assert.True(t, after.Lease.Held(), "the task keeps its lease")
		})
	}
}

// A step records the execution it runs in (for a cancel to stop it) with
// its first write, once; and a step that continues reports the task's
// version after it, which names what follows.
func TestAStepRecordsItsExecution(t *testing.T) {
	ctx := context.Background()
	steps := 0
	f := newLeaseFixture(t, func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
		steps++
		if steps < 3 {
			return agent.Continue(time.Second, steps), nil
		}
		return agent.Complete(agent.Text("done")), nil
	})
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))
	const first = "arn:aws:states:us-east-1:123456789012:execution:tasks:t-v2"
	res, err := f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerMessage, ExecutionARN: first})
	require.NoError(t, err)
	assert.Equal(t, engine.NextContinue, res.Next)
	_, rec := f.state(t, task.ID)
	assert.Equal(t, first, rec.ExecutionARN)
	assert.Equal(t, rec.Version, res.Version, "the version after the step")

	res, err = f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerContinue, ExecutionARN: first})
	require.NoError(t, err)
	_, again := f.state(t, task.ID)
	assert.Equal(t, rec.Version+2, again.Version, "the step's two writes: the lease, then its outcome; the execution is not written again")
	assert.Equal(t, again.Version, res.Version)

	const next = "arn:aws:states:us-east-1:123456789012:execution:tasks:t-0c1d"
	res, err = f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerContinue, ExecutionARN: next})
	require.NoError(t, err)
	assert.Equal(t, engine.NextDone, res.Next)
	assert.Zero(t, res.Version, "nothing follows a finished task")
	_, done := f.state(t, task.ID)
	assert.Equal(t, next, done.ExecutionARN, "a continued execution replaces it")
}

// HandOver stores the task a stopped first step had not stored: working,
// with a lease no step holds, that lapses into a takeover when its next
// runner never starts. A task stored meanwhile is left as it is.
func TestHandOverStoresTheTask(t *testing.T) {
	ctx := context.Background()
	f := newLeaseFixture(t, completeWithEcho)
	id := store.TaskIDFor("alice", "m1")
	msg := userMsg("m1", "hello")
	msg.TaskID, msg.ContextID = id, "c1"
	u := &engine.Unsaved{Task: store.NewTask{Owner: "alice", BindingKnown: true, SessionID: "s1", Task: a2a.Task{ID: id, ContextID: "c1",
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())}, History: []a2a.Message{msg}}}}
	require.NoError(t, f.exec.HandOver(ctx, u))
	st, rec := f.state(t, id)
	assert.Equal(t, a2a.TaskStateWorking, st)
	assert.Equal(t, store.Lease{Until: f.clock.Now().Add(testLease), Trigger: store.TriggerMessage}, rec.Lease)
	assert.Len(t, rec.Task.History, 1)

	require.NoError(t, f.exec.HandOver(ctx, u), "a task stored meanwhile is fine")
	_, again := f.state(t, id)
	assert.Equal(t, rec.Version, again.Version)

	// The lease lapses: the sweep takes the task over and its step runs.
	f.clock.Advance(testLease + time.Second)
	res, err := f.exec.Sweep(ctx, stepNow{f.exec})
	require.NoError(t, err)
	assert.Equal(t, 1, res.TakenOver)
	st, _ = f.state(t, id)
	assert.Equal(t, a2a.TaskStateCompleted, st)
}
