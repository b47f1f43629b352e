package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// ActivateInterrupt implements store.InterruptStore.
func (s *Store) ActivateInterrupt(_ context.Context, b store.InterruptBinding, timestamp string) (int64, error) {
	if _, err := metadataSize("interrupt details", b.Details); err != nil {
		return 0, err
	}
	now := s.clock.Now()
	s.mu.Lock()
	v, change, err := s.activate(b, timestamp, now)
	s.mu.Unlock()
	s.notify(change)
	return v, err
}

func (s *Store) activate(b store.InterruptBinding, timestamp string, now time.Time) (int64, *store.TaskChange, error) {
	e := s.live(b.TaskID, now)
	if e == nil {
		return 0, nil, store.ErrNotFound
	}
	cur := &e.rec
	if st := cur.Task.Status.State; st.Terminal() {
		return 0, nil, &store.ConflictError{Reason: store.ConflictTerminal, State: st, Version: cur.Version}
	}
	if existing := s.liveInterrupt(b.RequestID, now); existing != nil {
		existing.TaskToken = b.TaskToken // a retried activation
		return cur.Version, nil, nil
	}
	p := cur.Pending
	if p == nil || p.RequestID != b.RequestID {
		return 0, nil, store.ErrNotFound
	}
	next := *cur
	next.Task.Status = a2a.TaskStatus{State: p.State, Message: p.Message, Timestamp: timestamp}
	next.Task.History = append(cur.Task.History, *p.Message)
	next.Pending = nil
	v := s.commit(e, next, now)
	s.interrupts[b.RequestID] = &b
	return v, s.change(e, true, nil), nil
}

// liveInterrupt returns the binding until its tombstone ends. Callers hold
// s.mu.
func (s *Store) liveInterrupt(requestID string, now time.Time) *store.InterruptBinding {
	b, ok := s.interrupts[requestID]
	if !ok || !now.Before(b.ExpiresAt) {
		return nil
	}
	return b
}

// GetInterrupt implements store.InterruptStore.
func (s *Store) GetInterrupt(_ context.Context, requestID string) (*store.InterruptBinding, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.liveInterrupt(requestID, now)
	if b == nil {
		return nil, store.ErrNotFound
	}
	c := *b
	return &c, nil
}

// ResolveInterrupt implements store.InterruptStore.
func (s *Store) ResolveInterrupt(_ context.Context, requestID string, u store.Update) (int64, error) {
	added, err := checkUpdateSizes(&u)
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	s.mu.Lock()
	v, change, err := s.resolve(requestID, &u, added, now)
	s.mu.Unlock()
	s.notify(change)
	return v, err
}

func (s *Store) resolve(requestID string, u *store.Update, added updateSizes, now time.Time) (int64, *store.TaskChange, error) {
	if err := s.duplicate(u, now); err != nil {
		return 0, nil, err
	}
	b := s.liveInterrupt(requestID, now)
	switch {
	case b == nil:
		return 0, nil, store.ErrNotFound
	case b.Resolved:
		return 0, nil, &store.InterruptConflictError{Reason: store.InterruptResolved}
	case !now.Before(b.ActiveUntil):
		return 0, nil, &store.InterruptConflictError{Reason: store.InterruptExpired}
	}
	e := s.live(u.TaskID, now)
	if e == nil {
		return 0, nil, store.ErrNotFound
	}
	v, change, err := s.apply(e, u, added, now)
	if err != nil {
		return 0, nil, err
	}
	b.Resolved = true
	return v, change, nil
}

// ListInterrupts implements store.InterruptStore.
func (s *Store) ListInterrupts(_ context.Context, owner string) ([]store.InterruptBinding, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.InterruptBinding
	for _, b := range s.interrupts {
		if b.Owner == owner && !b.Resolved && now.Before(b.ActiveUntil) {
			out = append(out, *b)
		}
	}
	slices.SortFunc(out, func(a, b store.InterruptBinding) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.RequestID, b.RequestID))
	})
	return out, nil
}
