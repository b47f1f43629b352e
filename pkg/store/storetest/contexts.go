package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// createIn stores a task of owner in contextID, bound to session, one
// second after the previous one.
func (s *suite) createIn(owner, taskID, contextID, session string) store.NewTask {
	s.t.Helper()
	s.clock.Advance(time.Second)
	nt := s.newTask(owner, taskID, contextID, "m-"+taskID)
	nt.SessionID = session
	require.NoError(s.t, s.store.CreateTask(s.ctx, nt))
	return nt
}

func (s *suite) context(owner, contextID string) *store.ContextRecord {
	s.t.Helper()
	c, err := s.store.GetContext(s.ctx, owner, contextID)
	require.NoError(s.t, err)
	session, err := s.store.ContextSession(s.ctx, owner, contextID)
	require.NoError(s.t, err)
	assert.Equal(s.t, c.SessionID, session, "ContextSession answers as GetContext")
	return c
}

// noContext asserts that an owner has no context with that id.
func (s *suite) noContext(owner, contextID, why string) {
	s.t.Helper()
	_, err := s.store.GetContext(s.ctx, owner, contextID)
	assert.ErrorIs(s.t, err, store.ErrNotFound, why)
	_, err = s.store.ContextSession(s.ctx, owner, contextID)
	assert.ErrorIs(s.t, err, store.ErrNotFound, "ContextSession: "+why)
}

func testContexts(t *testing.T, s *suite) {
	s.createIn("alice", "t1", "ctx-a", "session-1")
	s.createIn("alice", "t2", "ctx-b", "")
	second := s.createIn("alice", "t3", "ctx-a", "session-2")
	s.createIn("bob", "b1", "ctx-a", "session-b")

	assert.Equal(t, &store.ContextRecord{Owner: "alice", ContextID: "ctx-a", TaskCount: 2, UpdatedAt: second.Task.Status.Timestamp, SessionID: "session-1"},
		s.context("alice", "ctx-a"), "the first task's session stays bound")
	assert.Equal(t, 1, s.context("bob", "ctx-a").TaskCount, "contexts are per owner")
	assert.Equal(t, "session-b", s.context("bob", "ctx-a").SessionID)
	assert.Equal(t, "", s.context("alice", "ctx-b").SessionID)
	s.createIn("alice", "t4", "ctx-b", "session-3")
	assert.Equal(t, "session-3", s.context("alice", "ctx-b").SessionID, "a context without a session takes the next one")

	s.noContext("alice", "ctx-z", "never used")
	s.noContext("carol", "ctx-a", "another owner's")

	// A context of more tasks than a store reads at once keeps its session.
	for i := range 12 {
		s.createIn("dave", fmt.Sprint("d", i), "ctx-long", fmt.Sprint("session-d", i))
	}
	assert.Equal(t, "session-d0", s.context("dave", "ctx-long").SessionID)
}

// listContexts pages through an owner's contexts.
func listContexts(t *testing.T, s *suite, owner string, size int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 20 {
		page, err := s.store.ListContexts(s.ctx, store.ContextQuery{Owner: owner, PageSize: size, Cursor: cursor})
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Contexts), size)
		for _, c := range page.Contexts {
			require.Equal(t, owner, c.Owner)
			ids = append(ids, c.ContextID)
		}
		if page.NextCursor == "" {
			return ids
		}
		cursor = page.NextCursor
	}
	t.Fatal("the list did not end")
	return nil
}

func testListContexts(t *testing.T, s *suite) {
	s.createIn("alice", "t1", "ctx-a", "")
	s.createIn("alice", "t2", "ctx-b", "")
	s.createIn("alice", "t3", "ctx-c", "")
	s.createIn("alice", "t4", "ctx-a", "") // ctx-a is the most recent again
	s.createIn("bob", "b1", "ctx-q", "")
	// Two contexts updated at the same instant: ties by id, descending.
	for _, id := range []string{"ctx-x", "ctx-y"} {
		nt := s.newTask("carol", "c-"+id, id, "m-"+id)
		require.NoError(t, s.store.CreateTask(s.ctx, nt))
	}
	for _, size := range []int{1, 2, 50} {
		assert.Equal(t, []string{"ctx-a", "ctx-c", "ctx-b"}, listContexts(t, s, "alice", size), "page size %d", size)
		assert.Equal(t, []string{"ctx-y", "ctx-x"}, listContexts(t, s, "carol", size), "page size %d", size)
	}
	assert.Equal(t, []string{"ctx-q"}, listContexts(t, s, "bob", 10))
	assert.Empty(t, listContexts(t, s, "dave", 10))

	page, err := s.store.ListContexts(s.ctx, store.ContextQuery{Owner: "alice", PageSize: 1})
	require.NoError(t, err)
	require.Len(t, page.Contexts, 1)
	assert.Equal(t, 2, page.Contexts[0].TaskCount)

	_, err = s.store.ListContexts(s.ctx, store.ContextQuery{Owner: "alice", PageSize: 1, Cursor: "not a cursor"})
	var ae *a2a.Error
	require.ErrorAs(t, err, &ae, "a cursor this store did not issue is a bad param")
	assert.Equal(t, a2a.CodeInvalidParams, ae.Code)
}

func testClearContext(t *testing.T, s *suite) {
	s.createIn("alice", "t1", "ctx-a", "session-1")
	s.createIn("alice", "t2", "ctx-a", "")
	s.createIn("alice", "t3", "ctx-b", "")
	s.createIn("bob", "b1", "ctx-a", "")
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, nil)})
	s.update(store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateWorking, nil)})

	err := s.store.ClearContext(s.ctx, "alice", "ctx-a")
	var le *store.ContextLiveError
	require.ErrorAs(t, err, &le, "a context with a live task is not cleared: %v", err)
	assert.Equal(t, "t2", le.TaskID)
	assert.Equal(t, a2a.TaskStateWorking, le.State)
	s.get("t1", store.GetOptions{})
	assert.Equal(t, 2, s.context("alice", "ctx-a").TaskCount, "a refused clear changes nothing")

	s.update(store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateCanceled, nil)})
	require.NoError(t, s.store.ClearContext(s.ctx, "alice", "ctx-a"))
	for _, id := range []string{"t1", "t2"} {
		_, err := s.store.GetTask(s.ctx, id, store.AllHistory)
		assert.ErrorIs(t, err, store.ErrNotFound, "%s is gone", id)
		_, err = s.store.UpdateTask(s.ctx, store.Update{TaskID: id, Checkpoint: []byte(`{}`)})
		assert.ErrorIs(t, err, store.ErrNotFound, "%s takes no write", id)
	}
	page, err := s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", ContextID: "ctx-a", PageSize: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks)
	assert.Zero(t, page.Total)
	page, err = s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, page.Total, "only ctx-b's task is left")
	s.noContext("alice", "ctx-a", "cleared")
	assert.Equal(t, []string{"ctx-b"}, listContexts(t, s, "alice", 10))
	s.get("b1", store.GetOptions{})
	assert.Equal(t, 1, s.context("bob", "ctx-a").TaskCount, "another owner's context of the same id stays")

	assert.ErrorIs(t, s.store.ClearContext(s.ctx, "alice", "ctx-a"), store.ErrNotFound, "cleared twice")
	assert.ErrorIs(t, s.store.ClearContext(s.ctx, "alice", "ctx-z"), store.ErrNotFound)

	// The id can be used again: a new context, with a new session.
	s.createIn("alice", "t4", "ctx-a", "session-2")
	c := s.context("alice", "ctx-a")
	assert.Equal(t, 1, c.TaskCount)
	assert.Equal(t, "session-2", c.SessionID)
}

func testContextExpiry(t *testing.T, s *suite) {
	s.createIn("alice", "t1", "ctx-a", "session-1")
	s.createIn("alice", "t2", "ctx-b", "")
	s.clock.Advance(TaskTTL - time.Second) // t1 expires, t2 has a second left
	s.noContext("alice", "ctx-a", "a context expires with its last task")
	assert.Equal(t, []string{"ctx-b"}, listContexts(t, s, "alice", 10))
	assert.ErrorIs(t, s.store.ClearContext(s.ctx, "alice", "ctx-a"), store.ErrNotFound)

	// Its id starts a new context, with a session of its own.
	s.createIn("alice", "t3", "ctx-a", "session-2")
	assert.Equal(t, "session-2", s.context("alice", "ctx-a").SessionID)
	assert.Equal(t, 1, s.context("alice", "ctx-a").TaskCount)
}

// A context's UpdatedAt follows the newest status of its tasks, and the
// list follows it.
func testContextFollowsItsTasks(t *testing.T, s *suite) {
	s.createIn("alice", "t1", "ctx-a", "")
	s.createIn("alice", "t2", "ctx-b", "")
	assert.Equal(t, []string{"ctx-b", "ctx-a"}, listContexts(t, s, "alice", 1))
	s.clock.Advance(time.Second)
	st := s.status(a2a.TaskStateWorking, nil)
	s.update(store.Update{TaskID: "t1", Status: st})
	assert.Equal(t, st.Timestamp, s.context("alice", "ctx-a").UpdatedAt)
	assert.Equal(t, []string{"ctx-a", "ctx-b"}, listContexts(t, s, "alice", 1))
}

func testFeedback(t *testing.T, s *suite) {
	s.create("t1")
	f := store.Feedback{Rating: 4, Comment: "good", CreatedAt: s.clock.Now().UTC()}
	err := s.store.SetFeedback(s.ctx, "t1", f)
	requireConflict(t, err, store.ConflictState, a2a.TaskStateSubmitted, 1)
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, nil)})

	require.NoError(t, s.store.SetFeedback(s.ctx, "t1", f))
	rec := s.get("t1", store.GetOptions{})
	require.NotNil(t, rec.Feedback)
	assert.Equal(t, 4, rec.Feedback.Rating)
	assert.Equal(t, "good", rec.Feedback.Comment)
	assert.True(t, f.CreatedAt.Equal(rec.Feedback.CreatedAt))
	assert.Equal(t, v, rec.Version, "feedback does not change the version")

	f2 := store.Feedback{Rating: 1, CreatedAt: s.clock.Now().UTC()}
	require.NoError(t, s.store.SetFeedback(s.ctx, "t1", f2))
	rec = s.get("t1", store.AllHistory)
	assert.Equal(t, 1, rec.Feedback.Rating, "later feedback replaces earlier")
	assert.Empty(t, rec.Feedback.Comment)
	assert.Nil(t, s.get("t1", store.GetOptions{}).Pending)

	assert.ErrorIs(t, s.store.SetFeedback(s.ctx, "nope", f), store.ErrNotFound)
	s.clock.Advance(TaskTTL)
	assert.ErrorIs(t, s.store.SetFeedback(s.ctx, "t1", f), store.ErrNotFound, "an expired task")
}
