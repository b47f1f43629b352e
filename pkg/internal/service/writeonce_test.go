package service_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// writes records the task writes a store is asked for.
type writes struct {
	store.Store
	mu      sync.Mutex
	created []a2a.TaskState
	updates int
}

func (w *writes) CreateTask(ctx context.Context, nt store.NewTask) error {
	w.mu.Lock()
	w.created = append(w.created, nt.Task.Status.State)
	w.mu.Unlock()
	return w.Store.CreateTask(ctx, nt)
}

func (w *writes) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	w.mu.Lock()
	w.updates++
	w.mu.Unlock()
	return w.Store.UpdateTask(ctx, u)
}

// noBacklog refuses every job: these steps all finish in their request.
type noBacklog struct{}

func (noBacklog) Defer(context.Context, engine.Job) error { return errors.New("no backlog") }

// A blocking send run in its request stores its task once, finished, when
// the first step finishes it; a retry runs the step again and answers with
// that task, changing nothing; a step that reports progress first stores
// the task as created and updates it as before.
func TestBlockingSendStoresItsTaskOnce(t *testing.T) {
	progressFirst := func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		if err := emit.Status(ctx, agent.Text("looking")); err != nil {
			return agent.Outcome{}, err
		}
		return completeWithEcho(ctx, in, emit)
	}
	for _, tc := range []struct {
		name    string
		step    func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error)
		created []a2a.TaskState
		updates int
		history int
	}{
		{"finished at once", completeWithEcho, []a2a.TaskState{a2a.TaskStateCompleted}, 0, 2},
		{"progress first", progressFirst, []a2a.TaskState{a2a.TaskStateSubmitted}, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clk := clocktest.New(clocktest.Start(t))
			ts := &writes{Store: memory.New(memory.Options{Clock: clk})}
			ag := &scripted{info: agent.Info{Name: "test"}, step: tc.step}
			exec := engine.NewExecutor(ts, ag, engine.Options{Clock: clk})
			runner := inline.New(exec, noBacklog{}, inline.Options{Clock: clk})
			svc := service.New(ts, runner, ag.Info(), service.Config{}, service.Options{Clock: clk, Inline: runner})

			task, err := svc.SendMessage(ctx, "alice", send(userMsg("m1", "hello"), true))
			require.NoError(t, err)
			assert.Equal(t, store.TaskIDFor("alice", "m1"), task.ID)
			assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			require.Len(t, task.Artifacts, 1)
			assert.Equal(t, "echo: hello", task.Artifacts[0].Parts[0].Text)
			assert.Len(t, task.History, tc.history)
			assert.Equal(t, tc.created, ts.created)
			assert.Equal(t, tc.updates, ts.updates)

			stored, err := svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: task.ID})
			require.NoError(t, err)
			assert.Equal(t, task.Status, stored.Status, "the answer is the task as stored")
			assert.Equal(t, task.History, stored.History)
			assert.Equal(t, task.Artifacts, stored.Artifacts)

			// A retry reads nothing first: its step runs again (steps are at
			// least once), its first write is refused, and the answer is
			// the task the first send stored, unchanged.
			again, err := svc.SendMessage(ctx, "alice", send(userMsg("m1", "hello"), true))
			require.NoError(t, err)
			assert.Equal(t, task.ID, again.ID)
			assert.Equal(t, int32(2), ag.calls.Load(), "a retried send runs its step again")
			assert.Equal(t, task.Status, again.Status)
			assert.Equal(t, task.History, again.History)
			assert.Equal(t, task.Artifacts, again.Artifacts)
			assert.Equal(t, tc.updates, ts.updates, "a retried send changes nothing")
			after, err := svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: task.ID})
			require.NoError(t, err)
			assert.Equal(t, stored, after, "the task is as the first send stored it")
		})
	}
}

// Two blocking sends of one message that race both run the step (nothing
// is stored before it): the first write stores the task, the second finds
// it and answers with it.
func TestRacingBlockingSendsAnswerWithOneTask(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(clocktest.Start(t))
	ts := &writes{Store: memory.New(memory.Options{Clock: clk})}
	var started sync.WaitGroup
	started.Add(2)
	ag := &scripted{info: agent.Info{Name: "test"}, step: func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		started.Done()
		started.Wait() // both steps run before either writes
		return completeWithEcho(ctx, in, emit)
	}}
	exec := engine.NewExecutor(ts, ag, engine.Options{Clock: clk})
	runner := inline.New(exec, noBacklog{}, inline.Options{Clock: clk})
	svc := service.New(ts, runner, ag.Info(), service.Config{}, service.Options{Clock: clk, Inline: runner})

	tasks := make([]*a2a.Task, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range tasks {
		wg.Go(func() { tasks[i], errs[i] = svc.SendMessage(ctx, "alice", send(userMsg("m1", "hello"), true)) })
	}
	wg.Wait()
	for i := range tasks {
		require.NoError(t, errs[i])
		assert.Equal(t, store.TaskIDFor("alice", "m1"), tasks[i].ID)
		assert.Equal(t, a2a.TaskStateCompleted, tasks[i].Status.State)
	}
	assert.Equal(t, int32(2), ag.calls.Load())
	assert.Len(t, ts.created, 2, "both steps tried to store the task")
	page, err := svc.ListTasks(ctx, "alice", a2a.ListTasksParams{})
	require.NoError(t, err)
	assert.Len(t, page.Tasks, 1, "one task was stored")
}

// A blocking send run in its request reads nothing before its step: a
// reused messageId with another message is found by the step's first
// write, which is refused, and the send is refused with the clear error;
// the first task is unchanged.
func TestBlockingSendWithAReusedMessageID(t *testing.T) {
	ctx := context.Background()
	clk := clocktest.New(clocktest.Start(t))
	store := &writes{Store: memory.New(memory.Options{Clock: clk})}
	ag := &scripted{info: agent.Info{Name: "test"}, step: completeWithEcho}
	exec := engine.NewExecutor(store, ag, engine.Options{Clock: clk})
	runner := inline.New(exec, noBacklog{}, inline.Options{Clock: clk})
	svc := service.New(store, runner, ag.Info(), service.Config{}, service.Options{Clock: clk, Inline: runner})

	first, err := svc.SendMessage(ctx, "alice", send(userMsg("m1", "hello"), true))
	require.NoError(t, err)
	_, err = svc.SendMessage(ctx, "alice", send(userMsg("m1", "something else"), true))
	requireCode(t, err, a2a.CodeInvalidParams, `"m1" was already used for a different message`)
	stored, err := svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: first.ID})
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", stored.Artifacts[0].Parts[0].Text)
	assert.Len(t, store.created, 2, "the second step's write was refused")
}
