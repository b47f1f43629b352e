package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/llm"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

const bedrockModel = "anthropic.claude-3-haiku-20240307-v1:0"

// converseOK is a Converse answer.
func converseOK(text string, in, out int) reply {
	b, _ := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"text": text}}}},
		"stopReason": "end_turn",
		"usage":      map[string]any{"inputTokens": in, "outputTokens": out, "totalTokens": in + out},
		"metrics":    map[string]any{"latencyMs": 42},
	})
	return reply{status: 200, body: string(b)}
}

// converseRequest is a Converse request the fake endpoint received.
type converseRequest struct {
	Path, Auth string
	Body       struct {
		Messages []struct {
			Role    string
			Content []struct{ Text string }
		}
		System          []struct{ Text string }
		InferenceConfig *struct{ MaxTokens int }
	}
}

// converse is a fake Bedrock Runtime endpoint on loopback.
type converse struct {
	*endpoint
	url string
}

func newConverse(t *testing.T, replies ...reply) *converse {
	e := newEndpoint(t, replies...)
	return &converse{endpoint: e, url: strings.TrimSuffix(e.url, "/v1")}
}

func (c *converse) requests() []converseRequest {
	var out []converseRequest
	for _, s := range c.endpoint.requests() {
		r := converseRequest{Path: s.Path, Auth: s.Auth}
		if err := json.Unmarshal(s.Raw, &r.Body); err != nil {
			panic(err)
		}
		out = append(out, r)
	}
	return out
}

// bedrockEnv is the environment of a function (or the local server) that
// serves the llm agent on Bedrock, at the fake endpoint.
func bedrockEnv(c *converse, kv ...string) []string {
	return append([]string{
		"A2A_LLM_PROVIDER", "bedrock", "A2A_LLM_MODEL", bedrockModel,
		"AWS_REGION", "us-east-1", "AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY", "secret", "AWS_SESSION_TOKEN", "session",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME", c.url,
	}, kv...)
}

func newBedrockAgent(t *testing.T, c *converse, kv ...string) *llm.Agent {
	t.Helper()
	cfg, err := llm.ConfigFrom(envtest.Settings(bedrockEnv(c, kv...)...))
	require.NoError(t, err)
	cfg.RetryBase = time.Millisecond
	ag, err := llm.NewAgent(cfg)
	require.NoError(t, err)
	return ag
}

// The Bedrock provider answers through Converse, signed with the
// environment's credentials for the service "bedrock" in AWS_REGION, the
// model id escaped as one path segment, the system prompt apart, and the
// usage mapped as the OpenAI path maps it.
func TestBedrockAnswersWithUsage(t *testing.T) {
	c := newConverse(t, converseOK("Paris.", 3, 5))
	ag := newBedrockAgent(t, c, "A2A_LLM_SYSTEM_PROMPT", "Be brief.", "A2A_LLM_MAX_TOKENS", "64")
	svc := agenttest.Serve(t, ag)
	task := send(t, svc, "Capital of France?", "", nil)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State, task.Status.Message.Text())
	assert.Equal(t, "Paris.", task.Status.Message.Text())
	assert.Equal(t, map[string]any{"input_tokens": 3.0, "output_tokens": 5.0, "total_tokens": 8.0}, toFloats(usage(task.Status.Message)))
	assert.Equal(t, map[string]any{"input_tokens": 3.0, "output_tokens": 5.0, "total_tokens": 8.0}, toFloats(task.Metadata.Object("shared").Object("usage")), "the task's usage metadata")

	reqs := c.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse", reqs[0].Path)
	assert.Contains(t, reqs[0].Auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
	assert.Contains(t, reqs[0].Auth, "/us-east-1/bedrock/aws4_request")
	assert.Equal(t, "Be brief.", reqs[0].Body.System[0].Text)
	require.Len(t, reqs[0].Body.Messages, 1)
	assert.Equal(t, "user", reqs[0].Body.Messages[0].Role)
	assert.Equal(t, "Capital of France?", reqs[0].Body.Messages[0].Content[0].Text)
	assert.Equal(t, 64, reqs[0].Body.InferenceConfig.MaxTokens)
}

// Converse wants turns that alternate and start with the user: the
// conversation's consecutive messages of one role are joined, and the
// agent's before the first user message left out.
func TestBedrockTurnsAlternate(t *testing.T) {
	c := newConverse(t, converseOK("ok", 1, 1))
	ag := newBedrockAgent(t, c)
	history := []a2a.Message{
		{Role: a2a.RoleAgent, MessageID: "a0", Parts: []a2a.Part{a2a.TextPart("Welcome.")}},
		{Role: a2a.RoleUser, MessageID: "u1", Parts: []a2a.Part{a2a.TextPart("one")}},
		{Role: a2a.RoleUser, MessageID: "u2", Parts: []a2a.Part{a2a.TextPart("two")}},
		{Role: a2a.RoleAgent, MessageID: "a1", Parts: []a2a.Part{a2a.TextPart("Working...")}},
		{Role: a2a.RoleAgent, MessageID: "a2", Parts: []a2a.Part{a2a.TextPart("Which one?")}},
		{Role: a2a.RoleUser, MessageID: "u3", Parts: []a2a.Part{a2a.TextPart("both")}},
	}
	out, err := ag.Step(context.Background(), agent.StepInput{Task: a2a.Task{History: history}, Message: &history[5]}, nil)
	require.NoError(t, err)
	require.Equal(t, agent.OutcomeCompleted, out.Kind, out.Message.Text())
	var turns []string
	for _, m := range c.requests()[0].Body.Messages {
		turns = append(turns, m.Role+": "+m.Content[0].Text)
	}
	assert.Equal(t, []string{"user: one\n\ntwo", "assistant: Working...\n\nWhich one?", "user: both"}, turns)
	assert.Nil(t, c.requests()[0].Body.InferenceConfig, "no A2A_LLM_MAX_TOKENS: the model's default")
}

// Bedrock's failures fail the task with its exception and message;
// throttling and server errors are retried, the others not; an access
// denial names what to grant, not the role Bedrock quotes.
func TestBedrockErrors(t *testing.T) {
	throttled := reply{status: 429, body: `{"message":"Too many requests, please wait before trying again."}`,
		headers: map[string]string{"X-Amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}
	for _, tc := range []struct {
		name     string
		replies  []reply
		state    agent.OutcomeKind
		message  string
		attempts int
	}{
		{name: "throttling is retried", replies: []reply{throttled, converseOK("fine", 1, 1)},
			state: agent.OutcomeCompleted, message: "fine", attempts: 2},
		{name: "throttling until the budget ends", replies: []reply{throttled},
			state: agent.OutcomeFailed, message: "Bedrock is throttling requests (ThrottlingException): Too many requests, please wait before trying again. (after "},
		{name: "server errors are retried", replies: []reply{
			{status: 503, body: `{"message":"Bedrock is unable to process your request."}`, headers: map[string]string{"X-Amzn-ErrorType": "ServiceUnavailableException"}},
			{status: 500, body: `{"__type":"com.amazon.bedrock#InternalServerException","message":"oops"}`}, converseOK("fine", 1, 1)},
			state: agent.OutcomeCompleted, message: "fine", attempts: 3},
		{name: "validation is not retried and quotes Bedrock", replies: []reply{{status: 400, body: `{"message":"The model returned the following errors: max_tokens: 100000 > 4096"}`,
			headers: map[string]string{"X-Amzn-ErrorType": "ValidationException"}}},
			state: agent.OutcomeFailed, message: "The language model could not answer: Bedrock answered ValidationException: The model returned the following errors: max_tokens: 100000 > 4096", attempts: 1},
		{name: "unknown model", replies: []reply{{status: 404, body: `{"code":"ResourceNotFoundException","message":"Model not found."}`}},
			state: agent.OutcomeFailed, message: "Bedrock answered ResourceNotFoundException: Model not found.", attempts: 1},
		{name: "access denied", replies: []reply{{status: 403, body: `{"message":"User: arn:aws:sts::123456789012:assumed-role/stack-SendRole/fn is not authorized to perform: bedrock:InvokeModel"}`,
			headers: map[string]string{"X-Amzn-ErrorType": "AccessDeniedException"}}},
			state: agent.OutcomeFailed, message: "Bedrock refused the function's credentials for model " + bedrockModel + " (AccessDeniedException): the role needs bedrock:InvokeModel on it", attempts: 1},
		{name: "guardrail: no text", replies: []reply{{status: 200, body: `{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"guardrail_intervened","usage":{"inputTokens":1,"outputTokens":0,"totalTokens":1}}`}},
			state: agent.OutcomeFailed, message: "the model returned an empty answer (stop reason guardrail_intervened)", attempts: 1},
		{name: "not converse JSON", replies: []reply{{status: 200, body: `<html>`}},
			state: agent.OutcomeFailed, message: "Bedrock's answer is not Converse JSON", attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConverse(t, tc.replies...)
			ag := newBedrockAgent(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			msg := agent.Text("hi")
			msg.Role = a2a.RoleUser
			out, err := ag.Step(ctx, agent.StepInput{Message: msg}, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.state, out.Kind)
			assert.Contains(t, out.Message.Text(), tc.message)
			assert.NotContains(t, out.Message.Text(), "123456789012", "the role's account is not quoted")
			if tc.attempts > 0 {
				assert.Len(t, c.requests(), tc.attempts)
			} else {
				assert.Greater(t, len(c.requests()), 1)
			}
		})
	}
}

// A model a request may not choose is refused before any call, whatever
// the provider; the allowed ones reach Bedrock by their id.
func TestBedrockModelOverride(t *testing.T) {
	c := newConverse(t, converseOK("ok", 1, 1))
	ag := newBedrockAgent(t, c, "A2A_LLM_ALLOWED_MODELS", "amazon.nova-micro-v1:0")
	svc := agenttest.Serve(t, ag)
	task := send(t, svc, "hi", "", modelMD("bedrock", "anthropic.claude-3-opus-20240229-v1:0"))
	assert.Equal(t, a2a.TaskStateRejected, task.Status.State)
	assert.Equal(t, `Model "anthropic.claude-3-opus-20240229-v1:0" is not allowed here; choose one of: `+bedrockModel+`, amazon.nova-micro-v1:0.`, task.Status.Message.Text())
	assert.Empty(t, c.requests(), "nothing was called")

	task = send(t, svc, "hi", "", modelMD("bedrock", "amazon.nova-micro-v1:0"))
	assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	require.Len(t, c.requests(), 1)
	assert.Equal(t, "/model/amazon.nova-micro-v1%3A0/converse", c.requests()[0].Path)
}

func TestBedrockSettings(t *testing.T) {
	_, err := llm.New(envtest.Settings("A2A_LLM_PROVIDER", "bedrock"))
	require.Error(t, err)
	for _, want := range []string{"A2A_LLM_MODEL is required: the Bedrock model id", "A2A_LLM_PROVIDER=bedrock needs AWS_REGION", "AWS_ACCESS_KEY_ID"} {
		assert.ErrorContains(t, err, want)
	}
	assert.NotContains(t, err.Error(), "A2A_LLM_BASE_URL", "Bedrock needs no base URL")
	_, err = llm.New(envtest.Settings("A2A_LLM_PROVIDER", "vertex", "A2A_LLM_MODEL", "m"))
	assert.ErrorContains(t, err, `A2A_LLM_PROVIDER="vertex" must be openai or bedrock`)

	cfg, err := llm.ConfigFrom(envtest.Settings(bedrockEnv(&converse{url: "http://127.0.0.1:1"}, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "", "AWS_ENDPOINT_URL", "http://127.0.0.1:2")...))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:2", cfg.Bedrock.EndpointURL, "AWS_ENDPOINT_URL applies when the service's own is unset")
	creds, err := cfg.Bedrock.Credentials.Retrieve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "session", creds.SessionToken)
	_, err = llm.NewAgent(llm.Config{Provider: "bedrock", Model: "m", Bedrock: llm.Bedrock{Region: "us-east-1", Credentials: cfg.Bedrock.Credentials, EndpointURL: "ftp://x"}})
	assert.ErrorContains(t, err, `AWS_ENDPOINT_URL_BEDROCK_RUNTIME="ftp://x" must be an absolute http(s) URL`)

	// Without an endpoint, the region's: .amazonaws.com.cn in China.
	for region, host := range map[string]string{"eu-west-3": "bedrock-runtime.eu-west-3.amazonaws.com", "cn-north-1": "bedrock-runtime.cn-north-1.amazonaws.com.cn"} {
		var got string
		ag, err := llm.NewAgent(llm.Config{Provider: "bedrock", Model: "m", RetryBase: time.Millisecond,
			Bedrock:    llm.Bedrock{Region: region, Credentials: cfg.Bedrock.Credentials},
			HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) { got = r.URL.Host; return nil, io.EOF })}})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		msg := agent.Text("hi")
		msg.Role = a2a.RoleUser
		_, _ = ag.Step(ctx, agent.StepInput{Message: msg}, nil)
		cancel()
		assert.Equal(t, host, got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func toFloats(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
