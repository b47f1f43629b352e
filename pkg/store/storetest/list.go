package storetest

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// listFixture stores alice's tasks t1..t7, one second apart (odd ones in
// context ctx-a, even ones in ctx-b), then moves t2 and t5 to working;
// and bob's b1, b2 in the same context ctx-a. Newest status first, alice's
// tasks are t5 t2 t7 t6 t4 t3 t1.
func listFixture(t *testing.T, s *suite) {
	for i := 1; i <= 7; i++ {
		ctx := "ctx-b"
		if i%2 == 1 {
			ctx = "ctx-a"
		}
		require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("alice", id("t", i), ctx, id("m", i))))
		s.clock.Advance(time.Second)
	}
	for _, i := range []int{2, 5} {
		s.clock.Advance(time.Second)
		s.update(store.Update{TaskID: id("t", i), IfVersion: 1, Status: s.status(a2a.TaskStateWorking, nil)})
	}
	for i := 1; i <= 2; i++ {
		require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("bob", id("b", i), "ctx-a", id("m", i))))
		s.clock.Advance(time.Second)
	}
}

// listAll pages through q with page size pageSize, checking Total on every
// page, and returns the task ids in order.
func listAll(t *testing.T, s *suite, q store.ListQuery, pageSize, total int) []string {
	t.Helper()
	q.PageSize = pageSize
	ids := []string{}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 20, "paging does not end")
		page, err := s.store.ListTasks(s.ctx, q)
		require.NoError(t, err)
		assert.Equal(t, total, page.Total, "Total on page %d", pages)
		assert.LessOrEqual(t, len(page.Tasks), pageSize)
		for _, r := range page.Tasks {
			assert.Equal(t, q.Owner, r.Owner, "another owner's task")
			ids = append(ids, r.Task.ID)
		}
		if page.NextCursor == "" {
			return ids
		}
		require.Len(t, page.Tasks, pageSize, "a page before the last is short")
		q.Cursor = page.NextCursor
	}
}

func testList(t *testing.T, s *suite) {
	listFixture(t, s)
	after := a2a.FormatTime(s.start.Add(4 * time.Second)) // t5's creation: later are t6, t7, and the updates
	for _, tc := range []struct {
		name string
		q    store.ListQuery
		want []string
	}{
		{"owner", store.ListQuery{Owner: "alice"}, []string{"t-05", "t-02", "t-07", "t-06", "t-04", "t-03", "t-01"}},
		{"state", store.ListQuery{Owner: "alice", State: a2a.TaskStateWorking}, []string{"t-05", "t-02"}},
		{"other state", store.ListQuery{Owner: "alice", State: a2a.TaskStateSubmitted}, []string{"t-07", "t-06", "t-04", "t-03", "t-01"}},
		{"no match", store.ListQuery{Owner: "alice", State: a2a.TaskStateCompleted}, []string{}},
		{"context", store.ListQuery{Owner: "alice", ContextID: "ctx-a"}, []string{"t-05", "t-07", "t-03", "t-01"}},
		{"context and state", store.ListQuery{Owner: "alice", ContextID: "ctx-a", State: a2a.TaskStateWorking}, []string{"t-05"}},
		{"status after", store.ListQuery{Owner: "alice", StatusAfter: after}, []string{"t-05", "t-02", "t-07", "t-06"}},
		{"status after and context", store.ListQuery{Owner: "alice", ContextID: "ctx-b", StatusAfter: after}, []string{"t-02", "t-06"}},
		{"status after the newest", store.ListQuery{Owner: "alice", StatusAfter: s.now()}, []string{}},
		{"other owner", store.ListQuery{Owner: "bob"}, []string{"b-02", "b-01"}},
		{"other owner, shared context id", store.ListQuery{Owner: "bob", ContextID: "ctx-a"}, []string{"b-02", "b-01"}},
		{"unknown owner", store.ListQuery{Owner: "carol"}, []string{}},
		{"unknown context", store.ListQuery{Owner: "alice", ContextID: "ctx-z"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{1, 3, 100} {
				assert.Equal(t, tc.want, listAll(t, s, tc.q, size, len(tc.want)), "page size %d", size)
			}
		})
	}

	// A page of a list holds the tasks as stored, without history by default.
	page, err := s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 2})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 2)
	r := page.Tasks[0]
	assert.Equal(t, "t-05", r.Task.ID)
	assert.Equal(t, "ctx-a", r.Task.ContextID)
	assert.Equal(t, a2a.TaskStateWorking, r.Task.Status.State)
	assert.Equal(t, int64(2), r.Version)
	assert.Empty(t, r.Task.History)
	assert.Empty(t, r.Task.Artifacts)
	assert.NotEmpty(t, page.NextCursor)
}

// Tasks with the same status timestamp come by task id, descending.
func testListTies(t *testing.T, s *suite) {
	for _, taskID := range []string{"d-b", "d-c", "d-a"} {
		require.NoError(t, s.store.CreateTask(s.ctx, s.newTask("dave", taskID, "c", "m-"+taskID)))
	}
	assert.Equal(t, []string{"d-c", "d-b", "d-a"}, listAll(t, s, store.ListQuery{Owner: "dave"}, 2, 3))
}

func testListReadsHistoryAndArtifacts(t *testing.T, s *suite) {
	s.create("t1")
	s.clock.Advance(time.Second)
	s.create("t2")
	s.update(store.Update{TaskID: "t2", Status: s.status(a2a.TaskStateWorking, agentMessage("t2", "s2", "busy")),
		Artifacts: []a2a.Artifact{textArtifact("a2", "x")}})
	for _, tc := range []struct {
		name      string
		q         store.ListQuery
		history   [][]string
		artifacts [][]string
	}{
		{"neither", store.ListQuery{}, [][]string{{}, {}}, [][]string{{}, {}}},
		{"newest message", store.ListQuery{HistoryLength: 1}, [][]string{{"s2"}, {"m-t1"}}, [][]string{{}, {}}},
		{"all and artifacts", store.ListQuery{HistoryLength: -1, IncludeArtifacts: true},
			[][]string{{"m-t2", "s2"}, {"m-t1"}}, [][]string{{"a2"}, {}}},
		{"artifacts only", store.ListQuery{IncludeArtifacts: true}, [][]string{{}, {}}, [][]string{{"a2"}, {}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Owner, q.PageSize = "alice", 10
			page, err := s.store.ListTasks(s.ctx, q)
			require.NoError(t, err)
			require.Equal(t, []string{"t2", "t1"}, recordIDs(page.Tasks))
			for i, r := range page.Tasks {
				assert.Equal(t, tc.history[i], messageIDs(r.Task.History), "history of %s", r.Task.ID)
				assert.Equal(t, tc.artifacts[i], artifactIDs(r.Task.Artifacts), "artifacts of %s", r.Task.ID)
			}
			assert.Equal(t, "s2", page.Tasks[0].Task.Status.Message.MessageID)
		})
	}
}

// A cursor the store did not issue is refused as invalid params (the
// service's page tokens are bound to the owner, not signed, so a client can
// forge the cursor part).
func testListBadCursor(t *testing.T, s *suite) {
	s.create("t1")
	for _, cursor := range []string{"garbage", "%%%", base64.RawURLEncoding.EncodeToString([]byte("x")), strings.Repeat("A", 5000)} {
		_, err := s.store.ListTasks(s.ctx, store.ListQuery{Owner: "alice", PageSize: 5, Cursor: cursor})
		var ae *a2a.Error
		require.ErrorAs(t, err, &ae, "cursor %.20q", cursor)
		assert.Equal(t, a2a.CodeInvalidParams, ae.Code)
	}
}
