package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/llm"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

const testKey = "sk-test-0123456789abcdef"

// reply is one scripted answer of the fake endpoint.
type reply struct {
	status  int
	body    string
	headers map[string]string
	delay   time.Duration
}

func ok(text string, in, out int) reply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return reply{status: 200, body: string(b)}
}

// seen is one request the fake endpoint received.
type seen struct {
	Path, Auth string
	Raw        []byte
	Body       struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
}

// endpoint is a fake model endpoint (Chat Completions, or Converse)
// answering the scripted replies in order (the last one repeats).
type endpoint struct {
	mu      sync.Mutex
	replies []reply
	seen    []seen
	url     string
}

func newEndpoint(t *testing.T, replies ...reply) *endpoint {
	e := &endpoint{replies: replies}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s seen
		s.Path, s.Auth = r.URL.EscapedPath(), r.Header.Get("Authorization")
		s.Raw, _ = io.ReadAll(r.Body)
		_ = json.Unmarshal(s.Raw, &s.Body) // a Chat Completions request
		e.mu.Lock()
		e.seen = append(e.seen, s)
		rep := e.replies[min(len(e.seen), len(e.replies))-1]
		e.mu.Unlock()
		if rep.delay > 0 {
			select {
			case <-time.After(rep.delay):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(hs.Close)
	e.url = hs.URL + "/v1"
	return e
}

func (e *endpoint) requests() []seen {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]seen(nil), e.seen...)
}

func newAgent(t *testing.T, e *endpoint, mutate func(*llm.Config)) (*llm.Agent, *bytes.Buffer) {
	t.Helper()
	logs := &bytes.Buffer{}
	cfg := llm.Config{
		BaseURL: e.url, Model: "default-model", APIKey: llm.StaticKey(testKey),
		RetryBase: time.Millisecond, Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	ag, err := llm.NewAgent(cfg)
	require.NoError(t, err)
	return ag, logs
}

func send(t *testing.T, svc *service.Service, text, taskID string, md a2a.Metadata) *a2a.Task {
	t.Helper()
	msg := agenttest.Message(text)
	msg.TaskID = taskID
	return agenttest.Send(t, svc, msg, md)
}

func usage(m *a2a.Message) map[string]any {
	return m.Metadata.Object("shared").Object("usage")
}

func TestAnswerWithUsage(t *testing.T) {
	e := newEndpoint(t, ok("Paris.", 12, 3))
	ag, logs := newAgent(t, e, func(c *llm.Config) { c.SystemPrompt = "Be brief."; c.MaxTokens = 50 })
	svc := agenttest.Serve(t, ag)

	task := send(t, svc, "Capital of France?", "", nil)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	assert.Equal(t, "Paris.", task.Status.Message.Text())
	require.Len(t, task.Artifacts, 1)
	assert.Equal(t, "answer", task.Artifacts[0].Name)
	assert.Equal(t, "Paris.", a2a.PartsText(task.Artifacts[0].Parts))
	u := usage(task.Status.Message)
	assert.EqualValues(t, 12, toInt(u["input_tokens"]))
	assert.EqualValues(t, 3, toInt(u["output_tokens"]))
	assert.EqualValues(t, 15, toInt(u["total_tokens"]))
	assert.Equal(t, "default-model", task.Status.Message.Metadata.Object("shared").Object("model")["modelID"])

	reqs := e.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/v1/chat/completions", reqs[0].Path)
	assert.Equal(t, "Bearer "+testKey, reqs[0].Auth)
	assert.Equal(t, "default-model", reqs[0].Body.Model)
	assert.Equal(t, 50, reqs[0].Body.MaxTokens)
	require.Len(t, reqs[0].Body.Messages, 2)
	assert.Equal(t, "system", reqs[0].Body.Messages[0].Role)
	assert.Equal(t, "Be brief.", reqs[0].Body.Messages[0].Content)
	assert.Equal(t, "user", reqs[0].Body.Messages[1].Role)
	assert.Equal(t, "Capital of France?", reqs[0].Body.Messages[1].Content)

	assert.Contains(t, logs.String(), `"msg":"llm call"`)
	assert.NotContains(t, logs.String(), testKey, "the key is never logged")
	assert.NotContains(t, logs.String(), "Capital of France", "the conversation is not logged")
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	}
	return -1
}

// TestChatKeepsTheConversation: in chat mode every answer is an
// input-required turn and the next message sends the whole task history.
func TestChatKeepsTheConversation(t *testing.T) {
	e := newEndpoint(t, ok("Hello Ada!", 5, 2), ok("Your name is Ada.", 20, 4))
	ag, _ := newAgent(t, e, func(c *llm.Config) { c.Chat = true })
	svc := agenttest.Serve(t, ag)

	first := send(t, svc, "Hi, I am Ada.", "", nil)
	require.Equal(t, a2a.TaskStateInputRequired, first.Status.State)
	assert.Equal(t, "Hello Ada!", first.Status.Message.Text())
	assert.NotNil(t, first.Status.Message.Metadata.Object("shared").Object("interrupt"), "the answer is a question interrupt")
	assert.EqualValues(t, 7, toInt(usage(first.Status.Message)["total_tokens"]))

	second := send(t, svc, "What is my name?", first.ID, nil)
	require.Equal(t, a2a.TaskStateInputRequired, second.Status.State)
	assert.Equal(t, "Your name is Ada.", second.Status.Message.Text())
	assert.EqualValues(t, 24, toInt(usage(second.Status.Message)["total_tokens"]), "usage of this turn")

	reqs := e.requests()
	require.Len(t, reqs, 2)
	var turns []string
	for _, m := range reqs[1].Body.Messages {
		turns = append(turns, m.Role+": "+m.Content)
	}
	assert.Equal(t, []string{"user: Hi, I am Ada.", "assistant: Hello Ada!", "user: What is my name?"}, turns)
}

// TestContextKeepsTheConversation: a new task in the same context sends
// the context's earlier messages first, read from the task store; another
// context starts afresh.
func TestContextKeepsTheConversation(t *testing.T) {
	e := newEndpoint(t, ok("Hello Ada!", 5, 2), ok("Your name is Ada.", 20, 4), ok("I do not know your name.", 5, 5), ok("Ada, still.", 9, 3))
	ag, _ := newAgent(t, e, func(c *llm.Config) { c.ContextMessages = 10 })
	svc := agenttest.Serve(t, ag)
	inContext := func(text, contextID string) *a2a.Task {
		t.Helper()
		msg := agenttest.Message(text)
		msg.ContextID = contextID
		task := agenttest.Send(t, svc, msg, nil)
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		return task
	}
	turns := func(i int) []string {
		var out []string
		for _, m := range e.requests()[i].Body.Messages {
			out = append(out, m.Role+": "+m.Content)
		}
		return out
	}

	first := inContext("Hi, I am Ada.", "")
	second := inContext("What is my name?", first.ContextID)
	assert.NotEqual(t, first.ID, second.ID, "a new task")
	assert.Equal(t, "Your name is Ada.", second.Status.Message.Text())
	assert.Equal(t, []string{"user: Hi, I am Ada.", "assistant: Hello Ada!", "user: What is my name?"}, turns(1))

	inContext("What is my name?", "another-context")
	assert.Equal(t, []string{"user: What is my name?"}, turns(2), "another context starts afresh")

	inContext("And now?", first.ContextID)
	assert.Equal(t, []string{
		"user: Hi, I am Ada.", "assistant: Hello Ada!", "user: What is my name?", "assistant: Your name is Ada.", "user: And now?",
	}, turns(3), "every earlier task of the context, oldest first")
	assert.Equal(t, llm.DefaultContextMessages, mustConfig(t, map[string]string{}).ContextMessages, "on by default")
	assert.Equal(t, 0, mustConfig(t, map[string]string{llm.EnvContextMessages: "0"}).ContextMessages, "0 turns it off")
}

func mustConfig(t *testing.T, env map[string]string) llm.Config {
	t.Helper()
	env[llm.EnvBaseURL], env[llm.EnvModel] = "https://llm.example.com/v1", "m"
	cfg, err := llm.ConfigFrom(agent.NewSettings(func(k string) string { return env[k] }, nil))
	require.NoError(t, err)
	return cfg
}

func TestModelOverride(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reqMD     a2a.Metadata
		msgMD     a2a.Metadata
		allowed   []string
		wantModel string
		rejected  string
	}{
		{name: "default", wantModel: "default-model"},
		{name: "request metadata", reqMD: modelMD("openai", "gpt-x"), allowed: []string{"gpt-x"}, wantModel: "gpt-x"},
		{name: "message metadata wins", reqMD: modelMD("openai", "gpt-x"), msgMD: modelMD("openai", "gpt-y"), allowed: []string{"*"}, wantModel: "gpt-y"},
		{name: "the default model needs no list", reqMD: modelMD("", "default-model"), wantModel: "default-model"},
		{name: "no list allows no other", reqMD: modelMD("", "gpt-x"), rejected: `Model "gpt-x" is not allowed here: this agent answers with default-model only (A2A_LLM_ALLOWED_MODELS lists the models a request may choose).`},
		{name: "allowed", reqMD: modelMD("", "gpt-x"), allowed: []string{"gpt-x"}, wantModel: "gpt-x"},
		{name: "not allowed", reqMD: modelMD("", "gpt-big"), allowed: []string{"gpt-x"}, rejected: `Model "gpt-big" is not allowed here; choose one of: default-model, gpt-x.`},
		{name: "invalid", reqMD: modelMD("", "bad model\n"), rejected: "not a valid model name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEndpoint(t, ok("ok", 1, 1))
			ag, _ := newAgent(t, e, func(c *llm.Config) { c.AllowedModels = tc.allowed })
			msg := a2a.Message{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}, Metadata: tc.msgMD}
			out, err := ag.Step(context.Background(), agent.StepInput{Task: a2a.Task{History: []a2a.Message{msg}}, Message: &msg, Metadata: tc.reqMD}, nil)
			require.NoError(t, err)
			if tc.rejected != "" {
				assert.Equal(t, agent.OutcomeRejected, out.Kind)
				assert.Contains(t, out.Message.Text(), tc.rejected)
				assert.Empty(t, e.requests())
				return
			}
			require.Equal(t, agent.OutcomeCompleted, out.Kind)
			assert.Equal(t, tc.wantModel, e.requests()[0].Body.Model)
			assert.Equal(t, tc.wantModel, out.Message.Metadata.Object("shared").Object("model")["modelID"])
		})
	}
}

func modelMD(provider, model string) a2a.Metadata {
	return a2a.Metadata{"shared": map[string]any{"model": map[string]any{"providerID": provider, "modelID": model}}}
}

func TestUpstreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replies  []reply
		key      string
		state    agent.OutcomeKind
		message  string
		attempts int
	}{
		{name: "429 then 200 is retried", replies: []reply{{status: 429, body: `{"error":{"message":"Rate limit reached"}}`, headers: map[string]string{"Retry-After": "0"}}, ok("fine", 1, 1)},
			state: agent.OutcomeCompleted, message: "fine", attempts: 2},
		{name: "503 twice then 200", replies: []reply{{status: 503, body: "busy"}, {status: 502, body: "bad gateway"}, ok("fine", 1, 1)},
			state: agent.OutcomeCompleted, message: "fine", attempts: 3},
		{name: "401 is not retried and never quotes the endpoint", replies: []reply{{status: 401, body: `{"error":{"message":"Incorrect API key provided: sk-test-**********cdef"}}`}},
			state: agent.OutcomeFailed, message: "the model endpoint refused the API key (HTTP 401); check A2A_LLM_API_KEY", attempts: 1},
		{name: "401 without a key", key: "none", replies: []reply{{status: 401, body: `{}`}},
			state: agent.OutcomeFailed, message: "requires an API key (HTTP 401); set A2A_LLM_API_KEY", attempts: 1},
		{name: "400 is not retried and quotes the endpoint", replies: []reply{{status: 400, body: `{"error":{"message":"This model's maximum context length is 8192 tokens, key ` + testKey + `"}}`}},
			state: agent.OutcomeFailed, message: "the model endpoint rejected the request (HTTP 400): This model's maximum context length is 8192 tokens, key [redacted]", attempts: 1},
		{name: "404 model", replies: []reply{{status: 404, body: `{"error":{"message":"The model does not exist"}}`}},
			state: agent.OutcomeFailed, message: "(HTTP 404): The model does not exist", attempts: 1},
		{name: "empty answer", replies: []reply{{status: 200, body: `{"choices":[{"message":{"content":""},"finish_reason":"length"}]}`}},
			state: agent.OutcomeFailed, message: "the model returned an empty answer (finish reason length)", attempts: 1},
		{name: "content parts", replies: []reply{{status: 200, body: `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`}},
			state: agent.OutcomeCompleted, message: "ab", attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEndpoint(t, tc.replies...)
			ag, logs := newAgent(t, e, func(c *llm.Config) {
				if tc.key == "none" {
					c.APIKey = nil
				}
			})
			msg := agent.Text("hi")
			msg.Role = a2a.RoleUser
			out, err := ag.Step(context.Background(), agent.StepInput{Message: msg}, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.state, out.Kind)
			assert.Contains(t, out.Message.Text(), tc.message)
			assert.NotContains(t, out.Message.Text(), testKey)
			assert.NotContains(t, out.Message.Text(), "cdef", "not even the part of the key the endpoint echoes")
			assert.Len(t, e.requests(), tc.attempts)
			assert.NotContains(t, logs.String(), testKey)
			if tc.key == "none" {
				assert.Empty(t, e.requests()[0].Auth, "no key, no Authorization header")
			}
		})
	}
}

// TestRetriesStopAtTheStepBudget: 5xx forever, a 400 ms step deadline; the
// agent gives up in time to record a failure.
func TestRetriesStopAtTheStepBudget(t *testing.T) {
	e := newEndpoint(t, reply{status: 500, body: `{"error":{"message":"overloaded"}}`})
	ag, _ := newAgent(t, e, func(c *llm.Config) { c.RetryBase = 50 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	out, err := ag.Step(ctx, agent.StepInput{Message: &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, nil)
	require.NoError(t, err)
	assert.NoError(t, ctx.Err(), "the agent returned before the step's deadline")
	assert.Equal(t, agent.OutcomeFailed, out.Kind)
	assert.Contains(t, out.Message.Text(), "the model endpoint failed (HTTP 500): overloaded (after ")
	assert.Contains(t, out.Message.Text(), "no time left in the step budget to retry")
	assert.Greater(t, len(e.requests()), 1, "5xx are retried")
}

func TestSlowModelHitsTheDeadline(t *testing.T) {
	e := newEndpoint(t, reply{status: 200, body: `{}`, delay: 5 * time.Second})
	t.Run("step deadline", func(t *testing.T) {
		ag, _ := newAgent(t, e, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		out, err := ag.Step(ctx, agent.StepInput{Message: &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, nil)
		require.NoError(t, err)
		assert.Less(t, time.Since(start), 300*time.Millisecond)
		assert.Equal(t, agent.OutcomeFailed, out.Kind)
		assert.Regexp(t, `did not answer within the step budget of 2\d0ms$`, out.Message.Text())
	})
	t.Run("configured timeout without a deadline", func(t *testing.T) {
		ag, _ := newAgent(t, e, func(c *llm.Config) { c.Timeout = 100 * time.Millisecond })
		out, err := ag.Step(context.Background(), agent.StepInput{Message: &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, nil)
		require.NoError(t, err)
		assert.Equal(t, agent.OutcomeFailed, out.Kind)
		assert.Contains(t, out.Message.Text(), "did not answer within the step budget of 100ms")
	})
	t.Run("canceled task", func(t *testing.T) {
		ag, _ := newAgent(t, e, nil)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := ag.Step(ctx, agent.StepInput{Message: &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, nil)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

func TestHistoryBound(t *testing.T) {
	e := newEndpoint(t, ok("ok", 1, 1))
	ag, _ := newAgent(t, e, func(c *llm.Config) { c.MaxHistoryChars = 10 })
	hist := []a2a.Message{
		{Role: a2a.RoleUser, MessageID: "1", Parts: []a2a.Part{a2a.TextPart("first long message")}},
		{Role: a2a.RoleAgent, MessageID: "2", Parts: []a2a.Part{a2a.TextPart("answer")}},
		{Role: a2a.RoleUser, MessageID: "3", Parts: []a2a.Part{a2a.TextPart("last")}},
	}
	_, err := ag.Step(context.Background(), agent.StepInput{Task: a2a.Task{History: hist}, Message: &hist[2]}, nil)
	require.NoError(t, err)
	msgs := e.requests()[0].Body.Messages
	require.Len(t, msgs, 2, "the oldest message is dropped")
	assert.Equal(t, "answer", msgs[0].Content)
	assert.Equal(t, "last", msgs[1].Content)
}

func TestSettings(t *testing.T) {
	env := envtest.Settings
	_, err := llm.New(env())
	require.Error(t, err)
	assert.ErrorContains(t, err, "A2A_LLM_BASE_URL is required")
	assert.ErrorContains(t, err, "A2A_LLM_MODEL is required")

	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{llm.EnvBaseURL, "ftp://x", llm.EnvModel, "m"}, "A2A_LLM_BASE_URL=\"ftp://x\" must be an absolute http(s) URL"},
		{[]string{llm.EnvBaseURL, "https://u:p@x/v1", llm.EnvModel, "m"}, "must not carry credentials"},
		{[]string{llm.EnvBaseURL, "https://x/v1", llm.EnvModel, "m", llm.EnvMaxTokens, "lots"}, "A2A_LLM_MAX_TOKENS=\"lots\""},
		{[]string{llm.EnvBaseURL, "https://x/v1", llm.EnvModel, "m", llm.EnvChat, "maybe"}, "A2A_LLM_CHAT=\"maybe\" must be true or false"},
		{[]string{llm.EnvBaseURL, "https://x/v1", llm.EnvModel, "m", llm.EnvTimeout, "0"}, "A2A_LLM_TIMEOUT_SECONDS"},
	} {
		_, err := llm.New(env(tc.env...))
		assert.ErrorContains(t, err, tc.want)
	}

	ag, err := llm.New(env(llm.EnvBaseURL, "https://api.example.com/v1/", llm.EnvModel, "gpt-x", llm.EnvAPIKey, testKey, llm.EnvChat, "true"))
	require.NoError(t, err)
	assert.Contains(t, ag.Info().Description, "gpt-x")
	assert.NotContains(t, ag.Info().Description, "example.com", "the endpoint is not advertised")

	// A key source replaces A2A_LLM_API_KEY (the Lambda wiring resolves SSM or Secrets Manager).
	e := newEndpoint(t, ok("ok", 1, 1))
	ag, err = llm.NewWithKeySource(env(llm.EnvBaseURL, e.url, llm.EnvModel, "m", llm.EnvAPIKey, "ignored"), llm.StaticKey("from-ssm"))
	require.NoError(t, err)
	_, err = ag.Step(context.Background(), agent.StepInput{Message: &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "Bearer from-ssm", e.requests()[0].Auth)
}
