package store

import (
	"context"
	"time"
)

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
