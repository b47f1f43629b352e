package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// fake records the actions it is asked to run and answers res.
type fake struct {
	res   engine.StepResult
	err   error
	calls []string
	step  engine.Job
	await engine.AwaitRequest
	fail  string
}

func (f *fake) Step(_ context.Context, req engine.Job) (engine.StepResult, error) {
	f.calls, f.step = append(f.calls, "step"), req
	return f.res, f.err
}
func (f *fake) Await(_ context.Context, req engine.AwaitRequest) (engine.StepResult, error) {
	f.calls, f.await = append(f.calls, "await"), req
	return f.res, f.err
}
func (f *fake) Expire(_ context.Context, taskID, requestID string) (engine.StepResult, error) {
	f.calls = append(f.calls, "expire "+taskID+" "+requestID)
	return f.res, f.err
}
func (f *fake) Fail(_ context.Context, taskID, reason string) (engine.StepResult, error) {
	f.calls, f.fail = append(f.calls, "fail "+taskID), reason
	return f.res, f.err
}

func TestActions(t *testing.T) {
	ctx := context.Background()
	f := &fake{res: engine.StepResult{Next: engine.NextContinue, After: 1500 * time.Millisecond, State: a2a.TaskStateWorking}}
	h := worker.New(f, nil, nil)

	carry := json.RawMessage(`{"taskId":"t","interruptTtlSeconds":600,"steps":3,"maxSteps":500}`)
	res, err := h.Handle(ctx, worker.Event{Action: "step", TaskID: "t", Trigger: "reply", ExecutionARN: "arn:aws:states:us-east-1:1:execution:m:t-v2", Carry: carry})
	require.NoError(t, err)
	assert.Equal(t, worker.Result{Next: "continue", AfterSeconds: 2, Trigger: "continue", State: "working", Carry: carry}, res,
		"delays round up to whole seconds; the next step is a continue; the execution's carry comes back as it went")
	assert.Equal(t, engine.Job{TaskID: "t", Trigger: store.TriggerReply, ExecutionARN: "arn:aws:states:us-east-1:1:execution:m:t-v2"}, f.step,
		"the step records the execution it runs in")

	f.res = engine.StepResult{Next: engine.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r1"}
	res, err = h.Handle(ctx, worker.Event{Action: "await", TaskID: "t", RequestID: "r1", TaskToken: "tok"})
	require.NoError(t, err)
	assert.Equal(t, worker.Result{Next: "await", RequestID: "r1", Trigger: "reply", State: "input-required"}, res, "the step after an interrupt is its reply's")
	assert.Equal(t, engine.AwaitRequest{TaskID: "t", RequestID: "r1", TaskToken: "tok"}, f.await)

	f.res = engine.StepResult{Next: engine.NextDone, State: a2a.TaskStateFailed}
	_, err = h.Handle(ctx, worker.Event{Action: "expire", TaskID: "t", RequestID: "r1"})
	require.NoError(t, err)
	_, err = h.Handle(ctx, worker.Event{Action: "fail", TaskID: "t", Error: &worker.StateError{Error: "Lambda.Unknown", Cause: "boom"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"step", "await", "expire t r1", "fail t"}, f.calls)
	assert.Equal(t, "The task failed: Lambda.Unknown: boom", f.fail)
}

func TestBadEvents(t *testing.T) {
	h := worker.New(&fake{}, nil, nil)
	for _, ev := range []worker.Event{
		{Action: "step"},
		{Action: "step", TaskID: "t"},
		{Action: "step", TaskID: "t", Trigger: "whenever"},
		{Action: "run", TaskID: "t"},
		{Action: "run", TaskID: "t", Trigger: "later"},
		{Action: "await", TaskID: "t", RequestID: "r"},
		{Action: "dance", TaskID: "t"},
	} {
		_, err := h.Handle(context.Background(), ev)
		assert.ErrorIs(t, err, worker.ErrBadEvent, "%+v", ev)
	}
}

func TestExecutorErrorsFailTheInvocation(t *testing.T) {
	boom := errors.New("table unavailable")
	_, err := worker.New(&fake{err: boom}, nil, nil).Handle(context.Background(), worker.Event{Action: "step", TaskID: "t", Trigger: "message"})
	assert.ErrorIs(t, err, boom, "the state machine's Catch fails the task")
}

func TestFailureMessages(t *testing.T) {
	long := make([]byte, 500)
	for i := range long {
		long[i] = 'x'
	}
	for _, tt := range []struct {
		err  *worker.StateError
		want string
	}{
		{nil, "The task failed: its step did not complete."},
		{&worker.StateError{Error: "States.Timeout"}, "The task failed: a step ran out of time."},
		{&worker.StateError{Error: "Sandbox.Timedout", Cause: "Task timed out after 900 seconds"}, "The task failed: a step ran out of time."},
		{&worker.StateError{Error: "errorString", Cause: `{"errorMessage":"load task t: throttled","errorType":"errorString"}`}, "The task failed: errorString: load task t: throttled"},
		{&worker.StateError{Error: "UnknownOutcome"}, "The task failed: UnknownOutcome."},
		{&worker.StateError{Error: "E", Cause: string(long)}, "The task failed: E: " + string(long[:300]) + "..."},
	} {
		f := &fake{}
		_, err := worker.New(f, nil, nil).Handle(context.Background(), worker.Event{Action: "fail", TaskID: "t", Error: tt.err})
		require.NoError(t, err)
		assert.Equal(t, tt.want, f.fail)
	}
}

// machine records the jobs handed to the state machine.
type machine struct {
	jobs []engine.Job
	err  error
}

func (m *machine) Start(_ context.Context, job engine.Job) error {
	m.jobs = append(m.jobs, job)
	return m.err
}

// A run (the asynchronous path) runs a step outside any execution; what
// follows it goes to a new execution, named by the task's version after
// the step, and a task done in its step starts none.
func TestRunHandsWhatFollowsToTheStateMachine(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		res  engine.StepResult
		want []engine.Job
	}{
		{"done", engine.StepResult{Next: engine.NextDone, State: a2a.TaskStateCompleted}, nil},
		{"continue", engine.StepResult{Next: engine.NextContinue, After: 3 * time.Second, State: a2a.TaskStateWorking, Version: 4},
			[]engine.Job{{TaskID: "t", Resume: &engine.Resume{After: 3 * time.Second, Version: 4}}}},
		{"await", engine.StepResult{Next: engine.NextAwait, State: a2a.TaskStateInputRequired, RequestID: "r1", Version: 3},
			[]engine.Job{{TaskID: "t", Resume: &engine.Resume{AwaitRequestID: "r1", Version: 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, m := &fake{res: tc.res}, &machine{}
			_, err := worker.New(f, m, nil).Handle(ctx, worker.Event{Action: "run", TaskID: "t", Trigger: "message", Takeover: 1})
			require.NoError(t, err)
			assert.Equal(t, engine.Job{TaskID: "t", Trigger: store.TriggerMessage, LeaseLater: true}, f.step)
			assert.Equal(t, tc.want, m.jobs)
		})
	}

	// An execution that does not start fails the invocation: the task keeps
	// the lease of its wait, which a sweep takes over.
	boom := errors.New("throttled")
	f := &fake{res: engine.StepResult{Next: engine.NextContinue, Version: 2}}
	_, err := worker.New(f, &machine{err: boom}, nil).Handle(ctx, worker.Event{Action: "run", TaskID: "t", Trigger: "message"})
	assert.ErrorIs(t, err, boom)
	_, err = worker.New(f, nil, nil).Handle(ctx, worker.Event{Action: "run", TaskID: "t", Trigger: "message"})
	assert.ErrorContains(t, err, "no state machine")
}

// A run that is a takeover says so in its invocation's fields (the
// summary line's), with the number the sweep gave it; another run does
// not.
func TestATakeoverRunIsNamedInItsFields(t *testing.T) {
	for _, takeover := range []int{0, 2} {
		ctx := logfields.WithFields(context.Background())
		_, err := worker.New(&fake{res: engine.StepResult{Next: engine.NextDone}}, &machine{}, nil).
			Handle(ctx, worker.Event{Action: "run", TaskID: "t", Trigger: "message", Takeover: takeover})
		require.NoError(t, err)
		want := ""
		if takeover > 0 {
			want = "2"
		}
		assert.Equal(t, want, logfields.Get(ctx, "takeover"), "takeover %d", takeover)
	}
}
