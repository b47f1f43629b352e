// Package async runs a task's step on the asynchronous path: an
// asynchronous invocation of the worker function (Lambda's Invoke with the
// Event type), which runs the step and hands what follows it, if anything,
// to a state machine execution (see pkg/internal/worker, action run).
//
// It is where a task's first step goes when no request runs it (a
// non-blocking send, a blocking send in stepfunctions mode or whose step
// outlived its request), and where a reply, or a takeover, goes when no
// execution waits for it. A task done in its first step so costs one
// worker invocation, and never a state transition.
//
// Every job it gets comes with a lease on its task (a new task's, a
// reply's, a takeover's): when the invocation fails, or the worker dies in
// the step, the lease lapses and a sweep takes the task over (the step
// runs again, steps being at least once). Lambda keeps an invocation it
// cannot run yet (the worker throttled) for the worker's maximum event age,
// then hands it to the worker's on-failure destination (template.yaml).
package async

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
)

// Invoker queues an invocation of a function; *lambdainvoke.Client is one.
type Invoker interface {
	InvokeAsync(ctx context.Context, function string, payload []byte) error
}

// Runner is a engine.Runner that hands each job's step to the worker
// function.
type Runner struct {
	invoker  Invoker
	function string
	log      *slog.Logger
}

var _ engine.Runner = (*Runner)(nil)

// New returns a runner invoking function (the worker's name or ARN).
func New(invoker Invoker, function string, log *slog.Logger) (*Runner, error) {
	if invoker == nil {
		return nil, fmt.Errorf("async: an invoker is required")
	}
	if function == "" {
		return nil, fmt.Errorf("async: the worker function is required (A2A_WORKER_FUNCTION)")
	}
	return &Runner{invoker: invoker, function: function, log: cmp.Or(log, slog.New(slog.DiscardHandler))}, nil
}

// Start implements engine.Runner: it queues the worker's run of the job's
// step, which the worker finds from the stored task (the job's trigger).
// An invocation Lambda refuses is logged and not an error: the task's lease
// covers it (see the package comment), so the work is delayed, not lost.
func (r *Runner) Start(ctx context.Context, job engine.Job) error {
	ev := worker.RunEvent(&job)
	payload, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("async: encode the run of task %s: %w", job.TaskID, err)
	}
	if err := r.invoker.InvokeAsync(ctx, r.function, payload); err != nil {
		r.log.ErrorContext(ctx, "could not hand the task's step to the worker; a sweep takes the task over when its lease lapses",
			"taskId", job.TaskID, "trigger", ev.Trigger, "error", err)
	}
	return nil
}

// Cancel implements engine.Runner. A step running in the worker stops at
// its next write, which the store refuses for a canceled task; a run not
// started yet finds the task canceled.
func (r *Runner) Cancel(context.Context, engine.CancelRequest) error { return nil }
