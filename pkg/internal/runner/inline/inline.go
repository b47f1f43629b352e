// Package inline runs a task's steps inside the request that started it: a
// blocking send's, in the Lambda functions.
//
// A blocking send runs the agent's steps in the request, following Continue
// outcomes and their delays while its budget allows, and shows an interrupt
// a step asks for (Await) before it returns, or hands it over. A
// non-blocking send cannot run anything: a Lambda is frozen as soon as it
// answers. What a request cannot run goes to its backlog: in the auto and
// stepfunctions modes the asynchronous path (a step to run now) or a state
// machine execution (a wait, an interrupt; see pkg/internal/runner/auto); in inline
// mode (sam local) the task is marked as awaiting execution, for a sweep.
//
// A step that outlives the budget is never failed for it: the runner stops
// it (the step stores nothing more, see engine.ErrStepStopped), stores its
// task if the step had not (engine.Executor.HandOver), and hands the step
// to its backlog, which runs it again elsewhere from the task's last
// checkpoint (steps are at least once). The send then answers with the
// task as it stands: working.
package inline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Executor runs the actions of the step protocol; *engine.Executor is one.
type Executor interface {
	Step(ctx context.Context, job engine.Job) (engine.StepResult, error)
	StepUnsaved(ctx context.Context, u *engine.Unsaved) (engine.StepResult, error)
	Await(ctx context.Context, req engine.AwaitRequest) (engine.StepResult, error)
	HandOver(ctx context.Context, u *engine.Unsaved) error
}

// Backlog keeps the jobs a request could not run itself.
type Backlog interface {
	// Defer hands job to a runner outside the request. It returns
	// store.ErrNotFound for a task that does not exist or expired, and
	// nil, doing nothing, for a terminal task.
	Defer(ctx context.Context, job engine.Job) error
}

// Defaults of Options (the budget's is the configuration's,
// config.DefaultBlockingTimeout).
const (
	DefaultReserve = 2 * time.Second
	// deferTimeout bounds handing over a job once the request's own time
	// is up.
	deferTimeout = 5 * time.Second
	// stopGrace is how long a step stopped at the end of the budget has to
	// return: an agent that heeds its context returns at once, and one
	// that does not is left behind (it stores nothing more).
	stopGrace = 500 * time.Millisecond
)

// errBudgetSpent is why the runner stops a step: the request's budget is
// spent.
var errBudgetSpent = errors.New("the blocking send's budget is spent; the step goes on outside the request")

// Options configure a Runner.
type Options struct {
	// Budget bounds the time a blocking send spends running steps
	// (A2A_BLOCKING_TIMEOUT_SECONDS); zero is config.DefaultBlockingTimeout.
	Budget time.Duration
	// Reserve is kept from the request's deadline (a Lambda's remaining
	// time) to hand over what is left and answer.
	Reserve time.Duration
	// HandOffInterrupts passes an interrupt a step asks for to the backlog
	// (Step Functions shows it once its execution holds the task token)
	// instead of showing it in the request.
	HandOffInterrupts bool
	// Clock counts the budget between steps and times the waits between
	// them; the default is the system clock. A running step is stopped at
	// the budget's end in real time, as an I/O timeout is.
	Clock  clock.Clock
	Logger *slog.Logger
}

// Runner is an engine.Runner that runs steps in the caller's request, and
// the service's InlineRunner.
type Runner struct {
	exec     Executor
	backlog  Backlog
	clock    clock.Clock
	budget   time.Duration
	reserve  time.Duration
	handOver bool
	log      *slog.Logger
	steps    *runner.Goroutines[stepCall]
}

// stepCall is one step for a goroutine of the runner's to run, with what
// it needs; not the runner, whose goroutines must not keep it reachable.
type stepCall struct {
	exec Executor
	ctx  context.Context
	job  engine.Job
	u    *engine.Unsaved
	done chan<- stepResult
}

// runStep runs c and sends its result.
func runStep(c stepCall) {
	var d stepResult
	if c.u != nil {
		d.res, d.err = c.exec.StepUnsaved(c.ctx, c.u)
	} else {
		d.res, d.err = c.exec.Step(c.ctx, c.job)
	}
	c.done <- d
}

// maxIdleGoroutines bounds the goroutines kept waiting for a step after
// running one. They end once their Runner is unreachable (New registers
// the cleanup): a Lambda function keeps its one runner, a test drops many.
const maxIdleGoroutines = 16

var _ engine.Runner = (*Runner)(nil)

// New returns a runner of exec's steps that hands to backlog what it
// cannot run.
func New(exec Executor, backlog Backlog, o Options) *Runner {
	r := &Runner{exec: exec, backlog: backlog, clock: clock.Or(o.Clock), budget: o.Budget, reserve: o.Reserve, handOver: o.HandOffInterrupts, log: o.Logger}
	// The runner's goroutines are kept apart from it, so that they do not
	// keep it reachable: once it is not, they end.
	done := make(chan struct{})
	steps := runner.NewGoroutines(maxIdleGoroutines, runStep, done)
	r.steps = &steps
	runtime.AddCleanup(r, func(done chan struct{}) { close(done) }, done)
	r.budget = positive.Or(r.budget, config.DefaultBlockingTimeout)
	r.reserve = positive.Or(r.reserve, DefaultReserve)
	r.log = cmp.Or(r.log, slog.New(slog.DiscardHandler))
	return r
}

// Start implements engine.Runner. A non-blocking job is deferred. A
// blocking job's steps run now, each until the end of the budget (counted
// on the clock) or of the request's deadline less the reserve (a Lambda's
// remaining time, which bounds the request through its context): a step
// still running then is stopped and handed over (see the package comment).
// A Continue whose delay does not fit is deferred, with what is left of its
// delay; so is a step the store failed. Start returns an error only when a
// job could not be handed over: the work was not scheduled.
func (r *Runner) Start(ctx context.Context, job engine.Job) error {
	if !job.Blocking {
		return r.deferJob(ctx, job)
	}
	return r.run(ctx, engine.Job{TaskID: job.TaskID, Message: job.Message, Reply: job.Reply, Trigger: job.Trigger, LeaseLater: true}, nil)
}

// StartUnsaved runs the steps of u's task, a blocking send's new task not
// stored yet, as Start runs a blocking job's: the first step stores it
// (the service's InlineRunner). When even the task as created cannot be
// stored, the error wraps store.ErrTooLarge.
func (r *Runner) StartUnsaved(ctx context.Context, u *engine.Unsaved) error {
	return r.run(ctx, u.Job(), u)
}

// run runs req's step and those that follow it (see Start); u, when
// set, is the task of the first, not stored yet.
func (r *Runner) run(ctx context.Context, req engine.Job, u *engine.Unsaved) error {
	runCtx := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, d.Add(-r.reserve))
		defer cancel()
	}
	end := r.clock.Now().Add(r.budget)
	for {
		left := end.Sub(r.clock.Now())
		if left <= 0 || runCtx.Err() != nil {
			return r.deferJob(ctx, jobOf(req))
		}
		res, err := r.step(runCtx, req, u, left)
		if errors.Is(err, engine.ErrStepStopped) {
			return r.handOverStep(ctx, req, u)
		}
		if err != nil && u != nil && errors.Is(err, store.ErrTooLarge) {
			// The new task itself is too large to store: nothing to defer,
			// the send refuses it.
			return err
		}
		if err != nil {
			r.log.ErrorContext(ctx, "task step failed; deferring it", "taskId", req.TaskID, "error", err)
			return r.deferJob(ctx, jobOf(req))
		}
		switch res.Next {
		case engine.NextContinue:
		case engine.NextAwait:
			if r.handOver {
				return r.deferJob(ctx, engine.Job{TaskID: req.TaskID, Resume: &engine.Resume{AwaitRequestID: res.RequestID, Version: res.Version}})
			}
			// Show the interrupt now; the client's reply starts the next
			// step in the request that carries it.
			if _, err := r.exec.Await(ctx, engine.AwaitRequest{TaskID: req.TaskID, RequestID: res.RequestID}); err != nil {
				return fmt.Errorf("inline runner: show the interrupt of task %s: %w", req.TaskID, err)
			}
			return nil
		default:
			return nil
		}
		req, u = engine.Job{TaskID: req.TaskID}, nil
		if end.Sub(r.clock.Now()) <= res.After {
			return r.deferJob(ctx, engine.Job{TaskID: req.TaskID, Resume: &engine.Resume{After: res.After, Version: res.Version}})
		}
		slept := r.clock.Now()
		if err := clock.Sleep(runCtx, r.clock, res.After); err != nil {
			rest := max(0, res.After-r.clock.Now().Sub(slept))
			return r.deferJob(ctx, engine.Job{TaskID: req.TaskID, Resume: &engine.Resume{After: rest, Version: res.Version}})
		}
	}
}

// stepResult is what a step returned.
type stepResult struct {
	res engine.StepResult
	err error
}

// step runs one step, for at most left or until ctx ends: then it stops
// the step (ending its context) and returns engine.ErrStepStopped, once
// the step returned or stopGrace passed. u, when set, is the task of the
// step, not stored yet.
func (r *Runner) step(ctx context.Context, req engine.Job, u *engine.Unsaved, left time.Duration) (engine.StepResult, error) {
	stepCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	done := make(chan stepResult, 1)
	r.steps.Go(stepCall{exec: r.exec, ctx: stepCtx, job: req, u: u, done: done})
	budget := time.NewTimer(left)
	defer budget.Stop()
	select {
	case d := <-done:
		return d.res, d.err
	case <-budget.C:
		stop(errBudgetSpent)
	case <-ctx.Done():
		stop(context.Cause(ctx))
	}
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case d := <-done:
		return d.res, d.err // its result, if it stored one before the stop
	case <-grace.C:
		return engine.StepResult{}, fmt.Errorf("%w: task %s: the agent still runs %s after its context ended; it stores nothing more",
			engine.ErrStepStopped, req.TaskID, stopGrace)
	}
}

// handOverStep hands a step the runner stopped to the backlog, storing its
// task first when the step had not (u, when set, is it).
func (r *Runner) handOverStep(ctx context.Context, req engine.Job, u *engine.Unsaved) error {
	if u != nil {
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deferTimeout)
		defer cancel()
		if err := r.exec.HandOver(hctx, u); err != nil {
			return fmt.Errorf("inline runner: %w", err)
		}
	}
	r.log.InfoContext(ctx, "the step outlived the request's budget; handing it over", "taskId", req.TaskID)
	return r.deferJob(ctx, jobOf(req))
}

// jobOf is the job that runs req's step again elsewhere.
func jobOf(req engine.Job) engine.Job {
	return engine.Job{TaskID: req.TaskID, Message: req.Message, Reply: req.Reply, Trigger: req.Trigger}
}

// deferJob hands job to the backlog, with time of its own when the
// request's is up.
func (r *Runner) deferJob(ctx context.Context, job engine.Job) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deferTimeout)
	defer cancel()
	err := r.backlog.Defer(ctx, job)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the task is gone: nothing to run
	}
	if err != nil {
		return fmt.Errorf("inline runner: hand over task %s: %w", job.TaskID, err)
	}
	r.log.InfoContext(ctx, "task handed over", "taskId", job.TaskID)
	return nil
}

// Cancel implements engine.Runner. The cancel is already stored; a step
// running in another request notices it at its next write (the store
// refuses writes to a terminal task), so there is nothing to stop here.
func (r *Runner) Cancel(context.Context, engine.CancelRequest) error { return nil }
