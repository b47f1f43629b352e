package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The delivery log: every attempt to deliver a push notification, kept with
// its task, and the redrive of the deliveries that failed.

// DeliveryRedriver sends a redriven delivery (its Job) through the push
// pipeline again. The local server's in-process queue implements it; the
// Lambda functions need none, since the table's stream carries the queued
// delivery to the push function, which enqueues it.
type DeliveryRedriver interface {
	Redrive(ctx context.Context, d store.Delivery) error
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
	size, cursor, err := pageOf(owner, p.PageSize, p.PageToken)
	if err != nil {
		return nil, err
	}
	page, err := s.store.ListDeliveries(ctx, store.DeliveryQuery{TaskID: p.TaskID, PageSize: size, Cursor: cursor})
	if err != nil {
		return nil, s.storeError(err, p.TaskID, "params")
	}
	res := &a2a.ListDeliveriesResult{Deliveries: make([]a2a.Delivery, len(page.Deliveries))}
	for i := range page.Deliveries {
		res.Deliveries[i] = wireDelivery(&page.Deliveries[i])
	}
	res.NextPageToken = nextPageToken(owner, page.NextCursor)
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
		var se *store.DeliveryStateError
		switch {
		case errors.As(err, &se) && len(targets) > 1:
			continue // redriven or delivered meanwhile
		case errors.As(err, &se):
			return nil, notRedrivable(t, se.State)
		case errors.Is(err, store.ErrNotFound):
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
func (s *Service) redriveTargets(ctx context.Context, p a2a.RedriveDeliveriesParams, version int64) ([]store.Delivery, error) {
	var matched, failed []store.Delivery
	q := store.DeliveryQuery{TaskID: p.TaskID, PageSize: a2a.MaxPageSize}
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

func notRedrivable(d store.Delivery, state string) error {
	return a2a.InvalidParams("params.eventId", "the delivery of %s to push config %q is %s; only failed (dead-lettered) deliveries are redriven", d.EventID(), d.ConfigID, state)
}

// wireDelivery is d as the extension methods show it.
func wireDelivery(d *store.Delivery) a2a.Delivery {
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
