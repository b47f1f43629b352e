package store

import (
	"context"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

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
