package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// scripted is an agent whose steps are a function of the test.
type scripted struct {
	info  agent.Info
	step  func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error)
	calls atomic.Int32
}

func (s *scripted) Info() agent.Info { return s.info }
func (s *scripted) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	s.calls.Add(1)
	return s.step(ctx, in, emit)
}

type fixture struct {
	svc    *service.Service
	exec   *engine.Executor
	store  *memory.Store
	runner *local.Runner
	agent  *scripted
	clock  *clocktest.Clock
}

type fixtureOpt func(*service.Config, *agent.Info)

// sent sends p as owner and fails the test when the send fails.
func sent(t *testing.T, svc *service.Service, owner string, p a2a.MessageSendParams) *a2a.Task {
	t.Helper()
	task, err := svc.SendMessage(context.Background(), owner, p)
	require.NoError(t, err)
	return task
}

func newFixture(t *testing.T, step func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error), opts ...fixtureOpt) *fixture {
	t.Helper()
	cfg := service.Config{BlockingTimeout: 5 * time.Second}
	info := agent.Info{Name: "test", OutputModes: []string{"text/plain", "application/json"}}
	for _, o := range opts {
		o(&cfg, &info)
	}
	ag := &scripted{info: info, step: step}
	// Every reading moves the clock a millisecond, so that timestamps differ
	// and order is deterministic.
	clk := clocktest.New(clocktest.Start(t), clocktest.WithTick(time.Millisecond))
	store := memory.New(memory.Options{Clock: clk})
	exec := engine.NewExecutor(store, ag, engine.Options{Clock: clk, InterruptTTL: time.Hour, InterruptTombstoneTTL: 10 * time.Minute})
	runner := local.New(exec, local.Options{Clock: clk})
	t.Cleanup(runner.Close)
	svc := service.New(store, runner, info, cfg, service.Options{Clock: clk})
	return &fixture{svc: svc, exec: exec, store: store, runner: runner, agent: ag, clock: clk}
}

func completeWithEcho(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	return agent.Complete(agent.Text("done"), a2a.Artifact{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("echo: " + in.Message.Text())}}), nil
}

func userMsg(id, text string) a2a.Message {
	return a2a.Message{Role: a2a.RoleUser, MessageID: id, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func send(msg a2a.Message, blocking bool) a2a.MessageSendParams {
	return a2a.MessageSendParams{Message: msg, Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}}
}

func requireCode(t *testing.T, err error, code a2a.Code, contains string) {
	t.Helper()
	var ae *a2a.Error
	require.True(t, errors.As(err, &ae), "want *a2a.Error with code %d, got %v", code, err)
	assert.Equal(t, code, ae.Code, ae.Message)
	assert.Contains(t, ae.Message, contains)
}

// waitState polls the store until the task reaches state.
func waitState(t *testing.T, f *fixture, owner, id string, state a2a.TaskState) *a2a.Task {
	t.Helper()
	var task *a2a.Task
	require.Eventually(t, func() bool {
		var err error
		task, err = f.svc.GetTask(context.Background(), owner, a2a.TaskQueryParams{ID: id})
		return err == nil && task.Status.State == state
	}, 5*time.Second, 2*time.Millisecond, "task %s never became %s", id, state)
	return task
}

func TestBlockingSendReturnsTheFinishedTask(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hello"), true))
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Len(t, task.Artifacts, 1)
	assert.Equal(t, "echo: hello", task.Artifacts[0].Parts[0].Text)
	require.Len(t, task.History, 2, "the user message, then the agent's final status message")
	assert.Equal(t, a2a.RoleUser, task.History[0].Role)
	assert.Equal(t, task.ID, task.History[0].TaskID)
	assert.Equal(t, task.ContextID, task.History[0].ContextID)
	assert.Equal(t, "done", task.History[1].Text())
	assert.Equal(t, task.Status.Message.MessageID, task.History[1].MessageID)
	assert.NotEmpty(t, task.Status.Timestamp)
}

func TestNonBlockingSendReturnsAtOnce(t *testing.T) {
	release := make(chan struct{})
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		<-release
		return completeWithEcho(ctx, in, e)
	})
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), false))
	assert.Contains(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, task.Status.State)
	waitState(t, f, "alice", task.ID, a2a.TaskStateWorking)
	close(release)
	waitState(t, f, "alice", task.ID, a2a.TaskStateCompleted)
}

func TestBlockingDefaultAndTimeout(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return completeWithEcho(ctx, in, e)
	}
	t.Run("unset follows the configured default (false)", func(t *testing.T) {
		f := newFixture(t, slow)
		task := sent(t, f.svc, "a", a2a.MessageSendParams{Message: userMsg("m", "x")})
		assert.False(t, task.Status.State.Settled())
	})
	t.Run("blocking waits at most the timeout and returns the task as it is", func(t *testing.T) {
		f := newFixture(t, slow, func(c *service.Config, _ *agent.Info) {
			c.BlockingDefault = true
			c.BlockingTimeout = 100 * time.Millisecond
		})
		start := time.Now()
		task := sent(t, f.svc, "a", a2a.MessageSendParams{Message: userMsg("m", "x")})
		assert.Equal(t, a2a.TaskStateWorking, task.Status.State)
		assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond)
	})
}

func TestRetriedSendReturnsTheFirstTaskAndStartsNothing(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	first := sent(t, f.svc, "alice", send(userMsg("same", "one"), true))
	second := sent(t, f.svc, "alice", send(userMsg("same", "one"), true))
	assert.Equal(t, first.ID, second.ID)
	assert.Equal(t, "echo: one", second.Artifacts[0].Parts[0].Text)
	assert.EqualValues(t, 1, f.agent.calls.Load())

	// The same messageId from another caller is another task.
	other := sent(t, f.svc, "bob", send(userMsg("same", "three"), true))
	assert.NotEqual(t, first.ID, other.ID)
}

// The messageId rule, as payment APIs treat idempotency keys: within the
// window a messageId is its message's. The same message again is a retry;
// another message under it is refused, saying so; past the window the id
// is free again; with the rule off every send is a new message.
func TestMessageIDRule(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, completeWithEcho)
	first := sent(t, f.svc, "alice", send(userMsg("m1", "one"), false))

	_, err := f.svc.SendMessage(ctx, "alice", send(userMsg("m1", "two"), false))
	requireCode(t, err, a2a.CodeInvalidParams, `"m1" was already used for a different message`)
	assert.ErrorContains(t, err, "24h0m0s")
	_, err = f.svc.SendMessage(ctx, "alice", send(userMsg("m1", "one"), true))
	requireCode(t, err, a2a.CodeInvalidParams, "a different message") // another configuration: another send

	again := sent(t, f.svc, "alice", send(userMsg("m1", "one"), false))
	assert.Equal(t, first.ID, again.ID, "the same send is a retry")

	// A continuation's messageId is its message's too.
	waitState(t, f, "alice", first.ID, a2a.TaskStateCompleted)
	asker := newFixture(t, askThenAnswer)
	task := sent(t, asker.svc, "alice", send(userMsg("q1", "start"), true))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	reply := userMsg("r1", "Ada")
	reply.TaskID = task.ID
	done := sent(t, asker.svc, "alice", send(reply, true))
	other := userMsg("r1", "Grace")
	other.TaskID = task.ID
	_, err = asker.svc.SendMessage(ctx, "alice", send(other, true))
	requireCode(t, err, a2a.CodeInvalidParams, `"r1" was already used for a different message`) // a reply's messageId is taken too
	retried := sent(t, asker.svc, "alice", send(reply, true))
	assert.Equal(t, done.ID, retried.ID)

	// Past the window the id is free: another message is a new task.
	f.clock.Advance(config.DefaultIdempotencyWindow + time.Minute)
	later := sent(t, f.svc, "alice", send(userMsg("m1", "two"), false))
	assert.NotEqual(t, first.ID, later.ID)
	assert.Equal(t, "two", later.History[0].Text())
}

func TestMessageIDRuleOff(t *testing.T) {
	f := newFixture(t, completeWithEcho, func(c *service.Config, _ *agent.Info) { c.NoIdempotency = true })
	a := sent(t, f.svc, "alice", send(userMsg("tck-session", "one"), true))
	b := sent(t, f.svc, "alice", send(userMsg("tck-session", "one"), true))
	assert.EqualValues(t, 2, f.agent.calls.Load(), "both blocking sends ran")
	c := sent(t, f.svc, "alice", send(userMsg("tck-session", "two"), false))
	assert.NotEqual(t, a.ID, b.ID, "every send is a new message")
	assert.NotEqual(t, b.ID, c.ID)
	// The non-blocking send's step runs in the background: counted once
	// its task is done, not before.
	waitState(t, f, "alice", c.ID, a2a.TaskStateCompleted)
	assert.EqualValues(t, 3, f.agent.calls.Load())
}

// askThenAnswer asks a question on the first step and completes with the
// reply on the next.
func askThenAnswer(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	if in.Reply == nil {
		return agent.AskQuestion(agent.Text("name?"), map[string]any{"q": "name"}), nil
	}
	return agent.Complete(agent.Text("hello " + in.Reply.Text)), nil
}

func TestMultiTurnConversation(t *testing.T) {
	f := newFixture(t, askThenAnswer)
	task := sent(t, f.svc, "alice", send(userMsg("m1", "start"), true))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	im := task.Status.Message.Metadata.Object("shared").Object("interrupt")
	require.NotNil(t, im, "the question carries metadata.shared.interrupt")
	assert.Equal(t, "asked", im["phase"])
	assert.Equal(t, "question", im["type"])
	requestID := im["request_id"]
	assert.NotEmpty(t, requestID)

	reply := userMsg("m2", "Ada")
	reply.TaskID = task.ID
	done := sent(t, f.svc, "alice", send(reply, true))
	assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	assert.Equal(t, "hello Ada", done.Status.Message.Text())
	texts := []string{}
	for _, m := range done.History {
		texts = append(texts, string(m.Role)+":"+m.Text())
	}
	assert.Equal(t, []string{"user:start", "agent:name?", "user:Ada", "agent:Reply received; the agent continues.", "agent:hello Ada"}, texts)
	assert.Equal(t, done.ContextID, done.History[2].ContextID, "the reply joins the task's context")
	resolved := done.History[3].Metadata.Object("shared").Object("interrupt")
	require.NotNil(t, resolved, "the status after the reply shows the interrupt resolved")
	assert.Equal(t, "resolved", resolved["phase"])
	assert.Equal(t, requestID, resolved["request_id"])
	assert.Equal(t, map[string]any{"answers": [][]string{{"Ada"}}}, resolved["resolution"])

	// Retrying the reply is idempotent.
	again := sent(t, f.svc, "alice", send(reply, true))
	assert.Equal(t, done.ID, again.ID)
	assert.Len(t, again.History, 5)
}

func TestMessagesToTasksThatCannotTakeThem(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		if in.Message.Text() == "wait" {
			<-release
		}
		return completeWithEcho(ctx, in, e)
	})
	ctx := context.Background()
	done := sent(t, f.svc, "alice", send(userMsg("m1", "x"), true))
	busy := sent(t, f.svc, "alice", send(userMsg("m2", "wait"), false))
	waitState(t, f, "alice", busy.ID, a2a.TaskStateWorking)

	follow := func(id, taskID, contextID string) error {
		m := userMsg(id, "more")
		m.TaskID, m.ContextID = taskID, contextID
		_, err := f.svc.SendMessage(ctx, "alice", send(m, false))
		return err
	}
	requireCode(t, follow("f1", done.ID, ""), a2a.CodeUnsupportedOperation, "is completed and cannot take new messages")
	requireCode(t, follow("f3", "no-such-task", ""), a2a.CodeTaskNotFound, "no-such-task")
	requireCode(t, follow("f4", done.ID, "another-context"), a2a.CodeInvalidParams, "params.message.contextId")

	_, err := f.svc.SendMessage(ctx, "mallory", send(func() a2a.Message { m := userMsg("f5", "x"); m.TaskID = done.ID; return m }(), false))
	requireCode(t, err, a2a.CodeTaskNotFound, done.ID)
}

// TestMessagesToAWorkingTask: a message to a task at work is accepted
// (the task is returned, working, the message in its history) and handed
// to the agent's next step through StepInput.Inbox, exactly once, in order.
func TestMessagesToAWorkingTask(t *testing.T) {
	release := make(chan struct{})
	var inboxes [][]string
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		inboxes = append(inboxes, messageIDsOf(in.Inbox))
		if len(in.Checkpoint) == 0 {
			<-release
			return agent.Continue(0, map[string]int{"step": 2}), nil
		}
		return agent.Complete(agent.Text("done")), nil
	})
	ctx := context.Background()
	busy := sent(t, f.svc, "alice", send(userMsg("m1", "work"), false))
	waitState(t, f, "alice", busy.ID, a2a.TaskStateWorking)
	for _, id := range []string{"q1", "q2"} {
		m := userMsg(id, "more")
		m.TaskID = busy.ID
		got, err := f.svc.SendMessage(ctx, "alice", send(m, false))
		require.NoError(t, err, "a working task takes the message")
		assert.Equal(t, a2a.TaskStateWorking, got.Status.State)
		assert.Equal(t, id, got.History[len(got.History)-1].MessageID)
	}
	close(release)
	waitState(t, f, "alice", busy.ID, a2a.TaskStateCompleted)
	assert.Equal(t, [][]string{{}, {"q1", "q2"}}, inboxes, "the next step gets them, once, in order")

	// A retried send is recognised, not queued twice.
	m := userMsg("q1", "more")
	m.TaskID = busy.ID
	sent(t, f.svc, "alice", send(m, false))
}

func messageIDsOf(ms []a2a.Message) []string {
	return collect(ms, func(m a2a.Message) string { return m.MessageID })
}

// collect is f of each of xs, in order; never nil.
func collect[T, V any](xs []T, f func(T) V) []V {
	out := make([]V, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func TestNewTaskInAGivenContext(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	m := userMsg("m1", "x")
	m.ContextID = "my-context"
	task := sent(t, f.svc, "alice", send(m, true))
	assert.Equal(t, "my-context", task.ContextID)
}

func TestOwnersDoNotSeeEachOthersTasks(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "x"), true))
	_, err := f.svc.GetTask(ctx, "bob", a2a.TaskQueryParams{ID: task.ID})
	requireCode(t, err, a2a.CodeTaskNotFound, task.ID)
	_, err = f.svc.CancelTask(ctx, "bob", a2a.TaskIDParams{ID: task.ID})
	requireCode(t, err, a2a.CodeTaskNotFound, task.ID)
	list, err := f.svc.ListTasks(ctx, "bob", a2a.ListTasksParams{})
	require.NoError(t, err)
	assert.Empty(t, list.Tasks)
	assert.Equal(t, 0, list.TotalSize)
}

func TestGetHonoursHistoryLength(t *testing.T) {
	f := newFixture(t, askThenAnswer)
	ctx := context.Background()
	task := sent(t, f.svc, "a", send(userMsg("m1", "start"), true))
	r := userMsg("m2", "Ada")
	r.TaskID = task.ID
	sent(t, f.svc, "a", send(r, true))
	for _, tt := range []struct {
		length *int
		want   []string
	}{
		{nil, []string{"start", "name?", "Ada", "Reply received; the agent continues.", "hello Ada"}},
		{ptr(0), []string{}},
		{ptr(1), []string{"hello Ada"}},
		{ptr(3), []string{"Ada", "Reply received; the agent continues.", "hello Ada"}},
		{ptr(99), []string{"start", "name?", "Ada", "Reply received; the agent continues.", "hello Ada"}},
	} {
		got, err := f.svc.GetTask(ctx, "a", a2a.TaskQueryParams{ID: task.ID, HistoryLength: tt.length})
		require.NoError(t, err)
		texts := []string{}
		for _, m := range got.History {
			texts = append(texts, m.Text())
		}
		assert.Equal(t, tt.want, texts)
	}
	// message/send honours configuration.historyLength too.
	p := send(userMsg("m3", "again"), true)
	p.Configuration.HistoryLength = ptr(1)
	got := sent(t, f.svc, "a", p)
	assert.Len(t, got.History, 1)
}

func ptr[T any](v T) *T { return &v }

func TestCancel(t *testing.T) {
	stopped := make(chan struct{})
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		if in.Message.Text() == "forever" {
			<-ctx.Done() // the runner cancels the step
			close(stopped)
			return agent.Outcome{}, ctx.Err()
		}
		return completeWithEcho(ctx, in, e)
	})
	ctx := context.Background()
	live := sent(t, f.svc, "a", send(userMsg("m1", "forever"), false))
	waitState(t, f, "a", live.ID, a2a.TaskStateWorking)

	canceled, err := f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: live.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the runner did not stop the canceled task's step")
	}
	again, err := f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: live.ID})
	require.NoError(t, err, "canceling a canceled task is idempotent")
	assert.Equal(t, canceled.Status, again.Status)
	// The step's late failure does not overwrite the cancel.
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, a2a.TaskStateCanceled, waitState(t, f, "a", live.ID, a2a.TaskStateCanceled).Status.State)

	done := sent(t, f.svc, "a", send(userMsg("m2", "x"), true))
	_, err = f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: done.ID})
	requireCode(t, err, a2a.CodeTaskNotCancelable, "is completed and cannot be canceled")
	_, err = f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: "nope"})
	requireCode(t, err, a2a.CodeTaskNotFound, "nope")
	_, err = f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{})
	requireCode(t, err, a2a.CodeInvalidParams, "params.id")
}

// TestFirstTerminalStateWins races a cancel against the agent completing,
// 50 times, and checks that each task ends in exactly the state its
// canceling caller was told.
func TestFirstTerminalStateWins(t *testing.T) {
	gate := func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		return agent.Complete(agent.Text("done")), nil
	}
	ag := &scripted{info: agent.Info{Name: "race"}, step: gate}
	store := memory.New(memory.Options{})
	exec := engine.NewExecutor(store, ag, engine.Options{})
	svc := service.New(store, noRunner{}, ag.info, service.Config{}, service.Options{})
	ctx := context.Background()

	const n = 50
	ids := make([]string, n)
	for i := range ids {
		task, err := svc.SendMessage(ctx, "a", send(userMsg(fmt.Sprint("m", i), "x"), false))
		require.NoError(t, err)
		ids[i] = task.ID
	}
	type result struct {
		canceled bool
		err      error
	}
	results := make([]result, n)
	steps := make([]engine.StepResult, n)
	start := make(chan struct{}) // both sides of every pair start together
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			res, err := exec.Step(ctx, engine.Job{TaskID: id, Message: &a2a.Message{}})
			assert.NoError(t, err)
			steps[i] = res
		}()
		go func() {
			defer wg.Done()
			<-start
			task, err := svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: id})
			results[i] = result{canceled: err == nil && task.Status.State == a2a.TaskStateCanceled, err: err}
		}()
	}
	close(start)
	wg.Wait()

	var nCanceled, nCompleted int
	for i, id := range ids {
		final, err := svc.GetTask(ctx, "a", a2a.TaskQueryParams{ID: id})
		require.NoError(t, err)
		if results[i].canceled {
			nCanceled++
			assert.Equal(t, a2a.TaskStateCanceled, final.Status.State, "the canceling caller was told canceled")
			assert.Equal(t, engine.NextDone, steps[i].Next)
			assert.Equal(t, a2a.TaskStateCanceled, steps[i].State, "the step saw the cancel and dropped its result")
		} else {
			nCompleted++
			requireCode(t, results[i].err, a2a.CodeTaskNotCancelable, "is completed")
			assert.Equal(t, a2a.TaskStateCompleted, final.Status.State)
			assert.Equal(t, a2a.TaskStateCompleted, steps[i].State, "the step stored its completion")
		}
	}
	t.Logf("%d canceled first, %d completed first", nCanceled, nCompleted)
}

type noRunner struct{}

func (noRunner) Start(context.Context, engine.Job) error            { return nil }
func (noRunner) Cancel(context.Context, engine.CancelRequest) error { return nil }

type failingRunner struct{ noRunner }

func (failingRunner) Start(context.Context, engine.Job) error { return errors.New("no capacity") }

func TestRunnerFailureFailsTheTask(t *testing.T) {
	ts := memory.New(memory.Options{})
	svc := service.New(ts, failingRunner{}, agent.Info{}, service.Config{}, service.Options{})
	_, err := svc.SendMessage(context.Background(), "a", send(userMsg("m", "x"), false))
	require.Error(t, err)
	page, err := ts.ListTasks(context.Background(), store.ListQuery{Owner: "a", PageSize: 10})
	require.NoError(t, err)
	require.Len(t, page.Tasks, 1)
	assert.Equal(t, a2a.TaskStateFailed, page.Tasks[0].Task.Status.State)
	assert.Contains(t, page.Tasks[0].Task.Status.Message.Text(), "could not be started")
}

func TestSendRefusals(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	ctx := context.Background()
	tests := []struct {
		name   string
		params a2a.MessageSendParams
		code   a2a.Code
		msg    string
	}{
		{"no shared output mode", a2a.MessageSendParams{Message: userMsg("m1", "x"), Configuration: &a2a.MessageSendConfiguration{AcceptedOutputModes: []string{"image/png"}}},
			a2a.CodeContentTypeNotSupported, "none of the accepted output modes [image/png]"},
		{"inline push config", a2a.MessageSendParams{Message: userMsg("m2", "x"), Configuration: &a2a.MessageSendConfiguration{PushNotificationConfig: &a2a.PushNotificationConfig{URL: "https://x"}}},
			a2a.CodePushNotificationNotSupported, "push notifications are not supported"},
		{"invalid message", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser}}, a2a.CodeInvalidParams, "params.message.messageId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.SendMessage(ctx, "a", tt.params)
			requireCode(t, err, tt.code, tt.msg)
		})
	}
	for _, accepted := range [][]string{{"text/plain"}, {"application/*"}, {"*/*"}, {"TEXT/PLAIN; charset=utf-8", "image/png"}} {
		p := send(userMsg("ok-"+accepted[0], "x"), true)
		p.Configuration.AcceptedOutputModes = accepted
		_, err := f.svc.SendMessage(ctx, "a", p)
		assert.NoError(t, err, accepted)
	}
	assert.EqualValues(t, 4, f.agent.calls.Load(), "refused sends start nothing")
}

func TestListTasks(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		m := userMsg(fmt.Sprint("m", i), fmt.Sprint("task ", i))
		if i%2 == 0 {
			m.ContextID = "even"
		}
		task := sent(t, f.svc, "alice", send(m, true))
		ids = append([]string{task.ID}, ids...) // newest first
	}
	sent(t, f.svc, "bob", send(userMsg("b", "bob's"), true))

	page1, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{PageSize: ptr(2)})
	require.NoError(t, err)
	assert.Equal(t, 5, page1.TotalSize)
	assert.Equal(t, 2, page1.PageSize)
	require.NotEmpty(t, page1.NextPageToken)
	page2, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{PageSize: ptr(2), PageToken: page1.NextPageToken})
	require.NoError(t, err)
	page3, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{PageSize: ptr(2), PageToken: page2.NextPageToken})
	require.NoError(t, err)
	assert.Empty(t, page3.NextPageToken)
	var got []string
	for _, p := range []*a2a.ListTasksResult{page1, page2, page3} {
		for _, task := range p.Tasks {
			got = append(got, task.ID)
			assert.Empty(t, task.History, "list omits history unless asked")
			assert.Empty(t, task.Artifacts, "list omits artifacts unless asked")
		}
	}
	assert.Equal(t, ids, got, "every task once, newest first")

	_, err = f.svc.ListTasks(ctx, "bob", a2a.ListTasksParams{PageToken: page1.NextPageToken})
	requireCode(t, err, a2a.CodeInvalidParams, "params.pageToken")
	_, err = f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{PageToken: "garbage!"})
	requireCode(t, err, a2a.CodeInvalidParams, "params.pageToken")

	even, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{ContextID: "even", HistoryLength: ptr(1), IncludeArtifacts: true})
	require.NoError(t, err)
	assert.Equal(t, 3, even.TotalSize)
	for _, task := range even.Tasks {
		assert.Equal(t, "even", task.ContextID)
		assert.Len(t, task.History, 1)
		assert.Len(t, task.Artifacts, 1)
	}
	none, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{Status: a2a.TaskStateWorking})
	require.NoError(t, err)
	assert.Empty(t, none.Tasks)
	assert.NotNil(t, none.Tasks, "an empty page is [] on the wire")

	after, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{StatusTimestampAfter: page1.Tasks[1].Status.Timestamp})
	require.NoError(t, err)
	require.Len(t, after.Tasks, 1)
	assert.Equal(t, ids[0], after.Tasks[0].ID)

	_, err = f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{PageSize: ptr(101)})
	requireCode(t, err, a2a.CodeInvalidParams, "params.pageSize")
}

func TestExecutorTurnsAgentProblemsIntoFailedTasks(t *testing.T) {
	tests := []struct {
		name string
		step func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error)
		want string
	}{
		{"error", func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
			return agent.Outcome{}, errors.New("upstream said no")
		}, "The agent failed: upstream said no"},
		{"panic", func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
			panic("boom")
		}, "The agent failed: internal error in the agent"},
		{"unknown outcome", func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
			return agent.Outcome{Kind: "maybe"}, nil
		}, `Invalid agent response: unknown outcome "maybe"`},
		{"bad artifact", func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
			return agent.Complete(nil, a2a.Artifact{Parts: []a2a.Part{a2a.TextPart("x")}}), nil
		}, "Invalid agent response: artifacts[0].artifactId: is required"},
		{"huge checkpoint", func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
			return agent.Continue(time.Second, map[string]string{"x": strings.Repeat("x", 70000)}), nil
		}, "checkpoint of 70008 bytes exceeds the limit of 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.step)
			task := sent(t, f.svc, "a", send(userMsg("m", "x"), true))
			assert.Equal(t, a2a.TaskStateFailed, task.Status.State)
			assert.Contains(t, task.Status.Message.Text(), tt.want)
		})
	}
}

func TestContinueStepsKeepCheckpointAndArtifacts(t *testing.T) {
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		var n int
		if in.Checkpoint != nil {
			require.NoError(t, json.Unmarshal(in.Checkpoint, &n))
		}
		n++
		if err := e.Artifact(ctx, a2a.Artifact{ArtifactID: "p", Parts: []a2a.Part{a2a.TextPart(fmt.Sprint("step ", n))}}, agent.ArtifactOptions{Append: n > 1, LastChunk: n == 3}); err != nil {
			return agent.Outcome{}, err
		}
		if n == 3 {
			return agent.Complete(agent.Text("finished")), nil
		}
		return agent.Continue(time.Minute, n), nil
	})
	sent := sent(t, f.svc, "a", send(userMsg("m", "x"), false))
	// The runner waits a minute of the clock between steps: move it on
	// each time it waits, twice. Its wait is told from the lease keeper's
	// (a third of the lease, while a step runs) by its length.
	for range 2 {
		require.Eventually(t, func() bool { return f.clock.TimerAfter(time.Minute / 2) }, 5*time.Second, time.Millisecond, "the runner waits for the next step")
		f.clock.Advance(time.Minute)
	}
	task := waitState(t, f, "a", sent.ID, a2a.TaskStateCompleted)
	require.Len(t, task.Artifacts, 1)
	assert.Equal(t, "step 1step 2step 3", a2a.PartsText(task.Artifacts[0].Parts))
	assert.EqualValues(t, 3, f.agent.calls.Load())
}

func TestEmitterStopsAfterCancel(t *testing.T) {
	emitted := make(chan error, 1)
	canceled := make(chan struct{})
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, e agent.Emitter) (agent.Outcome, error) {
		<-canceled
		emitted <- e.Status(context.Background(), agent.Text("still here"))
		return agent.Complete(nil), nil
	})
	ctx := context.Background()
	task := sent(t, f.svc, "a", send(userMsg("m", "x"), false))
	waitState(t, f, "a", task.ID, a2a.TaskStateWorking)
	_, err := f.svc.CancelTask(ctx, "a", a2a.TaskIDParams{ID: task.ID})
	require.NoError(t, err)
	close(canceled)
	assert.ErrorIs(t, <-emitted, agent.ErrTaskFinished)
	got := waitState(t, f, "a", task.ID, a2a.TaskStateCanceled)
	assert.Len(t, got.History, 1, "nothing the step produced after the cancel was stored")
}
