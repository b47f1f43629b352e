package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// leaseOf returns the lease of a task read back.
func (s *suite) leaseOf(taskID string) store.Lease {
	s.t.Helper()
	return s.get(taskID, store.GetOptions{}).Lease
}

func requireLease(t *testing.T, want store.Lease, got store.Lease) {
	t.Helper()
	require.True(t, got.Held(), "want lease %+v, got none", want)
	assert.Equal(t, want.Owner, got.Owner)
	assert.Equal(t, want.Trigger, got.Trigger)
	assert.True(t, want.Until.Truncate(store.LeaseTime).Equal(got.Until), "lease until %v, want %v", got.Until, want.Until)
}

// A lease is written with a new task and with updates, renewed by its
// owner only, without changing the task's version, and removed on request.
func testLeaseLifecycle(t *testing.T, s *suite) {
	first := store.Lease{Until: s.clock.Now().Add(time.Minute + 123456789), Trigger: store.TriggerMessage}
	nt := s.newTask("alice", "t1", "ctx-t1", "m-t1")
	nt.Lease = first
	require.NoError(t, s.store.CreateTask(s.ctx, nt))
	requireLease(t, first, s.leaseOf("t1"))
	assert.Equal(t, 0, s.get("t1", store.GetOptions{}).Takeovers)

	step := store.Lease{Owner: "step-a", Until: s.clock.Now().Add(2 * time.Minute), Trigger: store.TriggerMessage}
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil), Lease: step})
	requireLease(t, step, s.leaseOf("t1"))

	step.Until = s.clock.Now().Add(3 * time.Minute)
	require.NoError(t, s.store.RenewLease(s.ctx, "t1", "step-a", step.Until))
	requireLease(t, step, s.leaseOf("t1"))
	assert.Equal(t, v, s.get("t1", store.GetOptions{}).Version, "a renewal is not a new version")

	err := s.store.RenewLease(s.ctx, "t1", "step-b", s.clock.Now().Add(time.Hour))
	requireConflict(t, err, store.ConflictLease, a2a.TaskStateWorking, v)
	requireLease(t, step, s.leaseOf("t1"))

	// An update without lease fields keeps the lease.
	v = s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "p1", "halfway"))})
	requireLease(t, step, s.leaseOf("t1"))

	s.update(store.Update{TaskID: "t1", ClearLease: true})
	assert.Zero(t, s.leaseOf("t1"))
	err = s.store.RenewLease(s.ctx, "t1", "step-a", s.clock.Now().Add(time.Hour))
	requireConflict(t, err, store.ConflictLease, a2a.TaskStateWorking, v+1)

	assert.ErrorIs(t, s.store.RenewLease(s.ctx, "nope", "step-a", s.clock.Now()), store.ErrNotFound)
}

// A task that becomes terminal, or shows an interrupt, loses its lease; a
// terminal task's lease cannot be renewed.
func testLeaseEndsWithTheRun(t *testing.T, s *suite) {
	lease := store.Lease{Owner: "step-a", Until: s.clock.Now().Add(time.Minute), Trigger: store.TriggerMessage}
	s.create("done")
	v := s.update(store.Update{TaskID: "done", Status: s.status(a2a.TaskStateCompleted, nil), Lease: lease})
	assert.Zero(t, s.leaseOf("done"), "a terminal task holds no lease, whatever the update says")
	err := s.store.RenewLease(s.ctx, "done", "step-a", s.clock.Now().Add(time.Hour))
	requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, v)

	nt, p := s.ask("alice", "asks")
	s.update(store.Update{TaskID: "asks", Lease: lease})
	requireLease(t, lease, s.leaseOf("asks"))
	_, err = s.store.ActivateInterrupt(s.ctx, s.binding(nt, p, "token"), s.now())
	require.NoError(t, err)
	assert.Zero(t, s.leaseOf("asks"), "a task waiting for its client holds no lease")
}

// LapsedLeases lists the submitted and working tasks whose lease ended
// before the given time, longest lapsed first, at most limit.
func testLapsedLeases(t *testing.T, s *suite) {
	now := s.clock.Now()
	leases := map[string]time.Duration{"late-3": 30 * time.Second, "late-1": 10 * time.Second, "late-2": 20 * time.Second, "later": 5 * time.Minute}
	for id, d := range leases {
		nt := s.newTask("alice", id, "ctx-"+id, "m-"+id)
		nt.Lease = store.Lease{Until: now.Add(d), Trigger: store.TriggerMessage}
		require.NoError(t, s.store.CreateTask(s.ctx, nt))
	}
	s.create("no-lease")
	nt := s.newTask("alice", "finished", "ctx-f", "m-f")
	nt.Lease = store.Lease{Until: now.Add(time.Second)}
	require.NoError(t, s.store.CreateTask(s.ctx, nt))
	s.update(store.Update{TaskID: "finished", Status: s.status(a2a.TaskStateCanceled, nil)})

	got, err := s.store.LapsedLeases(s.ctx, now, 10)
	require.NoError(t, err)
	assert.Empty(t, got, "no lease has lapsed yet")

	s.clock.Advance(time.Minute)
	got, err = s.store.LapsedLeases(s.ctx, s.clock.Now(), 10)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, want := range []string{"late-1", "late-2", "late-3"} {
		assert.Equal(t, want, got[i].TaskID)
		assert.True(t, now.Add(leases[want]).Truncate(store.LeaseTime).Equal(got[i].Lease.Until))
		assert.Equal(t, store.TriggerMessage, got[i].Lease.Trigger)
		assert.Zero(t, got[i].Takeovers)
	}
	got, err = s.store.LapsedLeases(s.ctx, s.clock.Now(), 2)
	require.NoError(t, err)
	assert.Len(t, got, 2, "limit")

	// Expired tasks are gone, leases and all.
	s.clock.Advance(TaskTTL)
	got, err = s.store.LapsedLeases(s.ctx, s.clock.Now(), 10)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// Of two takeovers of the same lapsed lease one wins; the loser and the
// previous owner are told the lease moved.
func testTakeOver(t *testing.T, s *suite) {
	s.create("t1")
	lease := store.Lease{Owner: "step-a", Until: s.clock.Now().Add(time.Minute), Trigger: store.TriggerReply}
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil), Lease: lease})
	s.clock.Advance(2 * time.Minute)
	lapsed, err := s.store.LapsedLeases(s.ctx, s.clock.Now(), 10)
	require.NoError(t, err)
	require.Len(t, lapsed, 1)

	until := s.clock.Now().Add(time.Minute)
	n, err := s.store.TakeOver(s.ctx, lapsed[0], "sweep-1", until)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	rec := s.get("t1", store.GetOptions{})
	requireLease(t, store.Lease{Owner: "sweep-1", Until: until, Trigger: store.TriggerReply}, rec.Lease)
	assert.Equal(t, 1, rec.Takeovers)
	assert.Equal(t, v, rec.Version, "a takeover is not a new version")

	_, err = s.store.TakeOver(s.ctx, lapsed[0], "sweep-2", until)
	requireConflict(t, err, store.ConflictLease, a2a.TaskStateWorking, v)
	err = s.store.RenewLease(s.ctx, "t1", "step-a", s.clock.Now().Add(time.Hour))
	requireConflict(t, err, store.ConflictLease, a2a.TaskStateWorking, v)

	// The count goes on with the next takeover.
	s.clock.Advance(2 * time.Minute)
	lapsed, err = s.store.LapsedLeases(s.ctx, s.clock.Now(), 10)
	require.NoError(t, err)
	require.Len(t, lapsed, 1)
	assert.Equal(t, 1, lapsed[0].Takeovers)
	n, err = s.store.TakeOver(s.ctx, lapsed[0], "sweep-2", s.clock.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	// A finished task cannot be taken over.
	lapsed[0].Lease = s.leaseOf("t1")
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateFailed, nil)})
	_, err = s.store.TakeOver(s.ctx, lapsed[0], "sweep-3", s.clock.Now().Add(time.Minute))
	var ce *store.ConflictError
	require.ErrorAs(t, err, &ce)

	_, err = s.store.TakeOver(s.ctx, store.LapsedLease{TaskID: "nope", Lease: lease}, "sweep-1", until)
	assert.ErrorIs(t, err, store.ErrNotFound)
}
