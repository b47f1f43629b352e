package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// keeps returns a check of whether s still keeps a task (any error but
// store.ErrNotFound fails the test).
func keeps(t *testing.T, s *memory.Store) func(id string) bool {
	return func(id string) bool {
		_, err := s.GetTask(context.Background(), id, store.GetOptions{})
		if err != nil {
			require.ErrorIs(t, err, store.ErrNotFound)
		}
		return err == nil
	}
}

// At A2A_MEMORY_MAX_TASKS the store evicts the task that finished first,
// with its idempotency records, and refuses a new task only when every
// task kept is live.
func TestMaxTasks(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(clocktest.Start(t))
	s := memory.New(memory.Options{Clock: clk, MaxTasks: 3})
	newTask := func(id, msgID string) store.NewTask {
		m := a2a.Message{Role: a2a.RoleUser, MessageID: msgID, TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hi")}}
		return store.NewTask{Owner: "alice", Task: a2a.Task{ID: id, ContextID: "c", History: []a2a.Message{m},
			Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(clk.Now())}}}
	}
	finish := func(id string, st a2a.TaskState) {
		clk.Advance(time.Second)
		_, err := s.UpdateTask(ctx, store.Update{TaskID: id, Status: &a2a.TaskStatus{State: st, Timestamp: a2a.FormatTime(clk.Now())}})
		require.NoError(t, err)
	}
	exists := keeps(t, s)
	for _, id := range []string{"t1", "t2", "t3"} {
		require.NoError(t, s.CreateTask(ctx, newTask(id, "m-"+id)))
	}
	finish("t2", a2a.TaskStateCompleted) // finished first
	finish("t1", a2a.TaskStateCanceled)

	require.NoError(t, s.CreateTask(ctx, newTask("t4", "m-t4")))
	assert.False(t, exists("t2"), "the task that finished first is evicted")
	assert.True(t, exists("t1"))
	assert.True(t, exists("t3"), "a live task is never evicted")

	// t2's idempotency record went with it: its message starts a new task.
	require.NoError(t, s.CreateTask(ctx, newTask("t2-again", "m-t2")))
	assert.False(t, exists("t1"))

	// Everything kept is live: refused, nothing written.
	err := s.CreateTask(ctx, newTask("t5", "m-t5"))
	var full *store.StoreFullError
	require.ErrorAs(t, err, &full)
	assert.Equal(t, 3, full.Limit)
	assert.False(t, exists("t5"))
	for _, id := range []string{"t3", "t4", "t2-again"} {
		assert.True(t, exists(id), id)
	}

	// Once a task finishes there is room again, and the refused message was
	// not recorded.
	finish("t3", a2a.TaskStateFailed)
	require.NoError(t, s.CreateTask(ctx, newTask("t5", "m-t5")))
	assert.False(t, exists("t3"))

	// Expired tasks make room first, whatever their state.
	clk.Advance(config.DefaultTaskTTL)
	for _, id := range []string{"t6", "t7", "t8"} {
		require.NoError(t, s.CreateTask(ctx, newTask(id, "m-"+id)))
	}
}

// At A2A_MEMORY_MAX_BYTES a new task, or one that grows, evicts the tasks
// that finished first until it fits; a live task is never evicted, and a
// new task that does not fit beside the live ones is refused, nothing
// stored. Store.Bytes counts what is kept.
func TestMaxBytes(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(clocktest.Start(t))
	text := strings.Repeat("x", 100<<10)
	newTask := func(id string) store.NewTask {
		m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + id, TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart(text)}}
		return store.NewTask{Owner: "alice", Task: a2a.Task{ID: id, ContextID: "c", History: []a2a.Message{m},
			Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(clk.Now())}}}
	}
	// The size of one such task, as the store counts it.
	probe := memory.New(memory.Options{Clock: clk})
	require.NoError(t, probe.CreateTask(ctx, newTask("p")))
	per := probe.Bytes()
	assert.Greater(t, per, int64(100<<10))

	s := memory.New(memory.Options{Clock: clk, MaxBytes: 3*per + per/2})
	update := func(id string, u store.Update) {
		clk.Advance(time.Second)
		u.TaskID = id
		_, err := s.UpdateTask(ctx, u)
		require.NoError(t, err)
	}
	finish := func(id string) {
		update(id, store.Update{Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: a2a.FormatTime(clk.Now())}})
	}
	exists := keeps(t, s)
	for _, id := range []string{"a", "b", "c"} {
		require.NoError(t, s.CreateTask(ctx, newTask(id)))
	}
	assert.Equal(t, 3*per, s.Bytes())
	finish("b") // finished first
	finish("a")

	require.NoError(t, s.CreateTask(ctx, newTask("d")))
	assert.False(t, exists("b"), "the task that finished first is evicted")
	assert.True(t, exists("a"))
	require.NoError(t, s.CreateTask(ctx, newTask("e")))
	assert.False(t, exists("a"))
	assert.Equal(t, 3*per, s.Bytes(), "the evicted tasks are no longer counted")

	// Every task kept is live: refused, nothing stored.
	err := s.CreateTask(ctx, newTask("f"))
	var full *store.StoreFullError
	require.ErrorAs(t, err, &full)
	assert.Equal(t, 3*per+per/2, full.Bytes)
	assert.Contains(t, err.Error(), "MiB of tasks")
	assert.False(t, exists("f"))
	assert.Equal(t, 3*per, s.Bytes())

	// A live task that grows evicts the finished ones, never itself nor
	// another live one.
	finish("d")
	big := a2a.Artifact{ArtifactID: "big", Parts: []a2a.Part{a2a.TextPart(text)}}
	update("c", store.Update{Artifacts: []a2a.Artifact{big}})
	assert.False(t, exists("d"), "a finished task made room")
	assert.True(t, exists("c"))
	assert.True(t, exists("e"))
	assert.LessOrEqual(t, s.Bytes(), 3*per+per/2)

	// The task that grows past the bound as it finishes stays, to be
	// read: the next new task evicts it.
	update("e", store.Update{Artifacts: []a2a.Artifact{big}, Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: a2a.FormatTime(clk.Now())}})
	assert.True(t, exists("e"), "just finished: kept for its reader")
	require.NoError(t, s.CreateTask(ctx, newTask("g")))
	assert.False(t, exists("e"))
	assert.True(t, exists("c"))
	assert.LessOrEqual(t, s.Bytes(), 3*per+per/2)
}
