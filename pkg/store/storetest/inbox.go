package storetest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// inboxMessage is a user message sent to a working task.
func inboxMessage(taskID, id string) a2a.Message {
	m := userMessage(id, "more from "+id)
	m.TaskID, m.ContextID = taskID, "ctx-"+taskID
	return m
}

// testInbox: messages of updates with Inbox set join the history and the
// inbox in one step, without changing the version; a take returns them
// oldest first, once, without changing the version; the count follows.
func testInbox(t *testing.T, s *suite) {
	s.create("t1")
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	assert.Empty(t, mustTake(t, s, "t1"), "a new task's inbox is empty")
	assert.Zero(t, s.get("t1", store.GetOptions{}).Inbox)

	before := v
	v = s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", "in-1")}, Inbox: true,
		IdempotencyKey: "in-1", Owner: "alice"})
	assert.Equal(t, before, v, "an inbox message leaves the version alone")
	_, err := s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1", Messages: []a2a.Message{inboxMessage("t1", "in-1")}, Inbox: true,
		IdempotencyKey: "in-1", Owner: "alice"})
	var dup *store.DuplicateError
	require.ErrorAs(t, err, &dup, "a retried message is recognised")
	assert.Equal(t, "t1", dup.TaskID)
	v = s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", "in-2"), inboxMessage("t1", "in-3")}, Inbox: true})
	s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", "not-in-inbox")}})
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, 3, rec.Inbox)
	assert.Equal(t, []string{"m-t1", "in-1", "in-2", "in-3", "not-in-inbox"}, messageIDs(rec.Task.History), "inbox messages are history too")
	one := s.get("t1", store.GetOptions{HistoryLength: 1})
	assert.Equal(t, []string{"not-in-inbox"}, messageIDs(one.Task.History))

	taken := mustTake(t, s, "t1")
	assert.Equal(t, []string{"in-1", "in-2", "in-3"}, messageIDs(taken), "oldest first")
	jsonEqual(t, inboxMessage("t1", "in-2"), taken[1])
	after := s.get("t1", store.GetOptions{})
	assert.Zero(t, after.Inbox)
	assert.Equal(t, rec.Version, after.Version, "a take does not change the version")
	assert.Empty(t, mustTake(t, s, "t1"), "each message is taken once")

	v = s.update(store.Update{TaskID: "t1", IfVersion: after.Version, Messages: []a2a.Message{inboxMessage("t1", "in-4")}, Inbox: true})
	assert.Equal(t, []string{"in-4"}, messageIDs(mustTake(t, s, "t1")), "later messages come later")

	// The inbox takes at most MaxInboxTake at once; the rest wait.
	for i := range store.MaxInboxTake + 2 {
		v = s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", id("bulk", i))}, Inbox: true})
	}
	first := mustTake(t, s, "t1")
	require.Len(t, first, store.MaxInboxTake)
	assert.Equal(t, id("bulk", 0), first[0].MessageID)
	assert.Equal(t, 2, s.get("t1", store.GetOptions{}).Inbox)
	assert.Equal(t, []string{id("bulk", store.MaxInboxTake), id("bulk", store.MaxInboxTake+1)}, messageIDs(mustTake(t, s, "t1")))

	assert.Empty(t, mustTake(t, s, "no-such-task"), "an unknown task has no inbox")
}

// testInboxTakenOnce: concurrent takes share the messages: each exactly
// once, each take's in order.
func testInboxTakenOnce(t *testing.T, s *suite) {
	s.create("t1")
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	const n = 12
	for i := range n {
		v = s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", id("c", i))}, Inbox: true})
	}
	var (
		mu  sync.Mutex
		all []string
		wg  sync.WaitGroup
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := s.store.TakeInbox(s.ctx, "t1")
			assert.NoError(t, err)
			ids := messageIDs(got)
			assert.IsIncreasing(t, ids, "one take's messages are in order")
			mu.Lock()
			all = append(all, ids...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	all = append(all, messageIDs(mustTake(t, s, "t1"))...)
	want := make([]string, n)
	for i := range n {
		want[i] = id("c", i)
	}
	assert.ElementsMatch(t, want, all, "every message taken exactly once")
	assert.Zero(t, s.get("t1", store.GetOptions{}).Inbox)
}

// testInboxUnderContention: messages sent at once to a task at work, as
// a client's burst is, each with its idempotency key, are all taken: each
// append succeeds once, each message is in the history once and comes out
// of the inbox once.
func testInboxUnderContention(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1", IfStates: []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking},
				Messages: []a2a.Message{inboxMessage("t1", id("burst", i))}, Inbox: true, IdempotencyKey: id("burst", i), Owner: "alice"})
		})
	}
	wg.Wait()
	want := make([]string, n)
	for i, err := range errs {
		assert.NoError(t, err, "message %d", i)
		want[i] = id("burst", i)
	}
	rec := s.get("t1", store.AllHistory)
	var inHistory []string
	for _, m := range rec.Task.History[1:] {
		inHistory = append(inHistory, m.MessageID)
	}
	assert.ElementsMatch(t, want, inHistory, "each message once in the history")
	assert.Equal(t, n, rec.Inbox)
	var taken []string
	for len(taken) < n {
		got := mustTake(t, s, "t1")
		require.NotEmpty(t, got, "the inbox holds every message")
		taken = append(taken, messageIDs(got)...)
	}
	assert.ElementsMatch(t, want, taken, "each message out of the inbox once")
}

// testInboxExpiry: the inbox lives and expires with its task.
func testInboxExpiry(t *testing.T, s *suite) {
	s.create("t1")
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	s.update(store.Update{TaskID: "t1", IfVersion: v, Messages: []a2a.Message{inboxMessage("t1", "in-1")}, Inbox: true})
	s.clock.Advance(TaskTTL / 2)
	s.update(store.Update{TaskID: "t1", Messages: []a2a.Message{inboxMessage("t1", "in-2")}, Inbox: true})
	s.clock.Advance(TaskTTL - TaskTTL/4)
	assert.Equal(t, []string{"in-1", "in-2"}, messageIDs(mustTake(t, s, "t1")), "kept while the task lives")
	s.update(store.Update{TaskID: "t1", Messages: []a2a.Message{inboxMessage("t1", "in-3")}, Inbox: true})
	s.clock.Advance(TaskTTL + 1)
	assert.Empty(t, mustTake(t, s, "t1"), "an expired task has no inbox")
}

func mustTake(t *testing.T, s *suite, taskID string) []a2a.Message {
	t.Helper()
	got, err := s.store.TakeInbox(s.ctx, taskID)
	require.NoError(t, err)
	return got
}
