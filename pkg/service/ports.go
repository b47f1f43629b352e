package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// TaskRecord is a stored task with what the host keeps beside the protocol
// object.
type TaskRecord struct {
	// Task is the protocol object. Its History and Artifacts are filled as
	// the read asked for (see GetOptions).
	Task a2a.Task
	// Owner is the caller identity that created the task.
	Owner string
	// Version increases by one with every successful update. Together with
	// the task id it names an event (push notifications use it).
	Version int64
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
	// Checkpoint is the agent state returned with the last Continue outcome.
	Checkpoint json.RawMessage
	// RequestMetadata is params.metadata of the last message/send that
	// started or resumed the task; the agent sees it in StepInput.Metadata.
	RequestMetadata a2a.Metadata
	// Pending is the interrupt the last step asked for, not yet shown to the
	// client (Executor.Await shows it). Nil otherwise.
	Pending *PendingInterrupt
	// Feedback is the client's rating of the finished task, or nil.
	Feedback *Feedback
	// SessionID is the agent session the task is bound to (NewTask's). The
	// service shows it as metadata.shared.session.id; the stores keep it
	// as a plain value, not in the task's metadata.
	SessionID string
	// Inbox is how many messages wait in the task's inbox (see
	// InboxStore): when it is zero, TakeInbox has nothing to give.
	Inbox int
	// Lease is the task's lease, zero when it holds none (see Lease);
	// Takeovers counts the times a sweep took the task over.
	Lease     Lease
	Takeovers int
	// ExecutionARN is the Step Functions execution that last ran a step of
	// the task (Update.ExecutionARN), or "": a cancel stops it.
	ExecutionARN string
	// Fingerprint is the fingerprint of the send that created the task
	// (NewTask.Fingerprint), or "".
	Fingerprint string
}

// Feedback is a client's rating of a finished task (tasks/feedback).
type Feedback struct {
	Rating    int       `json:"rating"`
	Comment   string    `json:"comment,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// PendingInterrupt is an interrupt a step asked for. The task stays working
// until the interrupt is activated (TaskStore.ActivateInterrupt), which shows
// it and creates its binding in one step, so that a client never sees an
// interrupt that cannot be answered yet.
type PendingInterrupt struct {
	RequestID string         `json:"requestId"`
	Type      string         `json:"type"`
	State     a2a.TaskState  `json:"state"`
	Message   *a2a.Message   `json:"message"`
	Details   map[string]any `json:"details,omitempty"`
}

// InterruptBinding ties an interrupt's request id to its task, owner and
// (under Step Functions) the callback token of the waiting execution.
type InterruptBinding struct {
	RequestID string
	TaskID    string
	ContextID string
	Owner     string
	// Type is question, permission or auth.
	Type    string
	Details map[string]any
	// TaskToken is the Step Functions task token to resume the execution
	// with; empty for runners that need none.
	TaskToken string
	CreatedAt time.Time
	// ActiveUntil is when replies stop being accepted.
	ActiveUntil time.Time
	// ExpiresAt ends the tombstone window: until then a late reply is told
	// the interrupt expired; after it the binding is gone (not found).
	ExpiresAt time.Time
	// Resolved is set once a reply was accepted.
	Resolved bool
}

// NewTask is a task to create.
type NewTask struct {
	// Task holds the id, context id, submitted status and, in History,
	// exactly the first user message. A task whose first step finished
	// before it was stored (Job.Unsaved) holds its terminal status instead,
	// the status message after the first message in History, and the
	// step's complete Artifacts.
	Task  a2a.Task
	Owner string
	// RequestMetadata is stored with the task (see TaskRecord).
	RequestMetadata a2a.Metadata
	// PushConfigs are stored with the task, in the same atomic step (the
	// inline configuration.pushNotificationConfig of message/send).
	PushConfigs []PushConfig
	// SessionID is the agent session to bind to the task's context when
	// the context has none yet (see ContextStore).
	SessionID string
	// BindingKnown says that the caller knows the session bound to the
	// task's context: none (a new context) or SessionID (read from the
	// context). A store then need not look it up.
	BindingKnown bool
	// Lease, when held (see Lease.Held), is the task's first lease: the
	// time a runner has to start it.
	Lease Lease
	// Fingerprint is the fingerprint of the send that creates the task
	// (see MessageFingerprint): a later send of its first message's id is
	// a retry when it has the same, another message when not. The store
	// keeps it and reports it in a *DuplicateError.
	Fingerprint string
	// NoRecord says that the task's first message is not deduplicated:
	// the store writes no idempotency record for it (idempotency is off,
	// or the message id is used again past its window), and the task's id
	// is not TaskIDFor's.
	NoRecord bool
	// Refused, for a task a step was to store (Job.Unsaved), is the
	// store's refusal when a task with its id existed: the step stored
	// nothing. Never stored.
	Refused *DuplicateError
}

// ArtifactIDs are the ids of the artifacts of a task created finished,
// each once, in order: they are complete (see Update.CompletedArtifacts).
func (nt *NewTask) ArtifactIDs() []string {
	u := Update{Artifacts: nt.Task.Artifacts, ArtifactLastChunk: true}
	return u.CompletedArtifacts()
}

// Check reports what makes nt no task to create: a History other than the
// first message (followed, for a finished task, by its status message), or
// artifacts on a task that is not finished.
func (nt *NewTask) Check() error {
	t := &nt.Task
	finished := t.Status.State.Terminal()
	want := 1
	if finished && t.Status.Message != nil {
		want = 2
	}
	switch {
	case len(t.History) != want:
		return fmt.Errorf("a new %s task holds %d messages, got %d", t.Status.State, want, len(t.History))
	case want == 2 && t.History[1].MessageID != t.Status.Message.MessageID:
		return fmt.Errorf("a new finished task's second message must be its status message")
	case len(t.Artifacts) > 0 && !finished:
		return fmt.Errorf("a new %s task holds no artifacts", t.Status.State)
	}
	return nil
}

// GetOptions say how much of a task to read.
type GetOptions struct {
	// HistoryLength is the number of most recent messages to return;
	// negative means all, zero means none.
	HistoryLength int
	// IncludeArtifacts asks for the task's artifacts.
	IncludeArtifacts bool
}

// AllHistory asks GetTask for the whole history and the artifacts.
var AllHistory = GetOptions{HistoryLength: -1, IncludeArtifacts: true}

// Update is one atomic change of a task. Every update is refused when the task
// is already terminal, when IfVersion is set and differs, and when IfStates is
// set and the task's state is not among them. A successful update increments
// the version and refreshes the task's expiry.
type Update struct {
	TaskID string
	// IfVersion, when > 0, is the version the writer read.
	IfVersion int64
	// IfStates, when non-empty, are the states the task must be in.
	IfStates []a2a.TaskState

	// Messages are appended to the history, in order, before the status
	// message. They carry their taskId and contextId.
	Messages []a2a.Message
	// IdempotencyKey, with Owner, makes appending a user message safe to
	// retry: when a record for (Owner, IdempotencyKey) exists the update is
	// refused with a *DuplicateError and nothing changes.
	IdempotencyKey string
	Owner          string
	// Fingerprint, with IdempotencyKey, is the fingerprint of the
	// message's send, kept with its record and reported in a
	// *DuplicateError (see NewTask.Fingerprint).
	Fingerprint string

	// Status, when set, replaces the status. Its message, if any, is also
	// appended to the history.
	Status *a2a.TaskStatus
	// Artifacts are stored: each replaces the artifact with the same id, or,
	// with AppendArtifact, has its parts appended to it (created if absent).
	Artifacts      []a2a.Artifact
	AppendArtifact bool
	// ArtifactLastChunk marks the artifacts complete: no more chunks follow
	// (push notifications report completed artifacts).
	ArtifactLastChunk bool
	// Checkpoint, when non-nil, replaces the stored checkpoint; an empty
	// (non-nil, zero-length) value clears it.
	Checkpoint json.RawMessage
	// RequestMetadata, when non-nil, replaces the stored request metadata.
	RequestMetadata a2a.Metadata
	// Pending, when non-nil, records the interrupt a step asked for (the
	// task's state does not change).
	Pending *PendingInterrupt
	// Inbox also puts Messages, in order, in the task's inbox, for the
	// agent's next step (see InboxStore). Such an update carries only
	// Messages (with IfStates, IfVersion, IdempotencyKey and Owner) and
	// does not change the task's version.
	Inbox bool
	// Lease, when held (see Lease.Held), replaces the task's lease;
	// ClearLease removes it. A terminal or interrupted status removes it
	// whatever these say.
	Lease      Lease
	ClearLease bool
	// ExecutionARN, when set, records the Step Functions execution that
	// runs the task's steps (TaskRecord.ExecutionARN).
	ExecutionARN string
}

// CompletedArtifacts returns the ids of the artifacts u completes (see
// ArtifactLastChunk), each once, in order: push notifications report them.
func (u *Update) CompletedArtifacts() []string {
	if len(u.Artifacts) == 0 || !u.ArtifactLastChunk {
		return nil
	}
	ids := make([]string, 0, len(u.Artifacts))
	for _, a := range u.Artifacts {
		if !slices.Contains(ids, a.ArtifactID) {
			ids = append(ids, a.ArtifactID)
		}
	}
	return ids
}

// ListQuery selects one page of a caller's tasks, newest status first.
type ListQuery struct {
	Owner     string
	ContextID string
	State     a2a.TaskState
	// StatusAfter keeps tasks whose status timestamp is strictly later
	// (a formatted timestamp, see a2a.FormatTime); empty keeps all.
	StatusAfter string
	PageSize    int
	// Cursor is the store's own cursor from a previous page, or empty.
	Cursor string
	// HistoryLength and IncludeArtifacts as in GetOptions.
	HistoryLength    int
	IncludeArtifacts bool
}

// ListPage is one page of tasks.
type ListPage struct {
	Tasks []TaskRecord
	// NextCursor is empty on the last page.
	NextCursor string
	// Total is the number of tasks matching the query on all pages.
	Total int
}

// TaskStore keeps tasks. Implementations must pass storetest.Run.
//
// Expiry: every write sets the task to expire a configured time after it;
// reads MUST treat an expired task (and an expired idempotency record) as
// absent, and writes MUST refuse to change an expired task, whether or not the
// backend already deleted it.
//
// Concurrency: every method may be called from many goroutines and
// processes. Create and Update are atomic; of two updates conditioned on the
// same version, at most one succeeds; a terminal state, once written, is never
// replaced ("first terminal state wins").
type TaskStore interface {
	// CreateTask stores a new task and the idempotency record of its first
	// message (Owner, History[0].MessageID) in one atomic step. When that
	// record exists, nothing is written and a *DuplicateError names the task
	// the record points to. A live task whose id is TaskIDFor(Owner,
	// History[0].MessageID) is such a record for as long as it lives.
	CreateTask(ctx context.Context, t NewTask) error
	// GetTask reads a task. Unknown and expired tasks return ErrNotFound.
	GetTask(ctx context.Context, taskID string, opts GetOptions) (*TaskRecord, error)
	// UpdateTask applies u atomically and returns the new version. It
	// returns ErrNotFound for an unknown or expired task, a *ConflictError
	// when a condition fails, or a *DuplicateError (see Update).
	UpdateTask(ctx context.Context, u Update) (int64, error)
	// ListTasks returns one page of the owner's tasks, newest status
	// timestamp first (ties by task id, descending).
	ListTasks(ctx context.Context, q ListQuery) (ListPage, error)
}

// InterruptStore keeps interrupt bindings. Implementations must pass the
// interrupt part of storetest.Run.
type InterruptStore interface {
	// ActivateInterrupt shows a pending interrupt. In one atomic step it sets
	// the task's status to the pending state and message (the message is
	// also appended to the history), clears the pending interrupt and stores
	// b. It refuses with a *ConflictError when the task is terminal, and
	// with ErrNotFound when neither a pending interrupt nor a binding with
	// b.RequestID exists. When the binding already exists (a retried
	// activation), it only replaces the binding's TaskToken.
	ActivateInterrupt(ctx context.Context, b InterruptBinding, timestamp string) (int64, error)
	// GetInterrupt returns a binding until its ExpiresAt, resolved or not;
	// after that, ErrNotFound.
	GetInterrupt(ctx context.Context, requestID string) (*InterruptBinding, error)
	// ResolveInterrupt marks the binding resolved and applies u to its task
	// atomically: both happen or neither. The idempotency record of u is
	// checked first (*DuplicateError), then the binding (*InterruptConflictError
	// when it is resolved or no longer active, ErrNotFound when it is gone),
	// then u's conditions as in TaskStore.UpdateTask.
	ResolveInterrupt(ctx context.Context, requestID string, u Update) (int64, error)
	// ListInterrupts returns the owner's unresolved, active bindings, oldest
	// first.
	ListInterrupts(ctx context.Context, owner string) ([]InterruptBinding, error)
}

// MaxPushConfigs is how many push notification configs one task may have.
const MaxPushConfigs = 10

// PushConfig is a push notification config registered for a task.
type PushConfig struct {
	TaskID string
	// Config is the registration as the client sent it, secrets included
	// (the service redacts them on the way out); Config.ID is set.
	Config a2a.PushNotificationConfig
	// ProtocolVersion is the A2A version the config was registered under
	// ("0.3" or "1.0"): it chooses the notifications' body.
	ProtocolVersion a2a.Version
	CreatedAt       time.Time
	// Delivery is the last delivery to this webhook, or nil.
	Delivery *DeliveryRecord
}

// DeliveryRecord is what operators see of a webhook's last delivery.
type DeliveryRecord struct {
	EventID string
	// State is delivered, retrying or failed.
	State          string
	Attempts       int
	LastStatusCode int
	LastError      string
	LastAttemptAt  time.Time
	DeliveredAt    time.Time
}

// TooManyConfigsError is returned when a task already has MaxPushConfigs
// configs and another is added.
type TooManyConfigsError struct{ Limit int }

func (e *TooManyConfigsError) Error() string {
	return fmt.Sprintf("a task can have at most %d push notification configs", e.Limit)
}

// PushConfigStore keeps push notification configs with their tasks.
// Implementations must pass the push part of storetest.Run.
type PushConfigStore interface {
	// PutPushConfig stores c, replacing the task's config with the same id.
	// It returns ErrNotFound for an unknown or expired task, and a
	// *TooManyConfigsError when it would give the task more than
	// MaxPushConfigs configs. Configs live as long as their task.
	PutPushConfig(ctx context.Context, c PushConfig) error
	// GetPushConfig returns one config, or ErrNotFound.
	GetPushConfig(ctx context.Context, taskID, configID string) (*PushConfig, error)
	// ListPushConfigs returns the task's configs, by id (ErrNotFound for an
	// unknown or expired task).
	ListPushConfigs(ctx context.Context, taskID string) ([]PushConfig, error)
	// DeletePushConfig removes a config; deleting one that does not exist
	// is not an error.
	DeletePushConfig(ctx context.Context, taskID, configID string) error
	// RecordDelivery records the last delivery to a config; ErrNotFound
	// when the config is gone.
	RecordDelivery(ctx context.Context, taskID, configID string, d DeliveryRecord) error
}

// TaskChange is a committed change of a task that push notifications tell
// webhooks about: a new status, or artifacts whose last chunk was stored.
// Stores report it (the memory store through a callback, the DynamoDB store
// through its table's stream).
type TaskChange struct {
	// Task is the task at Version: id, context id, status and metadata; no
	// history and no artifacts.
	Task    a2a.Task
	Version int64
	// StatusChanged is true when the status changed as StatusNotable says.
	StatusChanged bool
	// ArtifactIDs are the artifacts whose last chunk this change stored.
	ArtifactIDs []string
	// PushConfigIDs are the task's configs when the change was made.
	PushConfigIDs []string
	// SessionID is the task's agent session (TaskRecord.SessionID).
	SessionID string
}

// Notable reports whether webhooks are told about the change.
func (c *TaskChange) Notable() bool { return c.StatusChanged || len(c.ArtifactIDs) > 0 }

// StatusNotable reports whether writing status over a task in state from
// is a status change webhooks are told about: a new state, or a status
// message (an agent's progress). A step that starts, rewriting working
// without a message, is not.
func StatusNotable(from a2a.TaskState, status *a2a.TaskStatus) bool {
	return status != nil && (status.State != from || status.Message != nil)
}

// Store is everything the service and the executor keep.
type Store interface {
	TaskStore
	InterruptStore
	PushConfigStore
	ContextStore
	InboxStore
	LeaseStore
	DeliveryLog
}

// MaxInboxTake bounds the messages one TakeInbox returns (what one
// DynamoDB transaction can remove with the task's count); the rest wait
// for the next take.
const MaxInboxTake = 20

// InboxStore keeps the user messages a client sends to a task while it
// works (submitted or working): an update with Inbox set appends them to
// the history and, in the same atomic step, to the task's inbox, and
// counts them in TaskRecord.Inbox. Implementations must pass the inbox
// part of storetest.Run.
//
// The inbox is durable (it lives and expires with the task) and ordered
// (messages come out in the order their updates committed). Appending to it
// leaves the task's version alone, so it neither waits for nor disturbs a
// step that writes all the time.
type InboxStore interface {
	// TakeInbox removes and returns the oldest messages of the task's inbox
	// (at most MaxInboxTake), oldest first, and lowers TaskRecord.Inbox by
	// as many, without changing the task's version. Each message is
	// returned by exactly one call, however many run at once. A task with
	// an empty inbox, and an unknown or expired task, give none (nil, no
	// error).
	TakeInbox(ctx context.Context, taskID string) ([]a2a.Message, error)
}

// ContextRecord is one of a caller's conversation contexts: the contextId
// its tasks share. A context is as live as its tasks: it exists while one
// of them has not expired or been cleared.
type ContextRecord struct {
	Owner     string
	ContextID string
	// TaskCount is the number of its live tasks.
	TaskCount int
	// UpdatedAt is the newest status timestamp (a2a.FormatTime) of its
	// tasks.
	UpdatedAt string
	// SessionID is the agent session bound to the context, or "": the
	// session of its first task that had one, carried from task to task.
	SessionID string
}

// ContextQuery selects one page of an owner's contexts.
type ContextQuery struct {
	Owner    string
	PageSize int
	// Cursor is the store's cursor from a previous page, or empty.
	Cursor string
}

// ContextPage is one page of contexts.
type ContextPage struct {
	Contexts []ContextRecord
	// NextCursor is empty on the last page.
	NextCursor string
}

// ContextLiveError is returned when a context cannot be cleared because
// one of its tasks is not finished.
type ContextLiveError struct {
	TaskID string
	State  a2a.TaskState
}

func (e *ContextLiveError) Error() string {
	return fmt.Sprintf("task %s of the context is %s", e.TaskID, e.State)
}

// ContextStore keeps the contexts of tasks and the feedback on them.
// Implementations must pass the context part of storetest.Run.
//
// A context is the owner's live tasks of one contextId: it exists while one
// of them does, its TaskCount counts them and its UpdatedAt is the newest
// status timestamp among them. The first task binds NewTask.SessionID to
// the context; later ones carry the bound session on, and a context without
// one takes the next task's.
type ContextStore interface {
	// GetContext returns an owner's context: ErrNotFound when the owner
	// has none with that id (never used, cleared or expired).
	GetContext(ctx context.Context, owner, contextID string) (*ContextRecord, error)
	// ContextSession returns the SessionID GetContext would, or its
	// ErrNotFound, reading no more than that takes: a send into a context
	// of many tasks asks it, and must not read them all.
	ContextSession(ctx context.Context, owner, contextID string) (string, error)
	// ListContexts returns one page of the owner's contexts, latest
	// UpdatedAt first (ties by the id of the task that has it, descending).
	ListContexts(ctx context.Context, q ContextQuery) (ContextPage, error)
	// ClearContext removes an owner's context and its tasks: they are no
	// longer read (ErrNotFound), listed, counted or written, and the
	// context's session binding is forgotten. It refuses with a
	// *ContextLiveError, changing nothing, while a task of the context is
	// not terminal, and returns ErrNotFound for an unknown context.
	ClearContext(ctx context.Context, owner, contextID string) error
	// SetFeedback records f on a terminal task, replacing earlier
	// feedback, without changing the task's version. It returns
	// ErrNotFound for an unknown or expired task, and a *ConflictError
	// (ConflictState) for a task that is not terminal.
	SetFeedback(ctx context.Context, taskID string, f Feedback) error
}

// InterruptConflictReason says why a binding refused a reply.
type InterruptConflictReason string

// Interrupt conflict reasons.
const (
	InterruptResolved InterruptConflictReason = "resolved"
	InterruptExpired  InterruptConflictReason = "expired"
)

// InterruptConflictError is returned when a binding cannot take a reply.
type InterruptConflictError struct {
	Reason InterruptConflictReason
}

func (e *InterruptConflictError) Error() string {
	return "interrupt request " + string(e.Reason)
}

// SettleWaiter is implemented by stores that can wake a blocking request as
// soon as a task settles (becomes terminal or interrupted). Requests poll
// stores that do not implement it.
type SettleWaiter interface {
	// Settled returns a channel that is closed once the task is terminal or
	// interrupted: at once if it already is, or if the task is gone.
	Settled(taskID string) <-chan struct{}
}

// Store errors.
var (
	// ErrNotFound: the task does not exist or expired.
	ErrNotFound = errors.New("task not found")
	// ErrTooLarge: the write would exceed the backend's item size limit.
	ErrTooLarge = errors.New("item too large")
)

// ConflictReason says which condition of an update failed.
type ConflictReason string

// Conflict reasons.
const (
	ConflictTerminal ConflictReason = "terminal"
	ConflictVersion  ConflictReason = "version"
	ConflictState    ConflictReason = "state"
)

// ConflictError is returned when an update's condition fails.
type ConflictError struct {
	Reason ConflictReason
	// State and Version are the task's current ones.
	State   a2a.TaskState
	Version int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("task update conflict (%s): task is %s at version %d", e.Reason, e.State, e.Version)
}

// DuplicateError is returned when an idempotency record already exists.
type DuplicateError struct {
	// TaskID is the task the first request created or continued.
	TaskID string
	// Task, when the store read that task whole with the refusal (a task
	// created finished in one write: a retried blocking send), is it, with
	// its whole history and artifacts; nil otherwise.
	Task *TaskRecord
	// Fingerprint is the fingerprint of the first send of the message id
	// (NewTask.Fingerprint, Update.Fingerprint), "" when it was recorded
	// without one.
	Fingerprint string
	// CreatedAt is when the first send created its task; zero for a
	// continuation's record, which lives only as long as the idempotency
	// window.
	CreatedAt time.Time
}

// state is the state of the first task, when the store read it.
func (e *DuplicateError) state() a2a.TaskState {
	if e.Task == nil {
		return ""
	}
	return e.Task.Task.Status.State
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("message already accepted for task %s", e.TaskID)
}

// StoreFullError is returned by a store with a bound on the tasks it keeps
// (the local server's memory store) when a new task would exceed it and
// every task kept is still live: Limit tasks, or Bytes bytes.
type StoreFullError struct {
	Limit int
	Bytes int64
}

func (e *StoreFullError) Error() string {
	if e.Bytes > 0 {
		return fmt.Sprintf("the server keeps at most %d MiB of tasks and the tasks still running or waiting for input take it all", e.Bytes>>20)
	}
	return fmt.Sprintf("the server keeps at most %d tasks and all of them are still running or waiting for input", e.Limit)
}

// MaxContentBytes is the largest JSON encoding of one message, one artifact
// (with all its appended chunks) or one request metadata object that a store
// accepts. It keeps every DynamoDB item under the 400 KB item limit with room
// for keys and attributes; every store enforces it so they behave alike.
const MaxContentBytes = 380 << 10

// TooLargeError wraps ErrTooLarge with the limit, for the client's message.
type TooLargeError struct {
	What  string
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s exceeds the storage limit of %d bytes", e.What, e.Limit)
}

// Unwrap makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

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
	Trigger  Trigger
	// Created is the task as the send that created it stored it (version
	// 1, its first message, no artifacts): a runner that runs the first
	// step in that same request passes it on (StepRequest.Created), so the
	// step need not read it back. Nil otherwise; never stored.
	Created *TaskRecord
	// Unsaved, for a blocking send to an InlineRunner, is the new task the
	// send did not store: the first step stores it with its first write
	// (StepRequest.Unsaved), once, finished, when that write finishes the
	// task, and then leaves the finished task here for the send to answer
	// with. Nil otherwise; never stored.
	Unsaved *NewTask
}

// InlineRunner is a Runner that runs a blocking send's first step in the
// send's own request, and so may be given a job whose task is not stored
// yet (Job.Unsaved).
type InlineRunner interface {
	Runner
	// StartsInline reports whether it does.
	StartsInline() bool
}

// record is the task as a finished NewTask holds it, with at most
// historyLength messages (negative: all).
func (nt *NewTask) record(historyLength int) *TaskRecord {
	rec := &TaskRecord{Task: nt.Task, Owner: nt.Owner, Version: 1, RequestMetadata: nt.RequestMetadata, SessionID: nt.SessionID}
	return rec.withHistory(historyLength)
}

// withHistory returns a copy of rec with at most historyLength of its
// messages, the latest (negative: all).
func (rec *TaskRecord) withHistory(historyLength int) *TaskRecord {
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
