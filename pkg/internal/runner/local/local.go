// Package local runs task steps in goroutines of the current process, for the
// local server. It follows the step protocol of the Step Functions state
// machine: run a step; on continue wait and step again; on an interrupt show
// it (Await) and park until the client's reply starts the task again, or fail
// the task when the interrupt expires; on a terminal state stop.
package local

import (
	"cmp"
	"context"
	"log/slog"
	"sync"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner"
)

// Executor runs the actions of the step protocol; *engine.Executor is one.
type Executor interface {
	Step(ctx context.Context, req engine.Job) (engine.StepResult, error)
	Await(ctx context.Context, req engine.AwaitRequest) (engine.StepResult, error)
	Expire(ctx context.Context, taskID, requestID string) (engine.StepResult, error)
}

// Runner is a engine.Runner on goroutines.
type Runner struct {
	exec  Executor
	clock clock.Clock
	log   *slog.Logger

	base context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu      sync.Mutex
	running map[string]*execution

	// steps runs each task's steps on a goroutine that ran another's, if
	// one waits for work.
	steps runner.Goroutines[work]
}

type execution struct{ cancel context.CancelFunc }

// work is a task's steps for a goroutine: the job, its execution and its
// context, and the runner.
type work struct {
	r    *Runner
	ctx  context.Context
	job  engine.Job
	exec *execution
}

// maxIdleWorkers bounds the goroutines kept waiting for a task's steps
// after running another's.
const maxIdleWorkers = 16

var _ engine.Runner = (*Runner)(nil)

// Options configure a Runner.
type Options struct {
	// Clock times the waits between steps and the interrupts' expiry; the
	// default is the system clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// New returns a runner that drives exec.
func New(exec Executor, opts Options) *Runner {
	base, stop := context.WithCancel(context.Background())
	r := &Runner{exec: exec, clock: clock.Or(opts.Clock), log: opts.Logger, base: base, stop: stop, running: map[string]*execution{}}
	r.steps = runner.NewGoroutines(maxIdleWorkers, execute, base.Done())
	r.log = cmp.Or(r.log, slog.New(slog.DiscardHandler))
	return r
}

// Start implements engine.Runner: the task's steps run in a goroutine of
// their own, one that waits for work if there is one, else a new one. An
// execution parked on the task's interrupt (the job is its reply) ends.
func (r *Runner) Start(_ context.Context, job engine.Job) error {
	ctx, cancel := context.WithCancel(r.base)
	exec := &execution{cancel: cancel}
	r.mu.Lock()
	if parked := r.running[job.TaskID]; parked != nil {
		parked.cancel()
	}
	r.running[job.TaskID] = exec
	r.mu.Unlock()
	r.wg.Add(1)
	r.steps.Go(work{r: r, ctx: ctx, job: engine.Job{TaskID: job.TaskID, Message: job.Message, Reply: job.Reply, Trigger: job.Trigger}, exec: exec})
	return nil
}

// execute runs a task's steps until they end (see run), then forgets the
// execution.
func execute(w work) {
	defer w.r.wg.Done()
	defer w.r.forget(w.job.TaskID, w.exec)
	w.r.run(w.ctx, w.job)
}

func (r *Runner) run(ctx context.Context, req engine.Job) {
	for {
		res, err := r.exec.Step(ctx, req)
		if err != nil && ctx.Err() != nil {
			// Canceled (the task was, or the server stops): not a failure.
			r.log.InfoContext(ctx, "task step stopped", "taskId", req.TaskID, "reason", context.Cause(ctx))
			return
		}
		if err != nil {
			r.log.ErrorContext(ctx, "task step failed", "taskId", req.TaskID, "error", err)
			return
		}
		switch res.Next {
		case engine.NextContinue:
			if clock.Sleep(ctx, r.clock, res.After) != nil {
				return
			}
			req = engine.Job{TaskID: req.TaskID}
		case engine.NextAwait:
			r.await(ctx, req.TaskID, res.RequestID)
			return
		default:
			return
		}
	}
}

// await shows the task's interrupt and parks until a reply starts a new
// execution (canceling this one) or the interrupt expires by the clock.
func (r *Runner) await(ctx context.Context, taskID, requestID string) {
	res, err := r.exec.Await(ctx, engine.AwaitRequest{TaskID: taskID, RequestID: requestID})
	if err != nil {
		r.log.ErrorContext(ctx, "could not show the task's interrupt", "taskId", taskID, "requestId", requestID, "error", err)
		return
	}
	if res.Next != engine.NextAwait || clock.SleepUntil(ctx, r.clock, res.ActiveUntil) != nil {
		return
	}
	if _, err := r.exec.Expire(r.base, taskID, requestID); err != nil {
		r.log.ErrorContext(ctx, "could not expire the task's interrupt", "taskId", taskID, "requestId", requestID, "error", err)
	}
}

func (r *Runner) forget(taskID string, exec *execution) {
	exec.cancel()
	r.mu.Lock()
	if r.running[taskID] == exec {
		delete(r.running, taskID)
	}
	r.mu.Unlock()
}

// Cancel implements engine.Runner: it cancels the running step's context
// and any pending wait.
func (r *Runner) Cancel(_ context.Context, req engine.CancelRequest) error {
	r.mu.Lock()
	exec := r.running[req.TaskID]
	r.mu.Unlock()
	if exec != nil {
		exec.cancel()
	}
	return nil
}

// Close stops every execution and waits for them; the goroutines waiting
// for work end.
func (r *Runner) Close() {
	r.stop()
	r.wg.Wait()
}
