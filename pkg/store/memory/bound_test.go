package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// At A2A_MEMORY_MAX_TASKS the store evicts the task that finished first,
// with its idempotency records, and refuses a new task only when every
// task kept is live.
func TestMaxTasks(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(clocktest.Start(t))
	s := memory.New(memory.Options{Clock: clk, MaxTasks: 3})
	newTask := func(id, msgID string) service.NewTask {
		m := a2a.Message{Role: a2a.RoleUser, MessageID: msgID, TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hi")}}
		return service.NewTask{Owner: "alice", Task: a2a.Task{ID: id, ContextID: "c", History: []a2a.Message{m},
			Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(clk.Now())}}}
	}
	finish := func(id string, st a2a.TaskState) {
		clk.Advance(time.Second)
		_, err := s.UpdateTask(ctx, service.Update{TaskID: id, Status: &a2a.TaskStatus{State: st, Timestamp: a2a.FormatTime(clk.Now())}})
		require.NoError(t, err)
	}
	exists := func(id string) bool {
		_, err := s.GetTask(ctx, id, service.GetOptions{})
		if err != nil {
			require.ErrorIs(t, err, service.ErrNotFound)
		}
		return err == nil
	}
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
	var full *service.StoreFullError
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
	clk.Advance(memory.DefaultTaskTTL)
	for _, id := range []string{"t6", "t7", "t8"} {
		require.NoError(t, s.CreateTask(ctx, newTask(id, "m-"+id)))
	}
}
