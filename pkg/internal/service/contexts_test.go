package service_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

func intp(n int) *int { return &n }

func TestFeedback(t *testing.T) {
	f := newFixture(t, completeWithEcho)
	ctx := context.Background()
	done := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	require.Equal(t, a2a.TaskStateCompleted, done.Status.State)

	res, err := f.svc.Feedback(ctx, "alice", a2a.TaskFeedbackParams{TaskID: done.ID, Rating: 5, Comment: "spot on"})
	require.NoError(t, err)
	assert.Equal(t, &a2a.OKResult{OK: true}, res)
	got, err := f.svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: done.ID})
	require.NoError(t, err)
	fb := got.Metadata["feedback"].(map[string]any)
	assert.Equal(t, 5, fb["rating"])
	assert.Equal(t, "spot on", fb["comment"])
	assert.NotEmpty(t, fb["createdAt"])

	for _, tc := range []struct {
		name, owner string
		p           a2a.TaskFeedbackParams
		code        a2a.Code
		msg         string
	}{
		{"rating too low", "alice", a2a.TaskFeedbackParams{TaskID: done.ID, Rating: 0}, a2a.CodeInvalidParams, "params.rating: must be between 1 and 5, got 0"},
		{"rating too high", "alice", a2a.TaskFeedbackParams{TaskID: done.ID, Rating: 6}, a2a.CodeInvalidParams, "params.rating"},
		{"no task", "alice", a2a.TaskFeedbackParams{Rating: 3}, a2a.CodeInvalidParams, "params.taskId: is required"},
		{"unknown task", "alice", a2a.TaskFeedbackParams{TaskID: "nope", Rating: 3}, a2a.CodeTaskNotFound, "task nope not found"},
		{"another caller's task", "bob", a2a.TaskFeedbackParams{TaskID: done.ID, Rating: 3}, a2a.CodeTaskNotFound, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.Feedback(ctx, tc.owner, tc.p)
			requireCode(t, err, tc.code, tc.msg)
		})
	}

	// A live task takes no feedback.
	ask := newFixture(t, func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
		return agent.AskQuestion(agent.Text("name?"), nil), nil
	})
	live := sent(t, ask.svc, "alice", send(userMsg("m1", "hi"), true))
	_, err = ask.svc.Feedback(ctx, "alice", a2a.TaskFeedbackParams{TaskID: live.ID, Rating: 2})
	requireCode(t, err, a2a.CodeInvalidParams, "is input-required; feedback is taken on finished tasks")
}

func TestContexts(t *testing.T) {
	var mu sync.Mutex
	release := map[string]chan struct{}{}
	f := newFixture(t, func(ctx context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
		if in.Message.Text() == "wait" {
			mu.Lock()
			ch := make(chan struct{})
			release[in.Task.ID] = ch
			mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		return agent.Complete(agent.Text("ok")), nil
	})
	ctx := context.Background()
	first := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	inA := userMsg("m2", "again")
	inA.ContextID = first.ContextID
	sent(t, f.svc, "alice", send(inA, true))
	other := sent(t, f.svc, "alice", send(userMsg("m3", "hi"), true))
	sent(t, f.svc, "bob", send(userMsg("m4", "hi"), true))

	res, err := f.svc.ListContexts(ctx, "alice", a2a.ListContextsParams{})
	require.NoError(t, err)
	require.Len(t, res.Contexts, 2)
	assert.Equal(t, other.ContextID, res.Contexts[0].ContextID, "newest first")
	assert.Equal(t, 1, res.Contexts[0].TaskCount)
	assert.Equal(t, first.ContextID, res.Contexts[1].ContextID)
	assert.Equal(t, 2, res.Contexts[1].TaskCount)
	assert.NotEmpty(t, res.Contexts[1].UpdatedAt)
	assert.Empty(t, res.NextPageToken)

	page, err := f.svc.ListContexts(ctx, "alice", a2a.ListContextsParams{PageSize: intp(1)})
	require.NoError(t, err)
	require.Len(t, page.Contexts, 1)
	require.NotEmpty(t, page.NextPageToken)
	next, err := f.svc.ListContexts(ctx, "alice", a2a.ListContextsParams{PageSize: intp(1), PageToken: page.NextPageToken})
	require.NoError(t, err)
	assert.Equal(t, first.ContextID, next.Contexts[0].ContextID)
	_, err = f.svc.ListContexts(ctx, "bob", a2a.ListContextsParams{PageSize: intp(1), PageToken: page.NextPageToken})
	requireCode(t, err, a2a.CodeInvalidParams, "not a page token issued to this caller")
	_, err = f.svc.ListContexts(ctx, "alice", a2a.ListContextsParams{PageSize: intp(0)})
	requireCode(t, err, a2a.CodeInvalidParams, "params.pageSize")

	// A context with a running task cannot be cleared.
	waiting := userMsg("m5", "wait")
	waiting.ContextID = first.ContextID
	live := sent(t, f.svc, "alice", send(waiting, false))
	_, err = f.svc.ClearContext(ctx, "alice", a2a.ClearContextParams{ContextID: first.ContextID})
	requireCode(t, err, a2a.CodeContextNotCancelable, "context "+first.ContextID+" has task "+live.ID)
	_, err = f.svc.CancelTask(ctx, "alice", a2a.TaskIDParams{ID: live.ID})
	require.NoError(t, err)

	ok, err := f.svc.ClearContext(ctx, "alice", a2a.ClearContextParams{ContextID: first.ContextID})
	require.NoError(t, err)
	assert.True(t, ok.OK)
	_, err = f.svc.GetTask(ctx, "alice", a2a.TaskQueryParams{ID: first.ID})
	requireCode(t, err, a2a.CodeTaskNotFound, "not found")
	list, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{})
	require.NoError(t, err)
	assert.Equal(t, 1, list.TotalSize, "only the other context's task is left")
	res, err = f.svc.ListContexts(ctx, "alice", a2a.ListContextsParams{})
	require.NoError(t, err)
	require.Len(t, res.Contexts, 1)

	_, err = f.svc.ClearContext(ctx, "alice", a2a.ClearContextParams{ContextID: first.ContextID})
	requireCode(t, err, a2a.CodeContextNotFound, "context "+first.ContextID+" not found")
	_, err = f.svc.ClearContext(ctx, "bob", a2a.ClearContextParams{ContextID: other.ContextID})
	requireCode(t, err, a2a.CodeContextNotFound, "not found")
	_, err = f.svc.ClearContext(ctx, "alice", a2a.ClearContextParams{})
	requireCode(t, err, a2a.CodeInvalidParams, "params.contextId: is required")
	mu.Lock()
	for _, ch := range release {
		close(ch)
	}
	mu.Unlock()
}

// metadataLog is an agent that records the request metadata of every step
// it runs. It asks a question when the message says "ask" and otherwise
// completes.
type metadataLog struct {
	mu   sync.Mutex
	seen []a2a.Metadata
}

func (l *metadataLog) step(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	l.mu.Lock()
	l.seen = append(l.seen, in.Metadata)
	l.mu.Unlock()
	if in.Message != nil && in.Message.Text() == "ask" {
		return agent.AskQuestion(agent.Text("?"), nil), nil
	}
	return agent.Complete(agent.Text("ok")), nil
}

// last is the metadata of the latest step.
func (l *metadataLog) last() a2a.Metadata {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[len(l.seen)-1]
}

func sessionID(md a2a.Metadata) string {
	return md.Object("shared").Object("session").String("id")
}

func TestSessionBinding(t *testing.T) {
	var log metadataLog
	f := newFixture(t, log.step)

	first := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	session := sessionID(first.Metadata)
	require.NotEmpty(t, session, "a new context gets a session")
	assert.Equal(t, session, sessionID(log.last()), "the agent sees the session in the request metadata")

	again := userMsg("m2", "hi")
	again.ContextID = first.ContextID
	second := sent(t, f.svc, "alice", send(again, true))
	assert.Equal(t, session, sessionID(second.Metadata), "one session per (caller, contextId)")

	bobs := userMsg("m3", "hi")
	bobs.ContextID = first.ContextID
	bob := sent(t, f.svc, "bob", send(bobs, true))
	assert.NotEqual(t, session, sessionID(bob.Metadata), "another caller's context of the same id has its own session")

	other := sent(t, f.svc, "alice", send(userMsg("m4", "hi"), true))
	assert.NotEqual(t, session, sessionID(other.Metadata))

	// An explicit session wins for its request; the context keeps its own.
	explicit := send(userMsg("m5", "ask"), true)
	explicit.Message.ContextID = first.ContextID
	explicit.Metadata = a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "upstream-7"}}}
	asked := sent(t, f.svc, "alice", explicit)
	assert.Equal(t, "upstream-7", sessionID(asked.Metadata))
	// The reply continues the task's session.
	reply := userMsg("m6", "fine")
	reply.TaskID = asked.ID
	sent(t, f.svc, "alice", send(reply, true))
	assert.Equal(t, "upstream-7", sessionID(log.last()))
	later := userMsg("m7", "hi")
	later.ContextID = first.ContextID
	third := sent(t, f.svc, "alice", send(later, true))
	assert.Equal(t, session, sessionID(third.Metadata), "the context's session is kept")

	// A message's own metadata may name the session too.
	inMsg := userMsg("m8", "hi")
	inMsg.Metadata = a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "from-message"}}}
	fromMsg := sent(t, f.svc, "alice", send(inMsg, true))
	assert.Equal(t, "from-message", sessionID(fromMsg.Metadata))
}

func TestModelSelection(t *testing.T) {
	var log metadataLog
	f := newFixture(t, log.step)
	ctx := context.Background()
	withModel := func(id string, model any, inMessage bool) a2a.MessageSendParams {
		p := send(userMsg(id, "hi"), true)
		md := a2a.Metadata{"shared": map[string]any{"model": model}}
		if inMessage {
			p.Message.Metadata = md
		} else {
			p.Metadata = md
		}
		return p
	}
	sent(t, f.svc, "alice", withModel("ok", map[string]any{"providerID": "google", "modelID": "gemini-2.5-flash"}, false))
	assert.Equal(t, map[string]any{"providerID": "google", "modelID": "gemini-2.5-flash"}, log.last().Object("shared")["model"], "the agent gets the model")
	_, err := f.svc.SendMessage(ctx, "alice", withModel("empty", map[string]any{}, false))
	require.NoError(t, err, "neither field is fine")

	for _, tc := range []struct {
		name      string
		model     any
		inMessage bool
		msg       string
	}{
		{"provider only", map[string]any{"providerID": "google"}, false, "params.metadata.shared.model: providerID and modelID go together"},
		{"model only", map[string]any{"modelID": "m"}, true, "params.message.metadata.shared.model: providerID and modelID go together"},
		{"empty model", map[string]any{"providerID": "p", "modelID": ""}, false, "go together"},
		{"not strings", map[string]any{"providerID": 1, "modelID": "m"}, false, "must be strings"},
		{"not an object", "gpt", false, "must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.SendMessage(ctx, "alice", withModel(tc.name, tc.model, tc.inMessage))
			requireCode(t, err, a2a.CodeInvalidParams, tc.msg)
		})
	}
}

func TestUsageOnFinalStatus(t *testing.T) {
	usage := map[string]any{"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}
	f := newFixture(t, func(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
		msg := agent.Text("answer")
		msg.Metadata = a2a.Metadata{"shared": map[string]any{"usage": usage}}
		return agent.Complete(msg), nil
	})
	ctx := context.Background()
	done := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	assert.Equal(t, usage, done.Status.Message.Metadata.Object("shared")["usage"], "on the final status message")
	assert.Equal(t, usage, done.Metadata.Object("shared")["usage"], "and on the task, for non-streaming answers")
	assert.NotEmpty(t, sessionID(done.Metadata), "next to the session")
	list, err := f.svc.ListTasks(ctx, "alice", a2a.ListTasksParams{})
	require.NoError(t, err)
	assert.Equal(t, usage, list.Tasks[0].Metadata.Object("shared")["usage"])

	plain := newFixture(t, completeWithEcho)
	task := sent(t, plain.svc, "alice", send(userMsg("m1", "hi"), true))
	assert.Nil(t, task.Metadata.Object("shared")["usage"], "no usage reported, none shown")
}
