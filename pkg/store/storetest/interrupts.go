package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The interrupt part of the contract: a step records a pending interrupt,
// ActivateInterrupt shows it and creates its binding, ResolveInterrupt takes
// one reply, atomically with the task's update.

// The active and tombstone windows of the bindings the suite creates.
const (
	interruptTTL = 10 * time.Minute
	tombstoneTTL = 2 * time.Minute
)

// ask creates a working task with a pending interrupt (request id r-<taskID>).
func (s *suite) ask(owner, taskID string) (store.NewTask, *store.PendingInterrupt) {
	s.t.Helper()
	nt := s.newTask(owner, taskID, "ctx-"+taskID, "m-"+taskID)
	require.NoError(s.t, s.store.CreateTask(s.ctx, nt))
	s.update(store.Update{TaskID: taskID, Status: s.status(a2a.TaskStateWorking, nil)})
	q := agentMessage(taskID, "q-"+taskID, "Which colour?")
	q.ContextID = nt.Task.ContextID
	p := &store.PendingInterrupt{RequestID: "r-" + taskID, Type: a2a.InterruptQuestion, State: a2a.TaskStateInputRequired,
		Message: q, Details: map[string]any{"questions": []any{"Which colour?"}}}
	s.update(store.Update{TaskID: taskID, Pending: p, Checkpoint: []byte(`{"step":1}`)})
	return nt, p
}

func (s *suite) binding(nt store.NewTask, p *store.PendingInterrupt, token string) store.InterruptBinding {
	now := s.clock.Now()
	return store.InterruptBinding{
		RequestID: p.RequestID, TaskID: nt.Task.ID, ContextID: nt.Task.ContextID, Owner: nt.Owner, Type: p.Type,
		Details: p.Details, TaskToken: token, CreatedAt: now, ActiveUntil: now.Add(interruptTTL), ExpiresAt: now.Add(interruptTTL + tombstoneTTL),
	}
}

// activate shows the pending interrupt of a task made by ask.
func (s *suite) activate(owner, taskID string) (store.NewTask, store.InterruptBinding) {
	s.t.Helper()
	nt, p := s.ask(owner, taskID)
	b := s.binding(nt, p, "token-"+taskID)
	_, err := s.store.ActivateInterrupt(s.ctx, b, s.now())
	require.NoError(s.t, err)
	return nt, b
}

// interrupt reads the binding of a request, which must be found.
func (s *suite) interrupt(requestID string) *store.InterruptBinding {
	s.t.Helper()
	b, err := s.store.GetInterrupt(s.ctx, requestID)
	require.NoError(s.t, err)
	require.NotNil(s.t, b)
	return b
}

// reply is the update a reply makes: the user's answer and working again.
func (s *suite) reply(taskID string, version int64, msgID string) store.Update {
	m := userMessage(msgID, "blue")
	m.TaskID = taskID
	return store.Update{
		TaskID: taskID, IfVersion: version, IfStates: []a2a.TaskState{a2a.TaskStateInputRequired},
		Messages: []a2a.Message{m}, IdempotencyKey: msgID, Owner: "alice",
		Status: s.status(a2a.TaskStateWorking, agentMessage(taskID, "res-"+msgID, "Reply received.")),
	}
}

func testPendingInterrupt(t *testing.T, s *suite) {
	_, p := s.ask("alice", "t1")
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, a2a.TaskStateWorking, rec.Task.Status.State, "a pending interrupt is not shown")
	require.NotNil(t, rec.Pending)
	assert.Equal(t, p.RequestID, rec.Pending.RequestID)
	assert.Equal(t, p.State, rec.Pending.State)
	assert.Equal(t, p.Type, rec.Pending.Type)
	assert.Equal(t, "Which colour?", rec.Pending.Message.Text())
	jsonEqual(t, p.Details, rec.Pending.Details)
	assert.Len(t, rec.Task.History, 1, "the question is not in the history yet")
	assert.JSONEq(t, `{"step":1}`, string(rec.Checkpoint))
}

func testActivateInterrupt(t *testing.T, s *suite) {
	nt, p := s.ask("alice", "t1")
	before := s.get("t1", store.GetOptions{})
	b := s.binding(nt, p, "token-1")
	ts := s.now()
	v, err := s.store.ActivateInterrupt(s.ctx, b, ts)
	require.NoError(t, err)
	assert.Equal(t, before.Version+1, v)

	rec := s.get("t1", store.AllHistory)
	assert.Nil(t, rec.Pending)
	assert.Equal(t, a2a.TaskStateInputRequired, rec.Task.Status.State)
	assert.Equal(t, ts, rec.Task.Status.Timestamp)
	assert.Equal(t, "Which colour?", rec.Task.Status.Message.Text())
	assert.Equal(t, []string{"m-t1", "q-t1"}, messageIDs(rec.Task.History), "the question joins the history")

	got := s.interrupt(p.RequestID)
	assert.Equal(t, b.TaskID, got.TaskID)
	assert.Equal(t, b.ContextID, got.ContextID)
	assert.Equal(t, "alice", got.Owner)
	assert.Equal(t, a2a.InterruptQuestion, got.Type)
	assert.Equal(t, "token-1", got.TaskToken)
	assert.False(t, got.Resolved)
	assert.True(t, b.ActiveUntil.Equal(got.ActiveUntil))
	assert.True(t, b.ExpiresAt.Equal(got.ExpiresAt))
	jsonEqual(t, p.Details, got.Details)

	// A repeated activation (a retried invocation) replaces only the token.
	b.TaskToken = "token-2"
	v2, err := s.store.ActivateInterrupt(s.ctx, b, s.now())
	require.NoError(t, err)
	assert.Equal(t, v, v2)
	assert.Equal(t, "token-2", s.interrupt(p.RequestID).TaskToken)
	assert.Len(t, s.get("t1", store.AllHistory).Task.History, 2)

	// Nothing to activate: another request id, or an unknown task.
	other := b
	other.RequestID = "r-other"
	_, err = s.store.ActivateInterrupt(s.ctx, other, s.now())
	assert.ErrorIs(t, err, store.ErrNotFound)
	other.TaskID = "no-such-task"
	_, err = s.store.ActivateInterrupt(s.ctx, other, s.now())
	assert.ErrorIs(t, err, store.ErrNotFound)

	// A task canceled before its interrupt is shown stays canceled.
	nt3, p3 := s.ask("alice", "t3")
	s.update(store.Update{TaskID: "t3", Status: s.status(a2a.TaskStateCanceled, nil)})
	_, err = s.store.ActivateInterrupt(s.ctx, s.binding(nt3, p3, "x"), s.now())
	var ce *store.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, store.ConflictTerminal, ce.Reason)
	_, err = s.store.GetInterrupt(s.ctx, p3.RequestID)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testResolveInterrupt(t *testing.T, s *suite) {
	_, b := s.activate("alice", "t1")
	rec := s.get("t1", store.GetOptions{})
	v, err := s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a1"))
	require.NoError(t, err)
	assert.Equal(t, rec.Version+1, v)
	rec = s.get("t1", store.AllHistory)
	assert.Equal(t, a2a.TaskStateWorking, rec.Task.Status.State)
	assert.Equal(t, []string{"m-t1", "q-t1", "a1", "res-a1"}, messageIDs(rec.Task.History))
	assert.True(t, s.interrupt(b.RequestID).Resolved)

	// The same reply again is a duplicate (idempotency first); another
	// reply finds the binding resolved.
	_, err = s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a1"))
	var dup *store.DuplicateError
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, "t1", dup.TaskID)
	_, err = s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a2"))
	var ie *store.InterruptConflictError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, store.InterruptResolved, ie.Reason)

	_, err = s.store.ResolveInterrupt(s.ctx, "no-such-request", s.reply("t1", rec.Version, "a3"))
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// A reply whose task update is refused leaves the binding unresolved.
func testResolveIsAtomic(t *testing.T, s *suite) {
	_, b := s.activate("alice", "t1")
	rec := s.get("t1", store.GetOptions{})
	_, err := s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version-1, "a1"))
	var ce *store.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, store.ConflictVersion, ce.Reason)
	assert.False(t, s.interrupt(b.RequestID).Resolved, "the binding is not resolved by a refused reply")
	assert.Len(t, s.get("t1", store.AllHistory).Task.History, 2)

	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCanceled, nil)})
	rec = s.get("t1", store.GetOptions{})
	_, err = s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a2"))
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, store.ConflictTerminal, ce.Reason)
	assert.False(t, s.interrupt(b.RequestID).Resolved)
}

// Of many concurrent replies, exactly one is taken.
func testResolveOnce(t *testing.T, s *suite) {
	_, b := s.activate("alice", "t1")
	rec := s.get("t1", store.GetOptions{})
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a"+string(rune('a'+i))))
		}()
	}
	wg.Wait()
	taken := 0
	for _, err := range errs {
		if err == nil {
			taken++
		}
	}
	assert.Equal(t, 1, taken, "errors: %v", errs)
	assert.Len(t, s.get("t1", store.AllHistory).Task.History, 4)
}

func testInterruptExpiry(t *testing.T, s *suite) {
	_, b := s.activate("alice", "t1")
	rec := s.get("t1", store.GetOptions{})

	// After the active window: still found, but replies are refused.
	s.clock.Advance(interruptTTL)
	assert.False(t, s.interrupt(b.RequestID).Resolved)
	_, err := s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a1"))
	var ie *store.InterruptConflictError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, store.InterruptExpired, ie.Reason)

	// After the tombstone: gone.
	s.clock.Advance(tombstoneTTL)
	_, err = s.store.GetInterrupt(s.ctx, b.RequestID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.store.ResolveInterrupt(s.ctx, b.RequestID, s.reply("t1", rec.Version, "a2"))
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testListInterrupts(t *testing.T, s *suite) {
	_, first := s.activate("alice", "t1")
	s.clock.Advance(time.Second)
	_, second := s.activate("alice", "t2")
	s.activate("bob", "t3")
	s.ask("alice", "t4") // pending, not shown: not listed

	list, err := s.store.ListInterrupts(s.ctx, "alice")
	require.NoError(t, err)
	ids := []string{}
	for _, b := range list {
		ids = append(ids, b.RequestID)
		assert.Equal(t, "alice", b.Owner)
	}
	assert.Equal(t, []string{first.RequestID, second.RequestID}, ids, "the owner's, oldest first")

	rec := s.get("t1", store.GetOptions{})
	_, err = s.store.ResolveInterrupt(s.ctx, first.RequestID, s.reply("t1", rec.Version, "a1"))
	require.NoError(t, err)
	list, err = s.store.ListInterrupts(s.ctx, "alice")
	require.NoError(t, err)
	require.Len(t, list, 1, "resolved interrupts are not pending")
	assert.Equal(t, second.RequestID, list[0].RequestID)

	s.clock.Advance(interruptTTL)
	list, err = s.store.ListInterrupts(s.ctx, "alice")
	require.NoError(t, err)
	assert.Empty(t, list, "expired interrupts are not pending")
	none, err := s.store.ListInterrupts(s.ctx, "nobody")
	require.NoError(t, err)
	assert.Empty(t, none)
}

// testInterruptWindowsToTheSecond holds the store to the clock it is given:
// a binding takes replies until a second before its ActiveUntil and not a
// second after, and is kept as a tombstone until a second before its
// ExpiresAt and not a second after, whatever the wall clock says.
func testInterruptWindowsToTheSecond(t *testing.T, s *suite) {
	_, answered := s.activate("alice", "t1")
	s.clock.Advance(time.Second)
	_, ignored := s.activate("alice", "t2")
	pending := func() []string {
		list, err := s.store.ListInterrupts(s.ctx, "alice")
		require.NoError(t, err)
		ids := []string{}
		for _, b := range list {
			ids = append(ids, b.RequestID)
		}
		return ids
	}

	s.clock.Set(answered.ActiveUntil.Add(-time.Second))
	assert.Equal(t, []string{answered.RequestID, ignored.RequestID}, pending(), "active a second before the end")
	rec := s.get("t1", store.GetOptions{})
	_, err := s.store.ResolveInterrupt(s.ctx, answered.RequestID, s.reply("t1", rec.Version, "a1"))
	require.NoError(t, err, "a reply a second before the end is taken")

	s.clock.Set(ignored.ActiveUntil.Add(time.Second))
	assert.Empty(t, pending(), "expired a second after the end")
	rec = s.get("t2", store.GetOptions{})
	_, err = s.store.ResolveInterrupt(s.ctx, ignored.RequestID, s.reply("t2", rec.Version, "a2"))
	var ie *store.InterruptConflictError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, store.InterruptExpired, ie.Reason)

	s.clock.Set(ignored.ExpiresAt.Add(-time.Second))
	_, err = s.store.GetInterrupt(s.ctx, ignored.RequestID)
	require.NoError(t, err, "the tombstone is kept until a second before it expires")
	s.clock.Set(ignored.ExpiresAt.Add(time.Second))
	_, err = s.store.GetInterrupt(s.ctx, ignored.RequestID)
	assert.ErrorIs(t, err, store.ErrNotFound, "and gone a second after")
}
