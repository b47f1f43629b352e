package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// The delivery log: every attempt to deliver a push notification, kept with
// its task, and the redrive of the deliveries that failed.

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

// DeliveryRedriver sends a redriven delivery (its Job) through the push
// pipeline again. The local server's in-process queue implements it; the
// Lambda functions need none, since the table's stream carries the queued
// delivery to the push function, which enqueues it.
type DeliveryRedriver interface {
	Redrive(ctx context.Context, d Delivery) error
}

// WithRedriver makes the service hand every redriven delivery to r, and
// returns s.
func (s *Service) WithRedriver(r DeliveryRedriver) *Service {
	s.redriver = r
	return s
}

// maxRedrivePages bounds the pages of deliveries a redrive of all of a
// task's failed deliveries reads.
const maxRedrivePages = 20

// ListDeliveries implements tasks/deliveries/list: one page of the
// deliveries of one of the caller's tasks, newest first.
func (s *Service) ListDeliveries(ctx context.Context, owner string, p a2a.ListDeliveriesParams) (*a2a.ListDeliveriesResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := s.pushTask(ctx, owner, p.TaskID, "params.taskId"); err != nil {
		return nil, err
	}
	q := DeliveryQuery{TaskID: p.TaskID, PageSize: a2a.DefaultPageSize}
	if p.PageSize != nil {
		q.PageSize = *p.PageSize
	}
	if p.PageToken != "" {
		c, err := decodePageToken(owner, p.PageToken)
		if err != nil {
			return nil, err
		}
		q.Cursor = c
	}
	page, err := s.store.ListDeliveries(ctx, q)
	if err != nil {
		return nil, s.storeError(err, p.TaskID, "params")
	}
	res := &a2a.ListDeliveriesResult{Deliveries: make([]a2a.Delivery, len(page.Deliveries))}
	for i := range page.Deliveries {
		res.Deliveries[i] = wireDelivery(&page.Deliveries[i])
	}
	if page.NextCursor != "" {
		res.NextPageToken = encodePageToken(owner, page.NextCursor)
	}
	return res, nil
}

// RedriveDeliveries implements tasks/deliveries/redrive: it queues the
// failed deliveries of one of the caller's tasks again (those of one event,
// and of one config, when the params name them) and returns them. Each goes
// through the same signed, checked delivery as the first time, with the
// same event id. Naming a delivery that has not failed is invalid params.
func (s *Service) RedriveDeliveries(ctx context.Context, owner string, p a2a.RedriveDeliveriesParams) (*a2a.RedriveDeliveriesResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	version, _ := p.Version()
	if err := s.pushTask(ctx, owner, p.TaskID, "params.taskId"); err != nil {
		return nil, err
	}
	targets, err := s.redriveTargets(ctx, p, version)
	if err != nil {
		return nil, err
	}
	res := &a2a.RedriveDeliveriesResult{Redriven: []a2a.Delivery{}}
	for _, t := range targets {
		d, err := s.store.RedriveDelivery(ctx, p.TaskID, t.ConfigID, t.Version)
		var se *DeliveryStateError
		switch {
		case errors.As(err, &se) && len(targets) > 1:
			continue // redriven or delivered meanwhile
		case errors.As(err, &se):
			return nil, notRedrivable(t, se.State)
		case errors.Is(err, ErrNotFound):
			return nil, a2a.TaskNotFound(p.TaskID)
		case err != nil:
			return nil, s.storeError(err, p.TaskID, "params")
		}
		if s.redriver != nil {
			if err := s.redriver.Redrive(ctx, *d); err != nil {
				return nil, fmt.Errorf("redrive %s to config %s: %w", d.EventID(), d.ConfigID, err)
			}
		}
		res.Redriven = append(res.Redriven, wireDelivery(d))
	}
	return res, nil
}

// redriveTargets are the deliveries a redrive names: the failed ones among
// those that match p. When none failed, the error says why: no such
// delivery, the state of the one delivery p names, or none failed.
func (s *Service) redriveTargets(ctx context.Context, p a2a.RedriveDeliveriesParams, version int64) ([]Delivery, error) {
	var matched, failed []Delivery
	q := DeliveryQuery{TaskID: p.TaskID, PageSize: a2a.MaxPageSize}
	for range maxRedrivePages {
		page, err := s.store.ListDeliveries(ctx, q)
		if err != nil {
			return nil, s.storeError(err, p.TaskID, "params")
		}
		for _, d := range page.Deliveries {
			if (version != 0 && d.Version != version) || (p.ConfigID != "" && d.ConfigID != p.ConfigID) {
				continue
			}
			matched = append(matched, d)
			if d.State == a2a.DeliveryFailed {
				failed = append(failed, d)
			}
		}
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	switch {
	case len(failed) > 0:
		return failed, nil
	case len(matched) == 0 && (version != 0 || p.ConfigID != ""):
		return nil, a2a.Errorf(a2a.CodeTaskNotFound, "task %s has no delivery%s", p.TaskID, describeTarget(p))
	case len(matched) == 1 && version != 0:
		return nil, notRedrivable(matched[0], matched[0].State)
	}
	return nil, a2a.InvalidParams("params", "task %s has no failed delivery%s to redrive (see %s)", p.TaskID, describeTarget(p), a2a.MethodDeliveriesList)
}

func describeTarget(p a2a.RedriveDeliveriesParams) string {
	s := ""
	if p.EventID != "" {
		s += " of event " + p.EventID
	}
	if p.ConfigID != "" {
		s += fmt.Sprintf(" to push config %q", p.ConfigID)
	}
	return s
}

func notRedrivable(d Delivery, state string) error {
	return a2a.InvalidParams("params.eventId", "the delivery of %s to push config %q is %s; only failed (dead-lettered) deliveries are redriven", d.EventID(), d.ConfigID, state)
}

// wireDelivery is d as the extension methods show it.
func wireDelivery(d *Delivery) a2a.Delivery {
	out := a2a.Delivery{
		TaskID: d.TaskID, ConfigID: d.ConfigID, EventID: d.EventID(), TaskVersion: d.Version,
		State: d.State, DeadLettered: d.DeadLettered, NextAttemptAt: formatTime(d.NextAttemptAt),
		Redrives: d.Redrives, UpdatedAt: formatTime(d.UpdatedAt), Attempts: make([]a2a.DeliveryAttempt, len(d.Attempts)),
	}
	for i, a := range d.Attempts {
		out.Attempts[i] = a2a.DeliveryAttempt{
			Attempt: a.Attempt, At: formatTime(a.At), StatusCode: a.StatusCode, Error: a.Error,
			State: a.State, NextAttemptAt: formatTime(a.NextAttemptAt), DeadLettered: a.DeadLettered,
		}
	}
	return out
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return a2a.FormatTime(t)
}
