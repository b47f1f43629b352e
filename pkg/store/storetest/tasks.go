package storetest

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

func testCreateAndGet(t *testing.T, s *suite) {
	nt := s.newTask("alice", "t1", "c1", "m1")
	nt.Task.Metadata = a2a.Metadata{"origin": "test", "n": json.Number("12345678901234567890")}
	nt.RequestMetadata = a2a.Metadata{"trace": "abc", "nested": map[string]any{"k": []any{"x", true}}}
	nt.SessionID = "session-1"
	require.NoError(t, s.store.CreateTask(s.ctx, nt))

	rec := s.get("t1", store.AllHistory)
	jsonEqual(t, nt.Task, rec.Task)
	assert.Equal(t, "alice", rec.Owner)
	assert.Equal(t, int64(1), rec.Version)
	assert.True(t, rec.CreatedAt.Equal(s.start), "CreatedAt %v", rec.CreatedAt)
	assert.True(t, rec.UpdatedAt.Equal(s.start), "UpdatedAt %v", rec.UpdatedAt)
	assert.Nil(t, rec.Checkpoint)
	jsonEqual(t, nt.RequestMetadata, rec.RequestMetadata)
	assert.Equal(t, "session-1", rec.SessionID, "the session is kept with the task")
	assert.Empty(t, rec.Task.Artifacts)

	// An update moves UpdatedAt and the version, not CreatedAt.
	s.clock.Advance(5 * time.Second)
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	assert.Equal(t, int64(2), v)
	rec = s.get("t1", store.GetOptions{})
	assert.Equal(t, int64(2), rec.Version)
	assert.True(t, rec.CreatedAt.Equal(s.start))
	assert.True(t, rec.UpdatedAt.Equal(s.start.Add(5*time.Second)), "UpdatedAt %v", rec.UpdatedAt)
	assert.Equal(t, a2a.TaskStateWorking, rec.Task.Status.State)
	jsonEqual(t, nt.Task.Metadata, rec.Task.Metadata)
	assert.Equal(t, "session-1", rec.SessionID)
	page, err := s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 1)
	assert.Equal(t, "session-1", page.Tasks[0].SessionID, "lists carry it too")
}

func testCreateNeedsOneMessage(t *testing.T, s *suite) {
	for _, n := range []int{0, 2} {
		nt := s.newTask("alice", "t1", "c1", "m1")
		if n == 0 {
			nt.Task.History = nil
		} else {
			nt.Task.History = append(nt.Task.History, userMessage("m2", "second"))
		}
		err := s.store.CreateTask(s.ctx, nt)
		require.Error(t, err, "%d messages", n)
		assert.NotErrorIs(t, err, store.ErrTooLarge)
		_, err = s.store.GetTask(s.ctx, "t1", store.GetOptions{})
		assert.ErrorIs(t, err, store.ErrNotFound, "a refused create stored the task")
	}
}

func testGetUnknown(t *testing.T, s *suite) {
	s.create("t1")
	for _, taskID := range []string{"t2", "T1", strings.Repeat("x", 3000)} {
		_, err := s.store.GetTask(s.ctx, taskID, store.AllHistory)
		assert.ErrorIs(t, err, store.ErrNotFound, "task %.20q", taskID)
	}
}

func testIdempotentCreate(t *testing.T, s *suite) {
	require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t1", "c1", "m1")))

	// The same (owner, messageId) again: the first task, nothing written.
	err := s.store.CreateTask(s.ctx, s.newTask("alice", "t2", "c2", "m1"))
	requireDuplicate(t, err, "t1")
	_, err = s.store.GetTask(s.ctx, "t2", store.GetOptions{})
	assert.ErrorIs(t, err, store.ErrNotFound, "a duplicate send created a task")

	// Another owner may use the same message id.
	require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("bob", "t3", "c3", "m1")))
	assert.Equal(t, "bob", s.get("t3", store.GetOptions{}).Owner)
}

// historyTask builds t1 with history [m1 u2 s1 s2 u3] and artifacts [a1 a2],
// at version 5, its status message s2.
func historyTask(s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", IfVersion: 1, Messages: []a2a.Message{userMessage("u2", "two")},
		Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s1", "working on it"))})
	s.update(store.Update{TaskID: "t1", IfVersion: 2, Artifacts: []a2a.Artifact{textArtifact("a1", "x"), textArtifact("a2", "y")}})
	s.update(store.Update{TaskID: "t1", IfVersion: 3, Status: s.status(a2a.TaskStateInputRequired, agentMessage("t1", "s2", "which one?"))})
	s.update(store.Update{TaskID: "t1", IfVersion: 4, Messages: []a2a.Message{userMessage("u3", "three")}})
}

func testHistoryAndArtifactsRead(t *testing.T, s *suite) {
	historyTask(s)
	all := []string{"m-t1", "u2", "s1", "s2", "u3"}
	for _, tc := range []struct {
		name      string
		opts      store.GetOptions
		history   []string
		artifacts []string
	}{
		{"nothing", store.GetOptions{HistoryLength: 0}, []string{}, []string{}},
		{"artifacts only", store.GetOptions{HistoryLength: 0, IncludeArtifacts: true}, []string{}, []string{"a1", "a2"}},
		{"newest message", store.GetOptions{HistoryLength: 1}, []string{"u3"}, []string{}},
		{"two newest", store.GetOptions{HistoryLength: 2}, []string{"s2", "u3"}, []string{}},
		{"two newest with artifacts", store.GetOptions{HistoryLength: 2, IncludeArtifacts: true}, []string{"s2", "u3"}, []string{"a1", "a2"}},
		{"one with artifacts", store.GetOptions{HistoryLength: 1, IncludeArtifacts: true}, []string{"u3"}, []string{"a1", "a2"}},
		{"exactly all", store.GetOptions{HistoryLength: 5, IncludeArtifacts: true}, all, []string{"a1", "a2"}},
		{"more than all", store.GetOptions{HistoryLength: 100}, all, []string{}},
		{"all", store.GetOptions{HistoryLength: -1}, all, []string{}},
		{"all with artifacts", store.AllHistory, all, []string{"a1", "a2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := s.get("t1", tc.opts)
			assert.Equal(t, tc.history, messageIDs(rec.Task.History))
			assert.Equal(t, tc.artifacts, artifactIDs(rec.Task.Artifacts))
			assert.Equal(t, int64(5), rec.Version)
			assert.Equal(t, a2a.TaskStateInputRequired, rec.Task.Status.State)
			require.NotNil(t, rec.Task.Status.Message, "the status message is part of the task, whatever the history length")
			assert.Equal(t, "s2", rec.Task.Status.Message.MessageID)
		})
	}
	// Messages keep their content and order.
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, a2a.RoleAgent, rec.Task.History[2].Role)
	assert.Equal(t, "working on it", rec.Task.History[2].Text())
	assert.Equal(t, "three", rec.Task.History[4].Text())
}

func testMessagesThenStatusMessage(t *testing.T, s *suite) {
	s.create("t1")
	v := s.update(store.Update{
		TaskID:   "t1",
		Messages: []a2a.Message{userMessage("u1", "one"), userMessage("u2", "two")},
		Status:   s.status(a2a.TaskStateWorking, agentMessage("t1", "s1", "status")),
	})
	assert.Equal(t, int64(2), v)
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, []string{"m-t1", "u1", "u2", "s1"}, messageIDs(rec.Task.History))
	assert.Equal(t, "s1", rec.Task.Status.Message.MessageID)

	// A status without a message replaces the status message; history stays.
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	rec = s.get("t1", store.AllHistory)
	assert.Nil(t, rec.Task.Status.Message)
	assert.Equal(t, []string{"m-t1", "u1", "u2", "s1"}, messageIDs(rec.Task.History))
}

func testStaleVersion(t *testing.T, s *suite) {
	s.create("t1")
	assert.Equal(t, int64(2), s.update(store.Update{TaskID: "t1", IfVersion: 1, Status: s.status(a2a.TaskStateWorking, nil)}))

	_, err := s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1", IfVersion: 1,
		Messages: []a2a.Message{userMessage("late", "late")}, Status: s.status(a2a.TaskStateInputRequired, nil)})
	requireConflict(t, err, store.ConflictVersion, a2a.TaskStateWorking, 2)

	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, int64(2), rec.Version, "a refused update changed the version")
	assert.Equal(t, a2a.TaskStateWorking, rec.Task.Status.State)
	assert.Equal(t, []string{"m-t1"}, messageIDs(rec.Task.History), "a refused update appended messages")
}

func testIfStates(t *testing.T, s *suite) {
	s.create("t1")
	_, err := s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1",
		IfStates: []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired},
		Status:   s.status(a2a.TaskStateWorking, nil)})
	requireConflict(t, err, store.ConflictState, a2a.TaskStateSubmitted, 1)

	v := s.update(store.Update{TaskID: "t1", IfVersion: 1,
		IfStates: []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateSubmitted},
		Status:   s.status(a2a.TaskStateWorking, nil)})
	assert.Equal(t, int64(2), v)
}

func testTerminalIsFinal(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", IfVersion: 1, Status: s.status(a2a.TaskStateCompleted, agentMessage("t1", "done", "done"))})
	for _, tc := range []struct {
		name string
		u    store.Update
	}{
		{"unconditional cancel", store.Update{Status: s.status(a2a.TaskStateCanceled, nil)}},
		{"cancel at the current version", store.Update{IfVersion: 2, Status: s.status(a2a.TaskStateCanceled, nil)}},
		{"at a stale version", store.Update{IfVersion: 1, Status: s.status(a2a.TaskStateFailed, nil)}},
		{"if completed", store.Update{IfStates: []a2a.TaskState{a2a.TaskStateCompleted}, Status: s.status(a2a.TaskStateWorking, nil)}},
		{"a message", store.Update{Messages: []a2a.Message{userMessage("more", "more")}}},
		{"an artifact", store.Update{Artifacts: []a2a.Artifact{textArtifact("a1", "late")}}},
		{"a checkpoint", store.Update{Checkpoint: json.RawMessage(`{"x":1}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.u.TaskID = "t1"
			_, err := s.store.UpdateTask(s.ctx, tc.u)
			requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 2)
		})
	}
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State)
	assert.Equal(t, int64(2), rec.Version)
	assert.Equal(t, []string{"m-t1", "done"}, messageIDs(rec.Task.History))
	assert.Empty(t, rec.Task.Artifacts)
	assert.Nil(t, rec.Checkpoint)
}

func testUpdateUnknown(t *testing.T, s *suite) {
	for _, u := range []store.Update{
		{TaskID: "nope", Status: s.status(a2a.TaskStateWorking, nil)},
		{TaskID: "nope", IfVersion: 1, Messages: []a2a.Message{userMessage("x", "x")}, IdempotencyKey: "x", Owner: "alice"},
		{TaskID: strings.Repeat("y", 3000), Status: s.status(a2a.TaskStateCanceled, nil)},
	} {
		_, err := s.store.UpdateTask(s.ctx, u)
		assert.ErrorIs(t, err, store.ErrNotFound)
	}
}

// Artifacts are listed in the order they were first stored (not by id).
func testArtifacts(t *testing.T, s *suite) {
	s.create("t1")
	for _, step := range []struct {
		name    string
		arts    []a2a.Artifact
		append  bool
		want    []a2a.Artifact
		version int64
	}{
		{"new", []a2a.Artifact{textArtifact("zeta", "p1")}, false,
			[]a2a.Artifact{textArtifact("zeta", "p1")}, 2},
		{"append to it", []a2a.Artifact{textArtifact("zeta", "p2")}, true,
			[]a2a.Artifact{textArtifact("zeta", "p1", "p2")}, 3},
		{"append creates", []a2a.Artifact{textArtifact("beta", "q1")}, true,
			[]a2a.Artifact{textArtifact("zeta", "p1", "p2"), textArtifact("beta", "q1")}, 4},
		{"replace keeps its place", []a2a.Artifact{textArtifact("zeta", "p3")}, false,
			[]a2a.Artifact{textArtifact("zeta", "p3"), textArtifact("beta", "q1")}, 5},
		{"several in one update", []a2a.Artifact{textArtifact("mu", "r1"), textArtifact("zeta", "p4"), textArtifact("mu", "r2")}, true,
			[]a2a.Artifact{textArtifact("zeta", "p3", "p4"), textArtifact("beta", "q1"), textArtifact("mu", "r1", "r2")}, 6},
	} {
		v := s.update(store.Update{TaskID: "t1", IfVersion: step.version - 1, Artifacts: step.arts, AppendArtifact: step.append, ArtifactLastChunk: step.append})
		assert.Equal(t, step.version, v, step.name)
		rec := s.get("t1", store.GetOptions{IncludeArtifacts: true})
		jsonEqual(t, step.want, rec.Task.Artifacts, step.name)
	}
	// Artifacts carry their metadata and names.
	art := textArtifact("alpha", "s1")
	art.Description, art.Metadata = "described", a2a.Metadata{"k": "v"}
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{art}})
	rec := s.get("t1", store.GetOptions{IncludeArtifacts: true})
	require.Len(t, rec.Task.Artifacts, 4)
	jsonEqual(t, art, rec.Task.Artifacts[3])
}

func testCheckpointAndRequestMetadata(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", Checkpoint: json.RawMessage(`{"step":1}`), RequestMetadata: a2a.Metadata{"r": "1"}})
	rec := s.get("t1", store.GetOptions{})
	assert.JSONEq(t, `{"step":1}`, string(rec.Checkpoint))
	jsonEqual(t, a2a.Metadata{"r": "1"}, rec.RequestMetadata)

	// nil keeps both.
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)})
	rec = s.get("t1", store.GetOptions{})
	assert.JSONEq(t, `{"step":1}`, string(rec.Checkpoint))
	jsonEqual(t, a2a.Metadata{"r": "1"}, rec.RequestMetadata)

	// An empty checkpoint clears it; new metadata replaces the old.
	s.update(store.Update{TaskID: "t1", Checkpoint: json.RawMessage{}, RequestMetadata: a2a.Metadata{"r": "2"}})
	rec = s.get("t1", store.GetOptions{})
	assert.Nil(t, rec.Checkpoint)
	jsonEqual(t, a2a.Metadata{"r": "2"}, rec.RequestMetadata)
}

// An update that finishes a task with its status message and whole
// artifacts (what most steps end with) reads back as any other: the status
// message last in the history, a whole artifact replacing the chunks
// streamed under its id in their place, new artifacts after the others.
func testFinishWithArtifacts(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, agentMessage("t1", "s1", "working"))})
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("zeta", "chunk 1")}, AppendArtifact: true})
	s.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("beta", "whole")}, ArtifactLastChunk: true})
	v := s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, agentMessage("t1", "done", "Done.")),
		Artifacts: []a2a.Artifact{textArtifact("zeta", "all of it"), textArtifact("omega", "new"), textArtifact("zeta", "all of it, again")}, ArtifactLastChunk: true})
	assert.EqualValues(t, 5, v)
	rec := s.get("t1", store.AllHistory)
	jsonEqual(t, []a2a.Artifact{textArtifact("zeta", "all of it, again"), textArtifact("beta", "whole"), textArtifact("omega", "new")}, rec.Task.Artifacts)
	var texts []string
	for _, m := range rec.Task.History {
		texts = append(texts, m.Parts[0].Text)
	}
	assert.Equal(t, []string{"hello from m-t1", "working", "Done."}, texts)
	last := s.get("t1", store.GetOptions{HistoryLength: 1})
	require.Len(t, last.Task.History, 1)
	assert.Equal(t, "done", last.Task.History[0].MessageID)
	assert.Equal(t, a2a.TaskStateCompleted, last.Task.Status.State)
	// Nothing changes it any more.
	_, err := s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{textArtifact("zeta", "late")}})
	requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 5)
}

// A refused message says what the service needs to tell a retry from
// another message under the same id: the task, the first send's
// fingerprint and, for the message's own task, when it was created; a
// continuation's record has no time (it lives as long as the window). A
// task left without a record (NoRecord) does not hold its message id.
func testDuplicateSaysWhichSend(t *testing.T, s *suite) {
	own := store.TaskIDFor("alice", "m1")
	nt := s.newTask("alice", own, "c1", "m1")
	nt.Fingerprint = "fp-first"
	require.NoError(t, s.store.CreateTask(s.ctx, nt))
	created := s.clock.Now()
	s.clock.Advance(time.Minute)
	var dup *store.DuplicateError
	require.ErrorAs(t, s.store.CreateTask(s.ctx, nt), &dup)
	assert.Equal(t, own, dup.TaskID)
	assert.Equal(t, "fp-first", dup.Fingerprint)
	assert.True(t, created.Truncate(time.Millisecond).Equal(dup.CreatedAt.Truncate(time.Millisecond)), "created %s, told %s", created, dup.CreatedAt)
	assert.Equal(t, "fp-first", s.get(own, store.GetOptions{}).Fingerprint)

	s.update(store.Update{TaskID: own, Status: s.status(a2a.TaskStateWorking, nil)})
	reply := userMessage("m2", "more")
	reply.TaskID, reply.ContextID = own, "c1"
	u := store.Update{TaskID: own, Messages: []a2a.Message{reply}, Inbox: true, IdempotencyKey: "m2", Owner: "alice", Fingerprint: "fp-reply"}
	_, err := s.store.UpdateTask(s.ctx, u)
	require.NoError(t, err)
	_, err = s.store.UpdateTask(s.ctx, u)
	require.ErrorAs(t, err, &dup)
	assert.Equal(t, own, dup.TaskID)
	assert.Equal(t, "fp-reply", dup.Fingerprint)
	assert.True(t, dup.CreatedAt.IsZero())

	// Without records, one message id makes as many tasks as sends.
	for _, id := range []string{"free-1", "free-2"} {
		free := s.newTask("alice", id, "c2", "m3")
		free.NoRecord = true
		require.NoError(t, s.store.CreateTask(s.ctx, free), id)
	}
	again := s.newTask("alice", store.TaskIDFor("alice", "m3"), "c2", "m3")
	require.NoError(t, s.store.CreateTask(s.ctx, again), "the id's own task is free too")
}

// An update that names the execution running the task records it; later
// updates without one keep it, a newer one replaces it.
func testExecutionARN(t *testing.T, s *suite) {
	s.create("t1")
	assert.Empty(t, s.get("t1", store.GetOptions{}).ExecutionARN)
	const first = "arn:aws:states:us-east-1:123456789012:execution:tasks:t1-v2"
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil), ExecutionARN: first})
	assert.Equal(t, first, s.get("t1", store.GetOptions{}).ExecutionARN)
	s.update(store.Update{TaskID: "t1", Checkpoint: json.RawMessage(`{"step":2}`)})
	assert.Equal(t, first, s.get("t1", store.GetOptions{}).ExecutionARN, "an update without one keeps it")
	const second = "arn:aws:states:us-east-1:123456789012:execution:tasks:t1-v4"
	s.update(store.Update{TaskID: "t1", ExecutionARN: second})
	assert.Equal(t, second, s.get("t1", store.GetOptions{}).ExecutionARN)
}

// 50 writers race to finish one task: exactly one terminal state is stored,
// and every other writer is told the task is already terminal (or that it
// lost the version race), with the state that won.
func testFirstTerminalStateWins(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", IfVersion: 1, Status: s.status(a2a.TaskStateWorking, nil)})
	terminal := []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateCanceled, a2a.TaskStateFailed, a2a.TaskStateRejected}

	const writers = 50
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			u := store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: terminal[i%len(terminal)], Timestamp: s.now(),
				Message: agentMessage("t1", id("final", i), "writer")}}
			if i%2 == 0 {
				u.IfVersion = 2 // half conditioned on the version they read, half not
			}
			_, errs[i] = s.store.UpdateTask(s.ctx, u)
		})
	}
	wg.Wait()

	winner := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, winner, "writers %d and %d both succeeded", winner, i)
			winner = i
		}
	}
	require.NotEqual(t, -1, winner, "no writer succeeded")
	want := terminal[winner%len(terminal)]
	for i, err := range errs {
		if i == winner {
			continue
		}
		var ce *store.ConflictError
		require.ErrorAs(t, err, &ce, "writer %d", i)
		assert.Contains(t, []store.ConflictReason{store.ConflictTerminal, store.ConflictVersion}, ce.Reason, "writer %d", i)
		assert.Equal(t, want, ce.State, "writer %d was told another state", i)
		assert.Equal(t, int64(3), ce.Version, "writer %d", i)
	}
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, want, rec.Task.Status.State)
	assert.Equal(t, int64(3), rec.Version)
	assert.Equal(t, []string{"m-t1", id("final", winner)}, messageIDs(rec.Task.History), "only the winner's message is stored")
}

// A task lives TaskTTL after its last update: reads then treat it as absent
// and writes refuse it.
func testTaskExpiry(t *testing.T, s *suite) {
	s.create("t1")
	s.create("t2")
	s.clock.Advance(TaskTTL - time.Second)
	s.get("t1", store.GetOptions{})
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateWorking, nil)}) // refreshes t1 only

	s.clock.Advance(time.Second) // t2: exactly TaskTTL after its last write
	_, err := s.store.GetTask(s.ctx, "t2", store.AllHistory)
	assert.ErrorIs(t, err, store.ErrNotFound, "t2 expired")
	_, err = s.store.UpdateTask(s.ctx, store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateCanceled, nil)})
	assert.ErrorIs(t, err, store.ErrNotFound, "an expired task took a write")

	page, err := s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"t1"}, recordIDs(page.Tasks))
	assert.Equal(t, 1, page.Total)

	s.clock.Advance(TaskTTL - 2*time.Second) // t1: one second before its refreshed expiry
	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, []string{"m-t1"}, messageIDs(rec.Task.History), "the history lives as long as its task")

	s.clock.Advance(time.Second)
	_, err = s.store.GetTask(s.ctx, "t1", store.GetOptions{})
	assert.ErrorIs(t, err, store.ErrNotFound, "t1 expired")
	_, err = s.store.UpdateTask(s.ctx, store.Update{TaskID: "t1", IfVersion: 2, Status: s.status(a2a.TaskStateCompleted, nil)})
	assert.ErrorIs(t, err, store.ErrNotFound)
	page, err = s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	assert.Empty(t, page.Tasks)
	assert.Equal(t, 0, page.Total)
}

func testIdempotencyExpiry(t *testing.T, s *suite) {
	require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t1", "c1", "m1")))
	s.clock.Advance(IdempotencyTTL - time.Second)
	requireDuplicate(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t2", "c1", "m1")), "t1")

	s.clock.Advance(time.Second) // the record expired; its task lives on
	require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t3", "c1", "m1")))
	s.get("t1", store.GetOptions{})
	requireDuplicate(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t4", "c1", "m1")), "t3")
}

// A user message appended with an idempotency key is accepted once; a retry
// is recognised as such even after the task moved on.
func testIdempotentUpdate(t *testing.T, s *suite) {
	s.create("t1")
	s.update(store.Update{TaskID: "t1", IfVersion: 1, Status: s.status(a2a.TaskStateInputRequired, agentMessage("t1", "q", "name?"))})
	reply := func() store.Update {
		return store.Update{TaskID: "t1", IfVersion: 2, IfStates: []a2a.TaskState{a2a.TaskStateInputRequired},
			Messages: []a2a.Message{userMessage("r1", "Ada")}, IdempotencyKey: "r1", Owner: "alice",
			Status: s.status(a2a.TaskStateWorking, nil)}
	}
	assert.Equal(t, int64(3), s.update(reply()))

	// The retry fails every condition too (version, state), but is a duplicate.
	_, err := s.store.UpdateTask(s.ctx, reply())
	requireDuplicate(t, err, "t1")
	// The key is shared with task creation.
	requireDuplicate(t, s.store.CreateTask(s.ctx, s.newTask("alice", "t2", "c2", "r1")), "t1")

	// Even after the task finished.
	s.update(store.Update{TaskID: "t1", IfVersion: 3, Status: s.status(a2a.TaskStateCompleted, nil)})
	_, err = s.store.UpdateTask(s.ctx, reply())
	requireDuplicate(t, err, "t1")

	// Keys belong to their owner.
	u := reply()
	u.Owner = "bob"
	_, err = s.store.UpdateTask(s.ctx, u)
	requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 4)

	rec := s.get("t1", store.AllHistory)
	assert.Equal(t, []string{"m-t1", "q", "r1"}, messageIDs(rec.Task.History), "the reply is stored once")

	// Once the record expired, a retry is an ordinary (refused) update.
	s.clock.Advance(IdempotencyTTL)
	_, err = s.store.UpdateTask(s.ctx, reply())
	requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 4)
}

func recordIDs(recs []store.TaskRecord) []string {
	ids := []string{}
	for _, r := range recs {
		ids = append(ids, r.Task.ID)
	}
	return ids
}

// A task whose first step finished before it was stored (engine.Unsaved)
// is created once, finished: its history ends with its status message, its
// artifacts are whole, it takes no more writes and is its message's record.
func testCreateFinished(t *testing.T, s *suite) {
	for _, tc := range []struct {
		name string
		arts []a2a.Artifact
	}{
		{"small", []a2a.Artifact{textArtifact("a1", "x"), textArtifact("a2", "y")}},
		{"large", []a2a.Artifact{textArtifact("a1", strings.Repeat("x", 3000)), textArtifact("a2", strings.Repeat("y", 3000))}},
		{"no artifacts", nil},
	} {
		id := "f-" + strings.ReplaceAll(tc.name, " ", "-")
		nt := s.newTask("alice", id, "c-"+id, "m-"+id)
		done := agentMessage(id, "s-"+id, "done")
		nt.Task.Status = *s.status(a2a.TaskStateCompleted, done)
		nt.Task.History = append(nt.Task.History, *done)
		nt.Task.Artifacts = tc.arts
		require.NoError(t, s.store.CreateTask(s.ctx, nt), tc.name)

		rec := s.get(id, store.AllHistory)
		assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State, tc.name)
		assert.Equal(t, int64(1), rec.Version, tc.name)
		assert.Equal(t, []string{"m-" + id, "s-" + id}, messageIDs(rec.Task.History), tc.name)
		assert.Equal(t, tc.arts, rec.Task.Artifacts, tc.name)
		assert.False(t, rec.Lease.Held(), tc.name)
		assert.Equal(t, []string{"s-" + id}, messageIDs(s.get(id, store.GetOptions{HistoryLength: 1}).Task.History), tc.name)
		assert.Empty(t, s.get(id, store.GetOptions{}).Task.Artifacts, tc.name)

		_, err := s.store.UpdateTask(s.ctx, store.Update{TaskID: id, Status: s.status(a2a.TaskStateFailed, nil)})
		requireConflict(t, err, store.ConflictTerminal, a2a.TaskStateCompleted, 1)
		dup := s.newTask("alice", "other-"+id, "c", "m-"+id)
		requireDuplicate(t, s.store.CreateTask(s.ctx, dup), id)
	}

	// Only a finished task is created with more than its first message, and
	// with artifacts.
	nt := s.newTask("alice", "w1", "c1", "m-w1")
	nt.Task.Artifacts = []a2a.Artifact{textArtifact("a1", "x")}
	assert.Error(t, s.store.CreateTask(s.ctx, nt), "artifacts on a submitted task")
	nt = s.newTask("alice", "w2", "c1", "m-w2")
	nt.Task.Status = *s.status(a2a.TaskStateCompleted, agentMessage("w2", "s-w2", "done"))
	assert.Error(t, s.store.CreateTask(s.ctx, nt), "a finished task without its status message in the history")
}
