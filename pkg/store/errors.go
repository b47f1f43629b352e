package store

import (
	"errors"
	"fmt"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

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

// ConflictLease: the task's lease is held by someone else, or gone.
const ConflictLease ConflictReason = "lease"

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

// State is the state of the first task, when the store read it ("" when
// it did not).
func (e *DuplicateError) State() a2a.TaskState {
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

// Refused reports whether err is a store's refusal to write: nothing was
// written (a condition, a duplicate, a missing task, a size limit). Any
// other error may come after the write was made.
func Refused(err error) bool {
	var (
		ce  *ConflictError
		dup *DuplicateError
	)
	return errors.As(err, &ce) || errors.As(err, &dup) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrTooLarge)
}
