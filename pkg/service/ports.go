package service

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Job asks a runner to run a task's next step.
type Job struct {
	TaskID string
	// Message is the user message that triggered the job.
	Message *a2a.Message
	// Reply is set when the job resumes an interrupt.
	Reply *agent.Reply
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
	// (see LeaseStore.TakeOver): it runs again the step that Trigger
	// started, which the task's runner left unfinished.
	Takeover int
	Trigger  store.Trigger
	// Created is the task as the send that created it stored it (version
	// 1, its first message, no artifacts): a runner that runs the first
	// step in that same request passes it on (StepRequest.Created), so the
	// step need not read it back. Nil otherwise; never stored.
	Created *store.TaskRecord
	// Unsaved, for a blocking send to an InlineRunner, is the new task the
	// send did not store: the first step stores it with its first write
	// (StepRequest.Unsaved), once, finished, when that write finishes the
	// task, and then leaves the finished task here for the send to answer
	// with. Nil otherwise; never stored.
	Unsaved *store.NewTask
}

// InlineRunner is a Runner that runs a blocking send's first step in the
// send's own request, and so may be given a job whose task is not stored
// yet (Job.Unsaved).
type InlineRunner interface {
	Runner
	// StartsInline reports whether it does.
	StartsInline() bool
}

// recordOf is the task as a finished NewTask holds it, with at most
// historyLength messages (negative: all).
func recordOf(nt *store.NewTask, historyLength int) *store.TaskRecord {
	rec := &store.TaskRecord{Task: nt.Task, Owner: nt.Owner, Version: 1, RequestMetadata: nt.RequestMetadata, SessionID: nt.SessionID}
	return withHistory(rec, historyLength)
}

// withHistory returns a copy of rec with at most historyLength of its
// messages, the latest (negative: all).
func withHistory(rec *store.TaskRecord, historyLength int) *store.TaskRecord {
	c := *rec
	t := &c.Task
	if historyLength >= 0 && len(t.History) > historyLength {
		t.History = t.History[len(t.History)-historyLength:]
	}
	t.History = slices.Clone(t.History)
	t.Artifacts = slices.Clone(t.Artifacts)
	return &c
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
	// (TaskRecord.ExecutionARN), or empty.
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

// Files keeps the content parts too large for a task item in an object
// store, under a2a-file: URIs that reads show as presigned URLs (pkg/files
// implements it). The service and the executor pass every message and
// artifact through it before the task store, so that every store holds the
// same small items; without it (nil), parts stay inline and a store refuses
// what it cannot hold.
type Files interface {
	// Accept readies a client's parts (at path in the request): a part
	// naming one of the caller's files is checked (an *a2a.Error names
	// what is wrong), and a part above the inline limit is stored. It
	// returns the parts and the keys of the objects it stored, for Discard
	// when the parts are not stored.
	Accept(ctx context.Context, owner, path string, parts []a2a.Part) ([]a2a.Part, []string, error)
	// CheckOwned reports an agent's part that names a file of another
	// caller than owner, or a malformed a2a-file: URI.
	CheckOwned(owner string, parts []a2a.Part) error
	// Offload readies an agent's parts for owner's task as Accept does.
	Offload(ctx context.Context, owner string, parts []a2a.Part) ([]a2a.Part, []string, error)
	// Discard deletes the objects of keys, whose parts were not stored.
	Discard(ctx context.Context, keys []string)
	// PresignTask returns t (not changed) with its kept files named by
	// presigned URLs.
	PresignTask(ctx context.Context, t *a2a.Task) *a2a.Task
	// CreateUpload implements files/createUpload.
	CreateUpload(ctx context.Context, owner string, p a2a.FileUploadParams) (*a2a.FileUploadResult, error)
	// ForOwner is the agent.Files of a step of owner's task.
	ForOwner(owner string) agent.Files
}

// refused reports whether err is a store's refusal to write: nothing was
// written (a condition, a duplicate, a missing task, a size limit, a
// stopped step). Any other error may come after the write was made.
func refused(err error) bool {
	var (
		ce  *store.ConflictError
		dup *store.DuplicateError
	)
	return errors.As(err, &ce) || errors.As(err, &dup) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrTooLarge) || errors.Is(err, ErrStepStopped)
}
