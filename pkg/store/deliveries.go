package store

import (
	"context"
	"strconv"
	"time"
)

// MaxDeliveryAttempts is how many attempts a delivery keeps: the latest.
const MaxDeliveryAttempts = 30

// DeliveryAttempt is one attempt to deliver a notification (the task
// version Version) to one webhook (the push config ConfigID).
type DeliveryAttempt struct {
	ConfigID string
	Version  int64
	// Attempt numbers the attempts of a run of the delivery from 1 (a
	// redrive starts a new run).
	Attempt    int
	At         time.Time
	StatusCode int
	Error      string
	// State is the delivery's state after the attempt: a2a.DeliveryRetrying,
	// a2a.DeliveryDelivered or a2a.DeliveryFailed.
	State         string
	NextAttemptAt time.Time
	// DeadLettered is set on the attempt that failed for good: the
	// notification went to the dead-letter queue.
	DeadLettered bool
	// Job, on an attempt that dead-letters, is what a redrive sends again:
	// the delivery queue's job, opaque to the store (no secret).
	Job []byte
}

// Delivery is one notification to one webhook as the log keeps it.
type Delivery struct {
	TaskID   string
	ConfigID string
	Version  int64
	// State is the State of the latest attempt, or a2a.DeliveryQueued
	// after a redrive, until its first attempt.
	State         string
	DeadLettered  bool
	NextAttemptAt time.Time
	// Redrives counts the redrives.
	Redrives  int
	UpdatedAt time.Time
	// Attempts are the latest MaxDeliveryAttempts attempts, oldest first.
	Attempts []DeliveryAttempt
	// Job is the job of the latest dead-lettered attempt, nil before one.
	Job []byte
}

// EventID is the delivery's event id, <taskId>:<version>.
func (d *Delivery) EventID() string { return d.TaskID + ":" + strconv.FormatInt(d.Version, 10) }

// DeliveryQuery selects one page of a task's deliveries.
type DeliveryQuery struct {
	TaskID   string
	PageSize int
	// Cursor is the store's cursor from a previous page, or empty.
	Cursor string
}

// DeliveryPage is one page of deliveries.
type DeliveryPage struct {
	Deliveries []Delivery
	// NextCursor is empty on the last page.
	NextCursor string
}

// DeliveryLog keeps the delivery log of tasks. Implementations must pass
// the delivery part of storetest.Run.
//
// A task's deliveries live and expire with it, and are read only through
// it: an unknown or expired task has none (ErrNotFound).
type DeliveryLog interface {
	// LogDelivery adds attempt a to the delivery (a.ConfigID, a.Version) of
	// the task, creating the delivery at its first attempt; the delivery
	// takes a's State, DeadLettered and NextAttemptAt, and its Job when a
	// has one. Only the latest MaxDeliveryAttempts attempts are kept. An
	// attempt for a task that is unknown or expired returns ErrNotFound or
	// is stored where no read finds it.
	LogDelivery(ctx context.Context, taskID string, a DeliveryAttempt) error
	// ListDeliveries returns one page of the task's deliveries, newest
	// version first (ties by config id). ErrNotFound for an unknown or
	// expired task.
	ListDeliveries(ctx context.Context, q DeliveryQuery) (DeliveryPage, error)
	// RedriveDelivery queues a failed delivery for another run, atomically:
	// its state becomes a2a.DeliveryQueued, DeadLettered false and Redrives
	// one more. It returns the delivery as it is then (Job included).
	// ErrNotFound when the task or the delivery is unknown; a
	// *DeliveryStateError, changing nothing, when the delivery has not
	// failed (or has no job to send again).
	RedriveDelivery(ctx context.Context, taskID, configID string, version int64) (*Delivery, error)
}

// DeliveryStateError is returned when a delivery that has not failed is
// redriven.
type DeliveryStateError struct {
	// State is the delivery's state.
	State string
}

func (e *DeliveryStateError) Error() string {
	return "the delivery is " + e.State + "; only failed deliveries are redriven"
}
