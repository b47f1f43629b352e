package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

const testLease = time.Minute

// deadRunner accepts jobs, records them and never runs them: the runner of
// a process that crashed right after it was handed the work, or one whose
// jobs a test runs by hand.
type deadRunner struct {
	mu   sync.Mutex
	jobs []engine.Job
}

func (r *deadRunner) Start(_ context.Context, job engine.Job) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, job)
	return nil
}
func (r *deadRunner) Cancel(context.Context, engine.CancelRequest) error { return nil }

// stepNow runs a job's step at once, as a live runner would.
type stepNow struct{ exec *engine.Executor }

func (r stepNow) Start(ctx context.Context, job engine.Job) error {
	_, err := r.exec.Step(ctx, engine.Job{TaskID: job.TaskID, Message: job.Message, Reply: job.Reply, Trigger: job.Trigger})
	return err
}

type leaseFixture struct {
	clock *clocktest.Clock
	store *memory.Store
	exec  *engine.Executor
	svc   *service.Service
	dead  *deadRunner
}

func newLeaseFixture(t *testing.T, step func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error)) *leaseFixture {
	clk := clocktest.New(clocktest.Start(t))
	store := memory.New(memory.Options{Clock: clk})
	ag := &scripted{info: agent.Info{Name: "test"}, step: step}
	exec := engine.NewExecutor(store, ag, engine.Options{Clock: clk, LeaseDuration: testLease, MaxTakeovers: 2})
	dead := &deadRunner{}
	svc := service.New(store, dead, ag.Info(), service.Config{LeaseDuration: testLease}, service.Options{Clock: clk})
	return &leaseFixture{clock: clk, store: store, exec: exec, svc: svc, dead: dead}
}

func (f *leaseFixture) state(t *testing.T, id string) (a2a.TaskState, *store.TaskRecord) {
	rec, err := f.store.GetTask(context.Background(), id, store.AllHistory)
	require.NoError(t, err)
	return rec.Task.Status.State, rec
}

// A task whose runner died before it ran a step is taken over once its
// lease lapses, and completes; a retried send of the same message returns
// that task and starts nothing.
func TestSweepTakesOverATaskWhoseRunnerDied(t *testing.T) {
	ctx := context.Background()
	f := newLeaseFixture(t, completeWithEcho)
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))
	require.Len(t, f.dead.jobs, 1)

	res, err := f.exec.Sweep(ctx, stepNow{f.exec})
	require.NoError(t, err)
	assert.Zero(t, res, "the lease has not lapsed: its runner may still start it")

	// A retry of the stuck send answers with the same task and starts nothing.
	again := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))
	assert.Equal(t, task.ID, again.ID)
	assert.Len(t, f.dead.jobs, 1, "a retried send starts nothing")

	f.clock.Advance(testLease + time.Millisecond)
	res, err = f.exec.Sweep(ctx, stepNow{f.exec})
	require.NoError(t, err)
	assert.Equal(t, engine.SweepResult{TakenOver: 1}, res)
	st, rec := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateCompleted, st)
	assert.Equal(t, "echo: hello", rec.Task.Artifacts[0].Parts[0].Text, "the step ran on the task's first message")
	assert.Equal(t, 1, rec.Takeovers)
	assert.False(t, rec.Lease.Held(), "a finished task holds no lease")

	res, err = f.exec.Sweep(ctx, stepNow{f.exec})
	require.NoError(t, err)
	assert.Zero(t, res)
}

// A task whose runner dies every time is failed after MaxTakeovers, with a
// status message that says why.
func TestSweepFailsATaskTakenOverTooOften(t *testing.T) {
	ctx := context.Background()
	f := newLeaseFixture(t, completeWithEcho)
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))
	var results []engine.SweepResult
	for range 3 {
		f.clock.Advance(testLease + time.Millisecond)
		res, err := f.exec.Sweep(ctx, f.dead)
		require.NoError(t, err)
		results = append(results, res)
	}
	assert.Equal(t, []engine.SweepResult{{TakenOver: 1}, {TakenOver: 1}, {Failed: 1}}, results)
	st, rec := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateFailed, st)
	assert.Contains(t, rec.Task.Status.Message.Text(), "runner stopped responding")
	assert.Equal(t, []int{0, 1, 2}, takeovers(f.dead.jobs))
}

func takeovers(jobs []engine.Job) []int {
	return collect(jobs, func(j engine.Job) int { return j.Takeover })
}

// A step renews its lease while it works, so a long step is never taken
// over; a step whose lease was taken from it stops, and its result is
// dropped.
func TestStepHoldsItsLease(t *testing.T) {
	ctx := context.Background()
	proceed := make(chan struct{})
	stopped := make(chan error, 1)
	f := newLeaseFixture(t, func(ctx context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
		select {
		case <-proceed:
			return agent.Complete(agent.Text("done")), nil
		case <-ctx.Done():
			stopped <- ctx.Err()
			return agent.Outcome{}, ctx.Err()
		}
	})
	task := sent(t, f.svc, "alice", send(userMsg("m1", "long work"), false))

	result := make(chan engine.StepResult, 1)
	go func() {
		res, err := f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerMessage})
		assert.NoError(t, err)
		result <- res
	}()
	// Five leases long: every third of a lease the step renews it.
	for range 15 {
		require.Eventually(t, func() bool { return f.clock.Timers() == 1 }, 5*time.Second, time.Millisecond, "the step waits to renew")
		f.clock.Advance(testLease / 3)
		require.Eventually(t, func() bool { return f.clock.Timers() == 1 }, 5*time.Second, time.Millisecond, "the step renewed and waits again")
		_, rec := f.state(t, task.ID)
		require.True(t, rec.Lease.Held())
		assert.True(t, f.clock.Now().Add(testLease).Equal(rec.Lease.Until), "renewed for a whole lease")
		lapsed, err := f.store.LapsedLeases(ctx, f.clock.Now(), 10)
		require.NoError(t, err)
		require.Empty(t, lapsed, "a step that renews is never taken over")
	}

	// Another runner takes the task (a sweep that thought this one dead).
	_, rec := f.state(t, task.ID)
	_, err := f.store.UpdateTask(ctx, store.Update{TaskID: task.ID, Lease: store.Lease{Owner: "someone-else", Until: f.clock.Now().Add(testLease)}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.clock.Timers() == 1 }, 5*time.Second, time.Millisecond, "timers: %d", f.clock.Timers())
	f.clock.Advance(testLease / 3)
	select {
	case err := <-stopped:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the step went on without its lease")
	}
	res := <-result
	assert.Equal(t, engine.NextDone, res.Next)
	st, after := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateWorking, st, "the step's result was dropped: the new holder finishes the task")
	assert.Equal(t, rec.Version+1, after.Version, "nothing but the other runner's write")
	close(proceed)
}

// A store that keeps no more tasks refuses a send with a typed error that
// says why and what to do.
func TestSendToAFullStore(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	store := memory.New(memory.Options{Clock: clk, MaxTasks: 1})
	svc := service.New(store, &deadRunner{}, agent.Info{Name: "test"}, service.Config{}, service.Options{Clock: clk})
	_, err := svc.SendMessage(context.Background(), "alice", send(userMsg("m1", "one"), false))
	require.NoError(t, err)
	_, err = svc.SendMessage(context.Background(), "alice", send(userMsg("m2", "two"), false))
	requireCode(t, err, a2a.CodeUnsupportedOperation, "at most 1 tasks and all of them are still running")
	requireCode(t, err, a2a.CodeUnsupportedOperation, "A2A_MEMORY_MAX_TASKS")
}

// A step its runner stops (a cancel, a server that shuts down) is not the
// agent's failure: nothing is written, nothing is logged above info, and
// the task keeps its lease for a sweep to take over.
func TestStoppedStepIsNoFailure(t *testing.T) {
	started := make(chan struct{})
	step := func(ctx context.Context, _ agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
		close(started)
		<-ctx.Done()
		return agent.Outcome{}, ctx.Err()
	}
	f := newLeaseFixture(t, step)
	var logs bytes.Buffer
	exec := engine.NewExecutor(f.store, &scripted{info: agent.Info{Name: "test"}, step: step}, engine.Options{
		Clock: f.clock, LeaseDuration: testLease,
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), false))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := exec.Step(ctx, engine.Job{TaskID: task.ID, Message: &task.History[0], Trigger: store.TriggerMessage})
		done <- err
	}()
	<-started
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)

	state, rec := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateWorking, state, "the task is not failed")
	assert.True(t, rec.Lease.Held(), "its lease stays for a sweep")
	assert.Contains(t, logs.String(), "agent step stopped")
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var entry struct{ Level string }
		require.NoError(t, json.Unmarshal([]byte(line), &entry))
		assert.Contains(t, []string{"DEBUG", "INFO"}, entry.Level, line)
	}
}

// The first step of a blocking send takes the task's lease with its first
// write: a step that finishes at once writes the task once. One that runs
// long takes the lease when the keeper first renews it, as any step holds
// its lease.
func TestBlockingFirstStepTakesItsLeaseWithItsFirstWrite(t *testing.T) {
	ctx := context.Background()
	proceed := make(chan struct{})
	f := newLeaseFixture(t, func(ctx context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
		assert.Equal(t, a2a.TaskStateWorking, in.Task.Status.State, "the agent sees its task working")
		if in.Message.Parts[0].Text == "long" {
			<-proceed
		}
		return agent.Complete(agent.Text("done")), nil
	})
	for _, blocking := range []bool{true, false} {
		task := sent(t, f.svc, "alice", send(userMsg(fmt.Sprint("quick-", blocking), "quick"), false))
		_, err := f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerMessage, LeaseLater: blocking})
		require.NoError(t, err)
		st, rec := f.state(t, task.ID)
		assert.Equal(t, a2a.TaskStateCompleted, st)
		writes := int64(2)
		if blocking {
			writes = 1
		}
		assert.Equal(t, 1+writes, rec.Version, "blocking %v", blocking)
		assert.False(t, rec.Lease.Held())
	}

	task := sent(t, f.svc, "alice", send(userMsg("long", "long"), false))
	result := make(chan engine.StepResult, 1)
	go func() {
		res, err := f.exec.Step(ctx, engine.Job{TaskID: task.ID, Trigger: store.TriggerMessage, LeaseLater: true})
		assert.NoError(t, err)
		result <- res
	}()
	require.Eventually(t, func() bool { return f.clock.Timers() == 1 }, 5*time.Second, time.Millisecond, "the step waits to renew")
	st, rec := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateSubmitted, st, "nothing written yet")
	assert.Empty(t, rec.Lease.Owner)
	f.clock.Advance(testLease / 3)
	require.Eventually(t, func() bool {
		st, rec := f.state(t, task.ID)
		return st == a2a.TaskStateWorking && rec.Lease.Owner != ""
	}, 5*time.Second, time.Millisecond, "the keeper took the lease")
	_, rec = f.state(t, task.ID)
	assert.True(t, f.clock.Now().Add(testLease).Equal(rec.Lease.Until))
	close(proceed)
	res := <-result
	assert.Equal(t, a2a.TaskStateCompleted, res.State)
	st, done := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateCompleted, st)
	assert.Equal(t, rec.Version+1, done.Version)
}

// countingStore counts the reads of tasks.
type countingStore struct {
	*memory.Store
	mu    sync.Mutex
	reads int
}

func (s *countingStore) GetTask(ctx context.Context, taskID string, opts store.GetOptions) (*store.TaskRecord, error) {
	s.mu.Lock()
	s.reads++
	s.mu.Unlock()
	return s.Store.GetTask(ctx, taskID, opts)
}

// The first step of a blocking send's new task, run in the send's request
// (engine.Unsaved), starts from the task as the send made it, without
// reading it: the step's first write stores it, finished. A task that a
// send of the same message stored meanwhile stops the step at that write,
// which stores nothing, and the send answers with that task.
func TestFirstStepStartsFromTheUnsavedTask(t *testing.T) {
	var saw []string
	f := newLeaseFixture(t, func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
		return agent.Complete(agent.Text("done")), nil
	})
	counting := &countingStore{Store: f.store}
	exec := engine.NewExecutor(counting, &scripted{info: agent.Info{Name: "test"}, step: func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		saw = append(saw, in.Message.Parts[0].Text, in.Task.History[0].Parts[0].Text, fmt.Sprint(in.Metadata["k"]))
		return agent.Complete(agent.Text("done")), nil
	}}, engine.Options{Clock: f.clock, LeaseDuration: testLease})
	var results []engine.StepResult
	inline := stepUnsaved(func(ctx context.Context, u *engine.Unsaved) error {
		res, err := exec.StepUnsaved(ctx, u)
		results = append(results, res)
		return err
	})
	svc := service.New(counting, f.dead, agent.Info{Name: "test"}, service.Config{LeaseDuration: testLease}, service.Options{Clock: f.clock, Inline: inline})
	p := send(userMsg("m1", "hello"), true)
	p.Metadata = a2a.Metadata{"k": "v"}
	task := sent(t, svc, "alice", p)
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Len(t, results, 1)
	assert.Equal(t, a2a.TaskStateCompleted, results[0].State)
	assert.Zero(t, counting.reads, "neither the send nor the step read the task")
	assert.Equal(t, []string{"hello", "hello", "v"}, saw)
	st, rec := f.state(t, task.ID)
	assert.Equal(t, a2a.TaskStateCompleted, st)
	assert.Equal(t, int64(1), rec.Version, "stored once, finished")

	// Stored by another send of the message between this send's start
	// and its step's first write.
	stores := service.New(f.store, f.dead, agent.Info{Name: "test"}, service.Config{LeaseDuration: testLease, BlockingTimeout: time.Millisecond}, service.Options{Clock: f.clock})
	first := sent(t, stores, "alice", send(userMsg("m2", "again"), true))
	again := sent(t, svc, "alice", send(userMsg("m2", "again"), true))
	require.Len(t, results, 2)
	assert.Equal(t, engine.NextDone, results[1].Next)
	assert.Equal(t, first.ID, again.ID)
	st, rec = f.state(t, first.ID)
	assert.Equal(t, a2a.TaskStateSubmitted, st, "the step stored nothing")
	assert.Equal(t, int64(1), rec.Version)
}

// stepUnsaved is a service.InlineRunner of a function.
type stepUnsaved func(ctx context.Context, u *engine.Unsaved) error

func (f stepUnsaved) StartUnsaved(ctx context.Context, u *engine.Unsaved) error { return f(ctx, u) }
