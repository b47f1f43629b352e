// Package runnertest is the clock part of the contract every
// engine.Runner keeps, and what tests tell goroutines apart by
// (GoroutineID, Alive, Waiting). The contract runs against a runner under test with
// a real executor, an in-memory store and one fake clock:
//
//   - an interrupt takes a reply until a second before its end
//     (ask + TTL - 1 s) and refuses one a second after it (ask + TTL + 1 s)
//     of the fake clock, whatever the wall clock says; a runner that times
//     interrupts itself (Options.ExpiresInterrupts) fails the task then,
//     and not before;
//   - a runner that waits between steps itself (Options.WaitsOnTheClock)
//     waits on the clock: a step asked for after an hour runs an hour of
//     the fake clock later, not a second before.
//
// Its own test runs the contract with its clocks starting at
// clocktest.Start, so clocktest.RunAcrossEpochs runs it far in the past
// and far in the future too.
package runnertest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// The windows of the interrupts the contract asks for: long enough that
// the wall clock never reaches them during a test.
const (
	InterruptTTL = time.Hour
	TombstoneTTL = 10 * time.Minute
)

// Factory returns the runner under test, driving exec's steps and telling
// the time with clk.
type Factory func(t *testing.T, exec *engine.Executor, clk *clocktest.Clock) engine.Runner

// Options say what the runner under test times itself.
type Options struct {
	// Blocking sends the messages blocking (a runner that runs steps in
	// the request, as the inline one does, needs it).
	Blocking bool
	// ExpiresInterrupts: the runner fails a task whose interrupt got no
	// reply once the clock passes its end.
	ExpiresInterrupts bool
	// WaitsOnTheClock: the runner waits between steps itself.
	WaitsOnTheClock bool
}

// Run runs the contract against runners made by newRunner.
func Run(t *testing.T, newRunner Factory, o Options) {
	t.Run("InterruptActiveASecondBeforeItsEnd", func(t *testing.T) {
		r := newRig(t, newRunner, o)
		task := r.ask(t)
		r.clock.Set(r.activeUntil(t).Add(-time.Second))
		if o.ExpiresInterrupts {
			r.settle(t)
		}
		assert.Equal(t, a2a.TaskStateInputRequired, r.state(t, task.ID), "the runner did not expire the interrupt early")
		require.NoError(t, r.reply(t, task.ID, r.requestID(t), "blue"), "a reply a second before the end is taken")
		done := r.waitState(t, task.ID, a2a.TaskStateCompleted)
		assert.Equal(t, "answer: blue", done.Status.Message.Text())
	})
	t.Run("InterruptExpiredASecondAfterItsEnd", func(t *testing.T) {
		r := newRig(t, newRunner, o)
		task := r.ask(t)
		id := r.requestID(t)
		r.clock.Set(r.activeUntil(t).Add(time.Second))
		err := r.reply(t, task.ID, id, "late")
		var ae *a2a.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, a2a.CodeInterruptRequestExpired, ae.Code, ae.Message)
		if o.ExpiresInterrupts {
			failed := r.waitState(t, task.ID, a2a.TaskStateFailed)
			assert.Contains(t, failed.Status.Message.Text(), "The input request expired")
		} else {
			assert.Equal(t, a2a.TaskStateInputRequired, r.state(t, task.ID))
		}
		r.clock.Set(r.activeUntil(t).Add(TombstoneTTL + time.Second))
		_, err = r.svc.ReplyQuestion(context.Background(), owner, a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"later"}}})
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, a2a.CodeInterruptRequestNotFound, ae.Code, "after the tombstone: %s", ae.Message)
	})
	if !o.WaitsOnTheClock {
		return
	}
	t.Run("ContinueWaitsOnTheClock", func(t *testing.T) {
		r := newRig(t, newRunner, o)
		sent := make(chan error, 1)
		go func() {
			_, err := r.svc.SendMessage(context.Background(), owner, r.params("wait an hour"))
			sent <- err
		}()
		r.waitTimer(t, r.start.Add(time.Hour))
		r.clock.Advance(time.Hour - time.Second)
		r.settle(t)
		assert.EqualValues(t, 1, r.agent.steps.Load(), "the next step waits the whole hour")
		r.clock.Advance(time.Second)
		require.NoError(t, <-sent)
		task := r.waitState(t, r.onlyTask(t), a2a.TaskStateCompleted)
		assert.EqualValues(t, 2, r.agent.steps.Load())
		assert.Equal(t, "waited", task.Status.Message.Text())
	})
}

const owner = "alice"

type rig struct {
	clock *clocktest.Clock
	start time.Time
	store *memory.Store
	svc   *service.Service
	agent *asker
	o     Options
}

func newRig(t *testing.T, newRunner Factory, o Options) *rig {
	start := clocktest.Start(t)
	clk := clocktest.New(start)
	store := memory.New(memory.Options{Clock: clk})
	ag := &asker{}
	exec := engine.NewExecutor(store, ag, engine.Options{Clock: clk, InterruptTTL: InterruptTTL, InterruptTombstoneTTL: TombstoneTTL})
	runner := newRunner(t, exec, clk)
	// A runner that runs a blocking send's steps in the request (the
	// inline one) runs a new task's from its first, as the Lambda
	// functions wire it.
	in, _ := runner.(service.InlineRunner)
	svc := service.New(store, runner, ag.Info(), service.Config{BlockingTimeout: 10 * time.Second}, service.Options{Clock: clk, Inline: in})
	return &rig{clock: clk, start: start, store: store, svc: svc, agent: ag, o: o}
}

func (r *rig) params(text string) a2a.MessageSendParams {
	blocking := r.o.Blocking
	return a2a.MessageSendParams{
		Message:       a2a.Message{Role: a2a.RoleUser, MessageID: text, Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	}
}

// ask starts a task that asks a question, and waits until it is shown.
func (r *rig) ask(t *testing.T) *a2a.Task {
	t.Helper()
	task, err := r.svc.SendMessage(context.Background(), owner, r.params("ask"))
	require.NoError(t, err)
	r.waitState(t, task.ID, a2a.TaskStateInputRequired)
	if r.o.ExpiresInterrupts {
		r.waitTimer(t, r.activeUntil(t))
	}
	return task
}

// activeUntil is the end of the one pending interrupt: the clock has not
// moved since the task asked, so it is start + TTL exactly.
func (r *rig) activeUntil(t *testing.T) time.Time {
	t.Helper()
	return r.start.Add(InterruptTTL)
}

func (r *rig) requestID(t *testing.T) string {
	t.Helper()
	list, err := r.svc.ListInterrupts(context.Background(), owner, a2a.ListInterruptsParams{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	end, err := time.Parse(time.RFC3339Nano, list.Items[0].ExpiresAt)
	require.NoError(t, err)
	require.True(t, end.Equal(r.activeUntil(t)), "the interrupt ends at ask + TTL of the clock: %s", list.Items[0].ExpiresAt)
	return list.Items[0].RequestID
}

// reply answers the task's interrupt: through the callback, or, for a
// runner that runs steps in the request, with a blocking message to the
// task (a callback's step is handed to the backlog).
func (r *rig) reply(t *testing.T, taskID, requestID, text string) error {
	t.Helper()
	if !r.o.Blocking {
		_, err := r.svc.ReplyQuestion(context.Background(), owner, a2a.QuestionReplyParams{RequestID: requestID, Answers: [][]string{{text}}})
		return err
	}
	p := r.params(text)
	p.Message.TaskID = taskID
	_, err := r.svc.SendMessage(context.Background(), owner, p)
	return err
}

func (r *rig) state(t *testing.T, id string) a2a.TaskState {
	t.Helper()
	task, err := r.svc.GetTask(context.Background(), owner, a2a.TaskQueryParams{ID: id})
	require.NoError(t, err)
	return task.Status.State
}

func (r *rig) onlyTask(t *testing.T) string {
	t.Helper()
	list, err := r.svc.ListTasks(context.Background(), owner, a2a.ListTasksParams{})
	require.NoError(t, err)
	require.Len(t, list.Tasks, 1)
	return list.Tasks[0].ID
}

func (r *rig) waitState(t *testing.T, id string, want a2a.TaskState) *a2a.Task {
	t.Helper()
	var task *a2a.Task
	require.Eventually(t, func() bool {
		var err error
		task, err = r.svc.GetTask(context.Background(), owner, a2a.TaskQueryParams{ID: id})
		return err == nil && task.Status.State == want
	}, 20*time.Second, 5*time.Millisecond, "task %s never became %s", id, want)
	return task
}

// waitTimer waits until the runner waits on the clock until at. Any timer
// will not do: while a step runs, the executor's lease keeper waits on the
// same clock, and moving the clock before the runner's own wait begins
// would leave that wait a whole delay behind.
func (r *rig) waitTimer(t *testing.T, at time.Time) {
	t.Helper()
	require.Eventually(t, func() bool { return r.clock.TimerAt(at) }, 20*time.Second, time.Millisecond, "the runner never waited on the clock until %s", at)
}

// settle gives a runner that would (wrongly) act on the wall clock or on
// an early timer the time to do so.
func (r *rig) settle(t *testing.T) {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
}

// asker asks a question and completes with the answer; or, for "wait an
// hour", continues after an hour and completes.
type asker struct{ steps atomic.Int32 }

func (*asker) Info() agent.Info { return agent.Info{Name: "asker"} }

func (a *asker) Step(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	a.steps.Add(1)
	switch {
	case in.Reply != nil:
		return agent.Complete(agent.Text("answer: " + in.Reply.Text)), nil
	case len(in.Checkpoint) > 0:
		return agent.Complete(agent.Text("waited")), nil
	case in.Message != nil && in.Message.Text() == "wait an hour":
		return agent.Continue(time.Hour, map[string]bool{"waited": true}), nil
	}
	return agent.AskQuestion(agent.Text("Which colour?"), map[string]any{"questions": []string{"Which colour?"}}), nil
}
