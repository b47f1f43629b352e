// Package store is the task store's port: what the host keeps of tasks
// (their history, artifacts and leases, interrupt bindings, push configs,
// contexts, inboxes and delivery logs), the types it is kept as, and the
// errors every store returns. The adapters are its subpackages, memory
// and dynamo, and both pass the one contract suite, storetest.Run.
//
// The interfaces here are the whole port, which an adapter implements
// (Store). Each user of a store declares the narrower interface it needs.
package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
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
	// client (the engine's Executor.Await shows it). Nil otherwise.
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

// NewTask is a task to create.
type NewTask struct {
	// Task holds the id, context id, submitted status and, in History,
	// exactly the first user message. A task whose first step finished
	// before it was stored (engine.Unsaved) holds its terminal status instead,
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
	// (see service.MessageFingerprint): a later send of its first
	// message's id is a retry when it has the same, another message when
	// not. The store keeps it and reports it in a *DuplicateError.
	Fingerprint string
	// NoRecord says that the task's first message is not deduplicated:
	// the store writes no idempotency record for it (idempotency is off,
	// or the message id is used again past its window), and the task's id
	// is not TaskIDFor's.
	NoRecord bool
}

// Record is the task record that storing nt at now makes: version 1,
// created and updated now. It shares nt's slices.
func (nt *NewTask) Record(now time.Time) TaskRecord {
	return TaskRecord{Task: nt.Task, Owner: nt.Owner, Version: 1, CreatedAt: now, UpdatedAt: now,
		RequestMetadata: nt.RequestMetadata, SessionID: nt.SessionID, Lease: nt.Lease.Stored(), Fingerprint: nt.Fingerprint}
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

// Store is the whole port: everything a task store keeps. The memory and
// DynamoDB stores implement it; their users declare the part they use.
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

// SettleWaiter is implemented by stores that can wake a blocking request as
// soon as a task settles (becomes terminal or interrupted). Requests poll
// stores that do not implement it.
type SettleWaiter interface {
	// Settled returns a channel that is closed once the task is terminal or
	// interrupted: at once if it already is, or if the task is gone.
	Settled(taskID string) <-chan struct{}
}

// TaskIDFor is the id of the task that owner's message messageID creates: a
// name-based UUID (version 8, from SHA-256 of the two). So a retried send
// names its task before anything is read, and a store can keep the task
// item as the message's idempotency record (see TaskStore.CreateTask).
func TaskIDFor(owner, messageID string) string { return taskUUID(owner, messageID).String() }

// IsTaskIDFor reports whether id is TaskIDFor(owner, messageID), without
// making that string.
func IsTaskIDFor(id, owner, messageID string) bool {
	if len(id) != 36 || strings.ToLower(id) != id { // TaskIDFor's form only
		return false
	}
	u, err := uuid.Parse(id)
	return err == nil && u == taskUUID(owner, messageID)
}

func taskUUID(owner, messageID string) uuid.UUID {
	var buf [160]byte
	b := append(buf[:0], "a2a-lambda task "...)
	b = strconv.AppendInt(b, int64(len(owner)), 10)
	b = append(append(append(b, ':'), owner...), ';')
	b = strconv.AppendInt(b, int64(len(messageID)), 10)
	b = append(append(b, ':'), messageID...)
	sum := sha256.Sum256(b)
	var u uuid.UUID
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x80 // version 8
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u
}
