// Package engine runs the step protocol: an Executor runs one agent step of
// a task at a time against the task store, holding the task's lease while
// it runs, shows the interrupts steps ask for and fails what cannot go on;
// a sweep takes over the tasks whose runner died. The runners
// (pkg/internal/runner/...) and the worker function (pkg/internal/worker) schedule its steps,
// each its own way, behind the Runner port; they all drive the same
// Executor, which is what makes their observable task histories identical.
//
// A Job is the one description of "run the next step of a task", from the
// request that asks for it (pkg/internal/service) through a runner to the
// executor. The state machine and the worker function carry it by ids
// (see stepfunctions.Input and worker.Event, its wire forms).
package engine

import (
	"context"
	"errors"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Job asks for the next step of a task: what a runner is given to
// schedule (Runner.Start), and what the executor runs (Executor.Step).
type Job struct {
	TaskID string
	// Message is the user message that triggered the job; Reply is set
	// when the job resumes an interrupt. Both are nil for a step that
	// follows a Continue, and for one a runner carries by id (Trigger).
	Message *a2a.Message
	Reply   *agent.Reply
	// Blocking is true when the client waits for the task to settle; a
	// runner may then run the first step in the caller's goroutine.
	Blocking bool
	// TaskToken is the callback token bound to the interrupt a Reply
	// answers (Step Functions runners resume the execution with it).
	TaskToken string
	// Resume, for work handed over in the middle of the step protocol (an
	// inline runner passing a task to Step Functions), says where to pick
	// up; nil means run the next step now.
	Resume *Resume
	// Takeover, when positive, is the number of the takeover this job is
	// (see store.LeaseStore.TakeOver): it runs again the step that Trigger
	// started, which the task's runner left unfinished.
	Takeover int
	// Trigger, when Message is nil, says how the step recovers its trigger
	// from the stored task: the last user message (store.TriggerMessage,
	// store.TriggerReply) and the reply recorded in the status
	// (store.TriggerReply). Runners that cannot carry messages (a state
	// machine, whose state holds ids only) use it.
	Trigger store.Trigger
	// LeaseLater lets the first step of a new task write nothing before
	// its first result: it takes the task's lease with that write (see
	// Executor.acquireLater), so that a step that ends at once writes the
	// task once. The runners of a task's first step ask for it: the inline
	// runner of a blocking send, the worker's run on the asynchronous path.
	LeaseLater bool
	// ExecutionARN is the Step Functions execution the step runs in, or
	// "": the step's first write records it on the task when it is not
	// recorded yet (store.TaskRecord.ExecutionARN), so that a cancel
	// stops it.
	ExecutionARN string
}

// StepTrigger is what started the job's step: a reply, a message, or the
// job's Trigger; "" when the job says none.
func (j *Job) StepTrigger() store.Trigger {
	switch {
	case j.Reply != nil:
		return store.TriggerReply
	case j.Message != nil:
		return store.TriggerMessage
	}
	return j.Trigger
}

// Resume is where handed-over work picks up.
type Resume struct {
	// After is the delay before the next step (after a Continue outcome).
	After time.Duration
	// AwaitRequestID, when set, is the interrupt the last step asked for:
	// show it (Executor.Await) and wait for the reply.
	AwaitRequestID string
	// Version is the task's version after the step that handed the work
	// over (StepResult.Version): with the task id it names the hand-over,
	// which a retried step repeats exactly.
	Version int64
}

// CancelRequest tells a runner that a task was canceled.
type CancelRequest struct {
	TaskID string
	// TaskToken is the callback token of the interrupt the task waited on
	// when it was canceled, or empty.
	TaskToken string
	// ExecutionARN is the execution that last ran a step of the task
	// (store.TaskRecord.ExecutionARN), or empty.
	ExecutionARN string
}

// Runner executes tasks' steps.
type Runner interface {
	// Start schedules the next step of a task whose latest user message is
	// stored (a new task, or the reply to an interrupt). It returns once the
	// work is handed over (or done, for inline runners); a returned error
	// means the work was not scheduled.
	Start(ctx context.Context, job Job) error
	// Cancel tells the runner that the task was canceled so it can stop
	// the work. The cancel is already stored; this is best effort.
	Cancel(ctx context.Context, req CancelRequest) error
}

// Unsaved is a new task whose first step runs in the request that creates
// it (a blocking send on an inline runner) and that is not stored yet: the
// step's first write stores it, so that a step that finishes at once
// writes the task once (see Executor.StepUnsaved).
type Unsaved struct {
	// Task is the task to create: submitted, with exactly its first
	// message. After a step that stored it finished in that first write,
	// it is the task as stored: its terminal status, the status message
	// after the first message, and the step's complete artifacts.
	Task store.NewTask
	// Refused is the store's refusal of that write when a task with the
	// same id existed (a send of the same message stored it first): the
	// step stored nothing.
	Refused *store.DuplicateError
}

// Job is the job of u's first step.
func (u *Unsaved) Job() Job {
	return Job{TaskID: u.Task.Task.ID, Message: &u.Task.Task.History[0], LeaseLater: true}
}

// Finished reports whether u's step stored the task finished.
func (u *Unsaved) Finished() bool { return u.Refused == nil && u.Task.Task.Status.State.Terminal() }

// Next says what a runner does after a step.
type Next string

// What follows a step.
const (
	// NextDone: the task is terminal (or gone); nothing follows.
	NextDone Next = "done"
	// NextContinue: run another step after StepResult.After.
	NextContinue Next = "continue"
	// NextAwait: the task waits for its client (input-required or
	// auth-required); a reply starts the next step.
	NextAwait Next = "await"
)

// Trigger is what starts the step that follows n: a continue, a reply;
// "" when nothing follows.
func (n Next) Trigger() store.Trigger {
	switch n {
	case NextContinue:
		return store.TriggerContinue
	case NextAwait:
		return store.TriggerReply
	}
	return ""
}

// ErrStepStopped is what Step returns when its context ended before the
// step's result was stored: the runner stopped the step (its request's
// budget was spent, its process stops). Nothing of the step is stored
// after that, whatever the agent does; the task keeps its lease, so that
// the runner it is handed to, or a sweep, runs the step again.
var ErrStepStopped = errors.New("step stopped")

// StepResult says how a step (or an Await, Expire or Fail action) ended.
type StepResult struct {
	Next Next
	// After is the delay before the next step (NextContinue).
	After time.Duration
	// State is the task's state after the action; after a step that asked
	// for an interrupt it is the state the interrupt leads to.
	State a2a.TaskState
	// RequestID and InterruptType identify the interrupt (NextAwait).
	RequestID     string
	InterruptType string
	// ActiveUntil is when the interrupt stops accepting replies (set by
	// Await).
	ActiveUntil time.Time
	// Version is the task's version after the step's last write
	// (NextContinue, NextAwait): with the task id it names the hand-off
	// that follows, which a retried step repeats exactly.
	Version int64
}

// AwaitRequest asks the executor to show a step's pending interrupt.
type AwaitRequest struct {
	TaskID    string
	RequestID string
	// TaskToken is the Step Functions token the reply resumes; empty for
	// other runners.
	TaskToken string
}

// Store is what the executor keeps of tasks (store.Store is all of it):
// the tasks, the messages sent to them while they work, the interrupts
// their steps ask for, and the leases of their steps.
type Store interface {
	store.TaskStore
	store.InboxStore
	store.LeaseStore
	// GetInterrupt and ActivateInterrupt are store.InterruptStore's: Await
	// shows a step's interrupt with its binding.
	GetInterrupt(ctx context.Context, requestID string) (*store.InterruptBinding, error)
	ActivateInterrupt(ctx context.Context, b store.InterruptBinding, timestamp string) (int64, error)
}

// Files keeps the content parts of an agent's output too large for a task
// item in an object store, and gives the agent the content of file parts
// (pkg/internal/files implements it). Without it (nil), parts stay inline and the
// store refuses what it cannot hold.
type Files interface {
	// CheckOwned reports an agent's part that names a file of another
	// caller than owner, or a malformed a2a-file: URI.
	CheckOwned(owner string, parts []a2a.Part) error
	// Offload readies an agent's parts for owner's task: a part above the
	// inline limit is stored. It returns the parts and the keys of the
	// objects it stored, for Discard when the parts are not stored.
	Offload(ctx context.Context, owner string, parts []a2a.Part) ([]a2a.Part, []string, error)
	// Discard deletes the objects of keys, whose parts were not stored.
	Discard(ctx context.Context, keys []string)
	// ForOwner is the agent.Files of a step of owner's task.
	ForOwner(owner string) agent.Files
}
