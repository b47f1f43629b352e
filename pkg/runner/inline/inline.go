// Package inline runs a task's steps inside the request that started it:
// the runner of the Lambda functions until the Step Functions runner takes
// over.
//
// A blocking send runs the agent's steps in the request, following Continue
// outcomes and their delays while its budget allows, and shows an interrupt a
// step asks for (Await) before it returns. A non-blocking send
// cannot run anything: a Lambda is frozen as soon as it answers. So the
// runner records on the task that it awaits execution (Backlog.Defer) and
// returns; the task stays submitted. The same happens to the rest of a
// blocking send's work that does not fit its budget, and to a step that
// failed because the store did. The Step Functions issue hands such work to
// state machine executions instead (StartExecution at send time), and can
// sweep the tasks still marked as awaiting.
package inline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Executor runs the actions of the step protocol; *service.Executor is one.
type Executor interface {
	Step(ctx context.Context, req service.StepRequest) (service.StepResult, error)
	Await(ctx context.Context, req service.AwaitRequest) (service.StepResult, error)
}

// Backlog keeps the jobs a request could not run itself.
type Backlog interface {
	// Defer records that job awaits execution, without changing the task's
	// version. It returns service.ErrNotFound for a task that does not
	// exist or expired, and nil, recording nothing, for a terminal task.
	Defer(ctx context.Context, job service.Job) error
}

// Defaults of Options.
const (
	DefaultBudget  = 20 * time.Second
	DefaultReserve = 2 * time.Second
	// deferTimeout bounds recording a job once the request's own time
	// is up.
	deferTimeout = 5 * time.Second
)

// Options configure a Runner.
type Options struct {
	// Budget bounds the time a blocking send spends running steps.
	Budget time.Duration
	// Reserve is kept from the request's deadline (a Lambda's remaining
	// time) to record what is left and answer.
	Reserve time.Duration
	// HandOffInterrupts passes an interrupt a step asks for to the backlog
	// (Step Functions shows it once its execution holds the task token)
	// instead of showing it in the request.
	HandOffInterrupts bool
	// Clock counts the budget and times the waits between steps; the
	// default is the system clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// Runner is a service.Runner that runs steps in the caller's request.
type Runner struct {
	exec     Executor
	backlog  Backlog
	clock    clock.Clock
	budget   time.Duration
	reserve  time.Duration
	handOver bool
	log      *slog.Logger
}

var _ service.InlineRunner = (*Runner)(nil)

// StartsInline implements service.InlineRunner: a blocking job's steps run
// in the request, so its task may be stored by its first step.
func (r *Runner) StartsInline() bool { return true }

// New returns a runner of exec's steps that defers to backlog what it
// cannot run.
func New(exec Executor, backlog Backlog, o Options) *Runner {
	r := &Runner{exec: exec, backlog: backlog, clock: clock.Or(o.Clock), budget: o.Budget, reserve: o.Reserve, handOver: o.HandOffInterrupts, log: o.Logger}
	r.budget = positive.Or(r.budget, DefaultBudget)
	r.reserve = positive.Or(r.reserve, DefaultReserve)
	r.log = logger.Or(r.log)
	return r
}

// Start implements service.Runner. A non-blocking job is deferred. A
// blocking job's steps run now, each bounded by the end of the budget
// (counted on the clock) and by the request's deadline less the reserve (a
// Lambda's remaining time, which bounds the request through its context);
// a step still running then sees its context end and the agent's error
// fails the task, as a worker timeout would. A Continue whose delay does not
// fit is deferred, with what is left of its delay; so is a step the store
// failed. Start returns an error only when a job could not be deferred: the
// work was not scheduled.
func (r *Runner) Start(ctx context.Context, job service.Job) error {
	if !job.Blocking {
		return r.deferJob(ctx, job)
	}
	runCtx := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithDeadline(ctx, d.Add(-r.reserve))
		defer cancel()
	}
	end := r.clock.Now().Add(r.budget)
	req := service.StepRequest{TaskID: job.TaskID, Message: job.Message, Reply: job.Reply, Trigger: job.Trigger, Blocking: true, Created: job.Created, Unsaved: job.Unsaved}
	for {
		left := end.Sub(r.clock.Now())
		if left <= 0 || runCtx.Err() != nil {
			return r.deferJob(ctx, jobOf(req, job.Blocking))
		}
		stepCtx, cancel := context.WithTimeout(runCtx, left)
		res, err := r.exec.Step(stepCtx, req)
		cancel()
		if err != nil {
			r.log.ErrorContext(ctx, "task step failed; deferring it", "taskId", job.TaskID, "error", err)
			return r.deferJob(ctx, jobOf(req, job.Blocking))
		}
		switch res.Next {
		case service.NextContinue:
		case service.NextAwait:
			if r.handOver {
				return r.deferJob(ctx, service.Job{TaskID: job.TaskID, Resume: &service.Resume{AwaitRequestID: res.RequestID}})
			}
			// Show the interrupt now; the client's reply starts the next
			// step in the request that carries it.
			if _, err := r.exec.Await(ctx, service.AwaitRequest{TaskID: job.TaskID, RequestID: res.RequestID}); err != nil {
				return fmt.Errorf("inline runner: show the interrupt of task %s: %w", job.TaskID, err)
			}
			return nil
		default:
			return nil
		}
		req = service.StepRequest{TaskID: job.TaskID}
		if end.Sub(r.clock.Now()) <= res.After {
			return r.deferJob(ctx, service.Job{TaskID: job.TaskID, Blocking: job.Blocking, Resume: &service.Resume{After: res.After}})
		}
		slept := r.clock.Now()
		if err := clock.Sleep(runCtx, r.clock, res.After); err != nil {
			rest := max(0, res.After-r.clock.Now().Sub(slept))
			return r.deferJob(ctx, service.Job{TaskID: job.TaskID, Blocking: job.Blocking, Resume: &service.Resume{After: rest}})
		}
	}
}

func jobOf(req service.StepRequest, blocking bool) service.Job {
	return service.Job{TaskID: req.TaskID, Message: req.Message, Reply: req.Reply, Blocking: blocking, Trigger: req.Trigger}
}

// deferJob records job, with time of its own when the request's is up.
func (r *Runner) deferJob(ctx context.Context, job service.Job) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deferTimeout)
	defer cancel()
	err := r.backlog.Defer(ctx, job)
	if errors.Is(err, service.ErrNotFound) {
		return nil // the task is gone: nothing to run
	}
	if err != nil {
		return fmt.Errorf("inline runner: record that task %s awaits execution: %w", job.TaskID, err)
	}
	r.log.InfoContext(ctx, "task awaits execution", "taskId", job.TaskID)
	return nil
}

// Cancel implements service.Runner. The cancel is already stored; a step
// running in another request notices it at its next write (the store
// refuses writes to a terminal task), so there is nothing to stop here.
func (r *Runner) Cancel(context.Context, service.CancelRequest) error { return nil }
