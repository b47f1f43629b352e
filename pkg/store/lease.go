package store

import (
	"context"
	"time"
)

// Trigger says what started a step.
type Trigger string

// Step triggers.
const (
	// TriggerMessage: a new task's first message.
	TriggerMessage Trigger = "message"
	// TriggerReply: the client's reply to an interrupt.
	TriggerReply Trigger = "reply"
	// TriggerContinue: a Continue outcome's delay passed.
	TriggerContinue Trigger = "continue"
)

// Lease says who runs a task and until when it must show that it still
// does. Whoever runs a step holds the task's lease and renews it while the
// step runs; between steps the lease covers the wait before the next one.
// A task that is submitted or working and whose lease lapsed has lost its
// runner (a crashed process, a timed-out function): a sweep takes it over
// (the step runs again, steps being at least once) or, after
// MaxTakeovers, fails it. A terminal or interrupted task holds no lease:
// the stores drop it when the task becomes terminal and when an interrupt
// is shown.
type Lease struct {
	// Owner names the holder (a step, or a sweep that took the task over);
	// empty for the lease a new task or a reply is created with, which
	// waits for a runner to start.
	Owner string
	// Until is when the lease lapses unless renewed.
	Until time.Time
	// Trigger is what started the step the lease is for: a takeover runs
	// that step again.
	Trigger Trigger
}

// Held reports whether l is a lease: the zero Lease is none.
func (l Lease) Held() bool { return !l.Until.IsZero() }

// Stored returns l at the stores' precision.
func (l Lease) Stored() Lease {
	l.Until = l.Until.Truncate(LeaseTime)
	return l
}

// LeaseTime is the precision leases are stored with: every store
// truncates Lease.Until to it, so that a LapsedLease read back names the
// lease exactly.
const LeaseTime = time.Millisecond

// LapsedLease is a task whose lease lapsed (see LeaseStore).
type LapsedLease struct {
	TaskID string
	Lease  Lease
	// Takeovers is how many times the task was taken over before.
	Takeovers int
}

// LeaseStore keeps the leases of running tasks. Implementations must pass
// the lease part of storetest.Run. A lease is written with a task by
// TaskStore.CreateTask (NewTask.Lease) and TaskStore.UpdateTask
// (Update.Lease, Update.ClearLease); a task that becomes terminal, or whose
// interrupt is shown (InterruptStore.ActivateInterrupt), loses its lease in
// the same write. None of the methods below changes the task's version.
type LeaseStore interface {
	// RenewLease moves the task's lease to until while owner holds it. It
	// returns a *ConflictError (ConflictLease) when another owner holds it
	// or the task has none, (ConflictTerminal) when the task is terminal,
	// and ErrNotFound for an unknown or expired task.
	RenewLease(ctx context.Context, taskID, owner string, until time.Time) error
	// LapsedLeases returns up to limit tasks, submitted or working and not
	// expired, whose lease lapsed before now, the longest lapsed first.
	LapsedLeases(ctx context.Context, now time.Time, limit int) ([]LapsedLease, error)
	// TakeOver gives the lapsed lease l to owner until until and adds one to
	// the task's takeovers, in one atomic step, and returns the new number
	// of takeovers. It returns a *ConflictError (ConflictLease) when the
	// task no longer holds exactly l (it was renewed, taken over, released
	// or the task moved to a state that holds no lease), and ErrNotFound
	// for an unknown or expired task: of two sweeps that saw the same
	// lapsed lease, one wins.
	TakeOver(ctx context.Context, l LapsedLease, owner string, until time.Time) (int, error)
}
