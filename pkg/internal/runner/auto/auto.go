// Package auto routes the jobs of the Lambda functions in the auto and
// stepfunctions execution modes to where each runs at the least cost:
//
//   - a blocking send's steps (auto mode) run in the request, within its
//     budget (the inline runner; the service hands a new task's first
//     step to it directly, as its InlineRunner);
//   - a step to run now that no request runs (a non-blocking send, a
//     blocking one in stepfunctions mode or whose step outlived its
//     request, a reply no execution waits for, a takeover) goes to the
//     asynchronous path: one invocation of the worker function;
//   - a reply to an interrupt resumes the execution that waits on its token;
//   - what waits (the delay before a task's next step, an interrupt to show)
//     goes to a state machine execution, which waits at no cost.
//
// So a task done in its first step never starts an execution: state
// transitions are paid for only by tasks that go on past a step.
package auto

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
)

// Runner routes jobs between the inline runner, the asynchronous path and
// the state machine.
type Runner struct {
	inline  engine.Runner
	async   engine.Runner
	machine engine.Runner
}

var _ engine.Runner = (*Runner)(nil)

// New returns a router of jobs to async (the asynchronous path) and
// machine (the Step Functions runner). Without RunInline it runs no step
// in a request (the stepfunctions execution mode). A nil async refuses the
// steps to run now: a function that starts none (tasks) needs no worker.
func New(async, machine engine.Runner) *Runner { return &Runner{async: async, machine: machine} }

// RunInline makes r run blocking sends' steps with in, which must hand
// what it cannot run to r (Defer).
func (r *Runner) RunInline(in engine.Runner) { r.inline = in }

// Start implements engine.Runner.
func (r *Runner) Start(ctx context.Context, job engine.Job) error {
	if job.Reply != nil && job.TaskToken != "" {
		err := r.machine.Start(ctx, job)
		if !errors.Is(err, stepfunctions.ErrNotWaiting) {
			return err
		}
		// The execution that waited for the reply is gone (it timed out or
		// was stopped): the reply's step runs on its own.
		job.TaskToken = ""
	}
	if job.Blocking && job.Resume == nil && r.inline != nil {
		return r.inline.Start(ctx, job)
	}
	return r.Defer(ctx, job)
}

// Defer takes the work a request could not run itself (the inline runner's
// backlog): a wait or an interrupt goes to an execution, a step to run now
// to the asynchronous path.
func (r *Runner) Defer(ctx context.Context, job engine.Job) error {
	if job.Resume != nil {
		return r.machine.Start(ctx, job)
	}
	if r.async == nil {
		return fmt.Errorf("auto: task %s has a step to run and no worker function to run it (A2A_WORKER_FUNCTION)", job.TaskID)
	}
	return r.async.Start(ctx, job)
}

// Cancel implements engine.Runner: the task's execution is stopped (or
// its wait failed); a step running in a request or in the worker stops at
// its next write.
func (r *Runner) Cancel(ctx context.Context, req engine.CancelRequest) error {
	return r.machine.Cancel(ctx, req)
}
