package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// On the memory store a task cannot outlive its process, so what is left
// to recover is a task whose runner stopped while the server runs on (the
// state a dead runner leaves: working, its lease lapsing). The running
// server takes it over within half a lease of the lapse, and a task taken
// over too often is failed with a message that says why.
func TestLocalServerTakesOverStuckTasks(t *testing.T) {
	cfg, err := config.Load(func(k string) string { return map[string]string{"A2A_TASK_LEASE_SECONDS": "60"}[k] })
	require.NoError(t, err)
	clk := clocktest.New(clocktest.Start(t))
	srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: auth.Anonymous{}, Clock: clk})
	require.NoError(t, err)
	defer srv.Close()
	ctx := context.Background()

	stuck := func(id string, takeovers int) {
		m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + id, TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hello " + id)}}
		require.NoError(t, srv.Store.CreateTask(ctx, store.NewTask{Owner: auth.AnonymousOwner, Task: a2a.Task{ID: id, ContextID: "c",
			History: []a2a.Message{m}, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(clk.Now())}},
			Lease: store.Lease{Owner: "dead-runner", Until: clk.Now().Add(cfg.LeaseDuration), Trigger: store.TriggerMessage}}))
		_, err := srv.Store.UpdateTask(ctx, store.Update{TaskID: id, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(clk.Now())}})
		require.NoError(t, err)
		for range takeovers {
			l := store.LapsedLease{TaskID: id, Lease: get(t, srv, id).Lease}
			_, err := srv.Store.TakeOver(ctx, l, "dead-runner", clk.Now().Add(cfg.LeaseDuration))
			require.NoError(t, err)
		}
	}
	stuck("resumes", 0)
	stuck("gives-up", cfg.MaxTakeovers)

	// Nothing happens while the leases hold.
	require.Eventually(t, func() bool { return clk.Timers() > 0 }, 5*time.Second, time.Millisecond, "the sweep waits for its next round")
	clk.Advance(cfg.LeaseDuration / 2)
	assert.Equal(t, a2a.TaskStateWorking, get(t, srv, "resumes").Task.Status.State)

	// The next round after the lapse takes the tasks over.
	clk.Advance(cfg.LeaseDuration / 2)
	require.Eventually(t, func() bool { return clk.Timers() > 0 }, 5*time.Second, time.Millisecond)
	clk.Advance(cfg.LeaseDuration / 2)
	require.Eventually(t, func() bool {
		return get(t, srv, "resumes").Task.Status.State == a2a.TaskStateCompleted && get(t, srv, "gives-up").Task.Status.State == a2a.TaskStateFailed
	}, 5*time.Second, time.Millisecond)
	resumed := get(t, srv, "resumes")
	assert.Equal(t, 1, resumed.Takeovers)
	assert.Equal(t, "hello resumes", a2a.PartsText(resumed.Task.Artifacts[0].Parts))
	assert.Contains(t, get(t, srv, "gives-up").Task.Status.Message.Text(), "its runner stopped responding")
}

func get(t *testing.T, srv *app.Local, id string) *store.TaskRecord {
	t.Helper()
	rec, err := srv.Store.GetTask(context.Background(), id, store.AllHistory)
	require.NoError(t, err)
	return rec
}

// Whatever the phase of the sweep, a task whose runner died is taken over
// within a lease and a quarter of its lease's last renewal (docs/execution.md
// promises 1.5 leases): the worst case is a lease that lapses just after a
// sweep.
func TestLocalServerTakesOverWithinALeaseAndAQuarter(t *testing.T) {
	cfg, err := config.Load(func(k string) string { return map[string]string{"A2A_TASK_LEASE_SECONDS": "60"}[k] })
	require.NoError(t, err)
	lease := cfg.LeaseDuration
	clk := clocktest.New(clocktest.Start(t))
	start := clk.Now()
	srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: auth.Anonymous{}, Clock: clk})
	require.NoError(t, err)
	defer srv.Close()
	ctx := context.Background()
	asleep := func() {
		require.Eventually(t, func() bool { return clk.Timers() > 0 }, 5*time.Second, time.Millisecond, "the sweep waits")
	}
	asleep() // the first sweep, at start, is done

	// Its runner renewed the lease just after that sweep, then died: the
	// lease lapses just after the sweep a lease later.
	renewed := start.Add(time.Millisecond)
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-late", TaskID: "late", ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hello")}}
	require.NoError(t, srv.Store.CreateTask(ctx, store.NewTask{Owner: auth.AnonymousOwner, Task: a2a.Task{ID: "late", ContextID: "c",
		History: []a2a.Message{m}, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(start)}},
		Lease: store.Lease{Owner: "dead-runner", Until: renewed.Add(lease), Trigger: store.TriggerMessage}}))

	for get(t, srv, "late").Takeovers == 0 {
		require.True(t, clk.Now().Sub(renewed) <= lease+lease/4, "not taken over %s after the lease's renewal", clk.Now().Sub(renewed))
		clk.Advance(time.Second)
		asleep()
	}
	assert.LessOrEqual(t, clk.Now().Sub(renewed), lease+lease/4)
	assert.Less(t, clk.Now().Sub(renewed), lease+lease/2, "the promise of docs/execution.md")
	require.Eventually(t, func() bool { return get(t, srv, "late").Task.Status.State == a2a.TaskStateCompleted }, 5*time.Second, time.Millisecond)
}
