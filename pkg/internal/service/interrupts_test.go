package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
)

// interrupting asks for permission or a question depending on the first
// message, and completes with what the reply said.
func interrupting(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	if r := in.Reply; r != nil {
		switch {
		case r.Type == agent.InterruptPermission:
			return agent.Complete(agent.Text("permission " + r.Permission)), nil
		case r.Rejected:
			return agent.Complete(agent.Text("declined")), nil
		}
		return agent.Complete(agent.Text("answers " + r.Text)), nil
	}
	if in.Message.Text() == "permission" {
		return agent.AskPermission(agent.Text("May I deploy?"), map[string]any{"permission": "deploy"}), nil
	}
	return agent.AskQuestion(agent.Text("Which colour?"), map[string]any{"questions": []string{"Which colour?"}}), nil
}

// ask starts a task that waits on an interrupt and returns it with its
// request id.
func ask(t *testing.T, f *fixture, owner, text string) (*a2a.Task, string) {
	t.Helper()
	task := sent(t, f.svc, owner, send(userMsg(service.NewID(), text), true))
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	im := task.Status.Message.Metadata.Object("shared").Object("interrupt")
	require.NotNil(t, im)
	assert.Equal(t, "asked", im["phase"])
	return task, im["request_id"].(string)
}

func TestInterruptCallbacks(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)

	t.Run("permission reply", func(t *testing.T) {
		task, id := ask(t, f, "alice", "permission")
		res, err := f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: id, Reply: "always", Message: "go ahead"})
		require.NoError(t, err)
		assert.Equal(t, &a2a.InterruptReplyResult{OK: true, RequestID: id}, res)
		done := waitState(t, f, "alice", task.ID, a2a.TaskStateCompleted)
		assert.Equal(t, "permission always", done.Status.Message.Text())
		resolved := done.History[3].Metadata.Object("shared").Object("interrupt")
		assert.Equal(t, map[string]any{"reply": "always", "message": "go ahead"}, resolved["resolution"])
		assert.Equal(t, "permission: always: go ahead", done.History[2].Text(), "the reply is in the history as a user message")
	})
	t.Run("question reply", func(t *testing.T) {
		task, id := ask(t, f, "alice", "question")
		_, err := f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"red", "blue"}}})
		require.NoError(t, err)
		done := waitState(t, f, "alice", task.ID, a2a.TaskStateCompleted)
		assert.Equal(t, "answers red, blue", done.Status.Message.Text())
	})
	t.Run("question reject", func(t *testing.T) {
		task, id := ask(t, f, "alice", "question")
		_, err := f.svc.RejectQuestion(ctx, "alice", a2a.QuestionRejectParams{RequestID: id})
		require.NoError(t, err)
		assert.Equal(t, "declined", waitState(t, f, "alice", task.ID, a2a.TaskStateCompleted).Status.Message.Text())
	})
	t.Run("refusals", func(t *testing.T) {
		_, perm := ask(t, f, "alice", "permission")
		_, question := ask(t, f, "alice", "question")
		_, err := f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: perm, Answers: [][]string{{"x"}}})
		requireCode(t, err, a2a.CodeInterruptTypeMismatch, "is a permission request; a2a.interrupt.question.reply cannot answer it, use a2a.interrupt.permission.reply")
		_, err = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: question, Reply: "once"})
		requireCode(t, err, a2a.CodeInterruptTypeMismatch, "is a question request")
		_, err = f.svc.ReplyPermission(ctx, "mallory", a2a.PermissionReplyParams{RequestID: perm, Reply: "once"})
		requireCode(t, err, a2a.CodeInterruptRequestNotFound, "not found")
		_, err = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: "nope", Reply: "once"})
		requireCode(t, err, a2a.CodeInterruptRequestNotFound, "interrupt request nope not found")
		_, err = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: perm, Reply: "maybe"})
		requireCode(t, err, a2a.CodeInvalidParams, `params.reply: must be once, always or reject, got "maybe"`)
		_, err = f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: question})
		requireCode(t, err, a2a.CodeInvalidParams, "params.answers")
		_, err = f.svc.RejectQuestion(ctx, "alice", a2a.QuestionRejectParams{})
		requireCode(t, err, a2a.CodeInvalidParams, "params.request_id: is required")

		_, err = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: perm, Reply: "once"})
		require.NoError(t, err)
		_, err = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: perm, Reply: "once"})
		requireCode(t, err, a2a.CodeInterruptRequestNotFound, "was already answered")
	})
}

func TestInterruptIsResolvedExactlyOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)
	for range 10 {
		_, id := ask(t, f, "alice", "permission")
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = f.svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: id, Reply: "once"})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			}
		}
		assert.Equal(t, 1, ok, "exactly one of the concurrent replies is accepted: %v", errs)
	}
}

func TestInterruptExpiry(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)
	task, id := ask(t, f, "alice", "question")

	list, err := f.svc.ListInterrupts(ctx, "alice", a2a.ListInterruptsParams{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	item := list.Items[0]
	assert.Equal(t, id, item.RequestID)
	assert.Equal(t, "question", item.Type)
	assert.Equal(t, task.ID, item.TaskID)
	assert.Equal(t, task.ContextID, item.ContextID)
	assert.Equal(t, map[string]any{"questions": []string{"Which colour?"}}, item.Details)
	assert.NotEmpty(t, item.ExpiresAt)

	// After the active TTL (1 h here): EXPIRED, for callbacks and plain
	// messages, until the runner's timer fails the task. The local runner
	// follows the fake clock and would fail it as soon as the clock moves:
	// stop it, and play its timer below.
	f.runner.Close()
	f.clock.Advance(time.Hour + time.Second)
	_, err = f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"red"}}})
	requireCode(t, err, a2a.CodeInterruptRequestExpired, "expired")
	m := userMsg("late", "red")
	m.TaskID = task.ID
	_, err = f.svc.SendMessage(ctx, "alice", send(m, false))
	requireCode(t, err, a2a.CodeInterruptRequestExpired, "expired")
	list, err = f.svc.ListInterrupts(ctx, "alice", a2a.ListInterruptsParams{})
	require.NoError(t, err)
	assert.Empty(t, list.Items, "an expired interrupt is no longer pending")

	// The runner's timer (the state machine's timeout) fails the task.
	res, err := f.exec.Expire(ctx, task.ID, id)
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateFailed, res.State)
	failed, err := f.svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateFailed, failed.Status.State)
	assert.Contains(t, failed.Status.Message.Text(), "The input request expired")

	// After the tombstone window (10 min here): NOT_FOUND.
	f.clock.Advance(10 * time.Minute)
	_, err = f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"red"}}})
	requireCode(t, err, a2a.CodeInterruptRequestNotFound, "not found")
}

func TestListInterruptsIsScopedAndFiltered(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)
	_, q := ask(t, f, "alice", "question")
	_, p := ask(t, f, "alice", "permission")
	ask(t, f, "bob", "question")
	all, err := f.svc.ListInterrupts(ctx, "alice", a2a.ListInterruptsParams{})
	require.NoError(t, err)
	require.Len(t, all.Items, 2)
	assert.Equal(t, []string{q, p}, []string{all.Items[0].RequestID, all.Items[1].RequestID}, "oldest first")
	perms, err := f.svc.ListInterrupts(ctx, "alice", a2a.ListInterruptsParams{Type: "permission"})
	require.NoError(t, err)
	require.Len(t, perms.Items, 1)
	assert.Equal(t, p, perms.Items[0].RequestID)
	_, err = f.svc.ListInterrupts(ctx, "alice", a2a.ListInterruptsParams{Type: "sms"})
	requireCode(t, err, a2a.CodeInvalidParams, "params.type")
}

// TestAwaitActivatesAtomically drives the executor's actions directly, as
// the state machine does: the step records the interrupt without showing it,
// Await shows it with its binding, a repeated Await only replaces the token.
func TestAwaitActivatesAtomically(t *testing.T) {
	ctx := context.Background()
	ag := &scripted{info: agent.Info{}, step: interrupting}
	f := newFixture(t, interrupting)
	exec := engine.NewExecutor(f.store, ag, engine.Options{Clock: f.clock})
	svc := service.New(f.store, noRunner{}, agent.Info{}, service.Config{}, service.Options{Clock: f.clock})
	task, err := svc.SendMessage(ctx, "alice", send(userMsg("m", "permission"), false))
	require.NoError(t, err)

	res, err := exec.Step(ctx, engine.Job{TaskID: task.ID, Message: &task.History[0]})
	require.NoError(t, err)
	assert.Equal(t, engine.NextAwait, res.Next)
	assert.Equal(t, a2a.TaskStateInputRequired, res.State)
	assert.Equal(t, "permission", res.InterruptType)
	shown, err := svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateWorking, shown.Status.State, "not shown before Await: no reply could find its binding yet")
	_, err = svc.ReplyPermission(ctx, "alice", a2a.PermissionReplyParams{RequestID: res.RequestID, Reply: "once"})
	requireCode(t, err, a2a.CodeInterruptRequestNotFound, "not found")

	again, err := exec.Step(ctx, engine.Job{TaskID: task.ID, Message: &task.History[0]})
	require.NoError(t, err)
	assert.Equal(t, res.RequestID, again.RequestID, "a repeated step does not run the agent again")
	assert.EqualValues(t, 1, ag.calls.Load())

	awaited, err := exec.Await(ctx, engine.AwaitRequest{TaskID: task.ID, RequestID: res.RequestID, TaskToken: "token-1"})
	require.NoError(t, err)
	assert.Equal(t, engine.NextAwait, awaited.Next)
	assert.False(t, awaited.ActiveUntil.IsZero())
	_, err = exec.Await(ctx, engine.AwaitRequest{TaskID: task.ID, RequestID: res.RequestID, TaskToken: "token-2"})
	require.NoError(t, err)
	b, err := f.store.GetInterrupt(ctx, res.RequestID)
	require.NoError(t, err)
	assert.Equal(t, "token-2", b.TaskToken)
	shown, err = svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateInputRequired, shown.Status.State)
	assert.Equal(t, "May I deploy?", shown.Status.Message.Text())
	assert.Len(t, shown.History, 2, "the question is in the history once")
}

func TestReplyCarriesTheTaskToken(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)
	exec := engine.NewExecutor(f.store, &scripted{step: interrupting}, engine.Options{Clock: f.clock})
	rr := &deadRunner{}
	svc := service.New(f.store, rr, agent.Info{}, service.Config{}, service.Options{Clock: f.clock})
	task, err := svc.SendMessage(ctx, "alice", send(userMsg("m", "question"), false))
	require.NoError(t, err)
	res, err := exec.Step(ctx, engine.Job{TaskID: task.ID, Message: &task.History[0]})
	require.NoError(t, err)
	_, err = exec.Await(ctx, engine.AwaitRequest{TaskID: task.ID, RequestID: res.RequestID, TaskToken: "sfn-token"})
	require.NoError(t, err)

	m := userMsg("reply", "green")
	m.TaskID = task.ID
	_, err = svc.SendMessage(ctx, "alice", send(m, false))
	require.NoError(t, err)
	require.Len(t, rr.jobs, 2)
	j := rr.jobs[1]
	assert.Equal(t, "sfn-token", j.TaskToken)
	require.NotNil(t, j.Reply)
	assert.Equal(t, res.RequestID, j.Reply.RequestID)
	assert.Equal(t, [][]string{{"green"}}, j.Reply.Answers)
}

// A message that answers a task's interrupt reads the task once to resume
// it (and once more for the answer): resolving the interrupt writes on
// the version that read found.
func TestReplyByMessageReadsItsTaskOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, interrupting)
	counting := &countingStore{Store: f.store}
	exec := engine.NewExecutor(f.store, &scripted{step: interrupting}, engine.Options{Clock: f.clock})
	rr := &deadRunner{}
	svc := service.New(counting, rr, agent.Info{}, service.Config{}, service.Options{Clock: f.clock})
	task, err := svc.SendMessage(ctx, "alice", send(userMsg("m", "question"), false))
	require.NoError(t, err)
	res, err := exec.Step(ctx, engine.Job{TaskID: task.ID, Message: &task.History[0]})
	require.NoError(t, err)
	_, err = exec.Await(ctx, engine.AwaitRequest{TaskID: task.ID, RequestID: res.RequestID})
	require.NoError(t, err)

	counting.reads = 0
	m := userMsg("reply", "green")
	m.TaskID = task.ID
	answered, err := svc.SendMessage(ctx, "alice", send(m, false))
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateWorking, answered.Status.State)
	require.Len(t, rr.jobs, 2)
	assert.Equal(t, res.RequestID, rr.jobs[1].Reply.RequestID)
	assert.Equal(t, 2, counting.reads, "one read to resume the task, one for the answer")
}
