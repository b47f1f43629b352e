package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

var _ store.LeaseStore = (*Store)(nil)

// RenewLease implements store.LeaseStore.
func (s *Store) RenewLease(_ context.Context, taskID, owner string, until time.Time) error {
	return s.editTask(taskID, func(e *entry, _ time.Time) error {
		cur := &e.rec
		if st := cur.Task.Status.State; st.Terminal() {
			return &store.ConflictError{Reason: store.ConflictTerminal, State: st, Version: cur.Version}
		}
		if !cur.Lease.Held() || cur.Lease.Owner != owner {
			return &store.ConflictError{Reason: store.ConflictLease, State: cur.Task.Status.State, Version: cur.Version}
		}
		cur.Lease.Until = until.Truncate(store.LeaseTime)
		return nil
	})
}

// LapsedLeases implements store.LeaseStore.
func (s *Store) LapsedLeases(_ context.Context, now time.Time, limit int) ([]store.LapsedLease, error) {
	clockNow := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.LapsedLease
	for id, e := range s.tasks {
		if !clockNow.Before(e.expiresAt) || !leasable(e.rec.Task.Status.State) {
			continue
		}
		if l := e.rec.Lease; l.Held() && l.Until.Before(now) {
			out = append(out, store.LapsedLease{TaskID: id, Lease: l, Takeovers: e.rec.Takeovers})
		}
	}
	slices.SortFunc(out, func(a, b store.LapsedLease) int {
		return cmp.Or(a.Lease.Until.Compare(b.Lease.Until), cmp.Compare(a.TaskID, b.TaskID))
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// TakeOver implements store.LeaseStore.
func (s *Store) TakeOver(_ context.Context, l store.LapsedLease, owner string, until time.Time) (int, error) {
	return withTask(s, l.TaskID, func(e *entry, _ time.Time) (int, error) {
		cur := &e.rec
		if !cur.Lease.Held() || !leasable(cur.Task.Status.State) || cur.Lease.Owner != l.Lease.Owner || !cur.Lease.Until.Equal(l.Lease.Until) {
			return 0, &store.ConflictError{Reason: store.ConflictLease, State: cur.Task.Status.State, Version: cur.Version}
		}
		cur.Lease = store.Lease{Owner: owner, Until: until, Trigger: cur.Lease.Trigger}.Stored()
		cur.Takeovers++
		return cur.Takeovers, nil
	})
}

// leasable reports whether a task in state st can hold a lease: it is
// waiting for a runner or being run.
func leasable(st a2a.TaskState) bool {
	return st == a2a.TaskStateSubmitted || st == a2a.TaskStateWorking
}
