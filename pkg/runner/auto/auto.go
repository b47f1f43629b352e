// Package auto is the execution mode "auto" of the Lambda functions: short
// work runs in the request, the rest on Step Functions.
//
// A blocking send runs its task's first steps inline, within the request's
// budget; a task that completes there never touches Step Functions. What
// continues beyond the budget, or waits for its client, is handed to a state
// machine execution (which binds the interrupt's task token before the
// interrupt is shown). A non-blocking send starts an execution at once. A
// reply to an interrupt resumes the execution waiting on its token.
package auto

import (
	"context"

	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Runner routes jobs between an inline runner and a Step Functions runner.
type Runner struct {
	inline  service.Runner
	machine service.Runner
}

var _ service.InlineRunner = (*Runner)(nil)

// StartsInline implements service.InlineRunner: new tasks go to the inline
// runner, which may run them in the request.
func (r *Runner) StartsInline() bool {
	in, ok := r.inline.(service.InlineRunner)
	return ok && in.StartsInline()
}

// New returns a runner that runs jobs with inline, except replies whose
// execution waits on a token, which machine resumes. inline must hand the
// work it cannot run to machine (its backlog).
func New(inline, machine service.Runner) *Runner { return &Runner{inline: inline, machine: machine} }

// Start implements service.Runner.
func (r *Runner) Start(ctx context.Context, job service.Job) error {
	if job.TaskToken != "" {
		return r.machine.Start(ctx, job)
	}
	return r.inline.Start(ctx, job)
}

// Cancel implements service.Runner: executions are stopped; inline work
// stops by itself at its next write.
func (r *Runner) Cancel(ctx context.Context, req service.CancelRequest) error {
	return r.machine.Cancel(ctx, req)
}
