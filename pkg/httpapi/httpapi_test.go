package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

const (
	aliceToken = "alice-secret"
	bobToken   = "bob-secret"
)

func cards(info agent.Info, bearer bool) httpapi.CardSource {
	return func(u string) (a2a.AgentCard, func() a2a.AgentCard) {
		o := card.Options{PublicURL: u, Agent: info, BearerAuth: bearer}
		return card.Public(o), func() a2a.AgentCard { return card.Extended(o) }
	}
}

// fastDemo is the demo agent with no simulated work and 1 ms between the
// steps of "long N".
func fastDemo(t *testing.T) agent.Agent {
	t.Helper()
	ag, err := demo.New(envtest.Settings(demo.EnvWorkMS, "0", demo.EnvStepMS, "1"))
	require.NoError(t, err)
	return ag
}

// serveAgent serves ag on a new memory store and a goroutine runner: the
// service made of cfg (blocking timeout: 5 s unless set) and so, behind
// the edge of o (o.Service is set here). It returns the server and the
// store.
func serveAgent(t *testing.T, ag agent.Agent, cfg service.Config, so service.Options, o httpapi.Options) (*httptest.Server, *memory.Store) {
	t.Helper()
	store := memory.New(memory.Options{Clock: so.Clock})
	runner := local.New(engine.NewExecutor(store, ag, engine.Options{Clock: so.Clock}), local.Options{Clock: so.Clock})
	t.Cleanup(runner.Close)
	if cfg.BlockingTimeout == 0 {
		cfg.BlockingTimeout = 5 * time.Second
	}
	o.Service = service.New(store, runner, ag.Info(), cfg, so)
	h, err := httpapi.New(o)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, store
}

// alice is the bearer authentication of the one caller alice.
func alice() httpapi.Authenticator { return auth.NewBearer(map[string]string{"alice": aliceToken}) }

// newServer serves the demo agent (instant work) with two bearer callers.
func newServer(t *testing.T, publicURL string) *httptest.Server {
	t.Helper()
	ag := fastDemo(t)
	srv, _ := serveAgent(t, ag, service.Config{}, service.Options{}, httpapi.Options{
		Auth:         auth.NewBearer(map[string]string{"alice": aliceToken, "bob": bobToken}),
		Cards:        cards(ag.Info(), true),
		PublicURL:    publicURL,
		MaxBodyBytes: 4096,
	})
	return srv
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

func do(t *testing.T, method, url, token, body string, headers ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func rpc(t *testing.T, srv *httptest.Server, token, method, params string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"req-1","method":%q,"params":%s}`, method, params)
	r := do(t, "POST", srv.URL+"/", token, body)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	m := r.json(t)
	assert.Equal(t, "2.0", m["jsonrpc"])
	assert.Equal(t, "req-1", m["id"])
	return m
}

func rpcError(t *testing.T, m map[string]any) (int, string, map[string]any) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "want an error response, got %v", m)
	data, _ := e["data"].(map[string]any)
	return int(e["code"].(float64)), e["message"].(string), data
}

func TestPublicCard(t *testing.T) {
	srv := newServer(t, "https://agent.example.com")
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		r := do(t, "GET", srv.URL+path, "", "")
		require.Equal(t, http.StatusOK, r.status, path)
		c := r.json(t)
		assert.Equal(t, "https://agent.example.com", c["url"])
		assert.Equal(t, "JSONRPC", c["preferredTransport"])
		assert.Equal(t, "0.3.0", c["protocolVersion"])
		assert.Equal(t, []any{
			map[string]any{"url": "https://agent.example.com", "transport": "JSONRPC"},
			map[string]any{"url": "https://agent.example.com/rest", "transport": "HTTP+JSON"},
		}, c["additionalInterfaces"])
		caps := c["capabilities"].(map[string]any)
		assert.Equal(t, false, caps["streaming"])
		assert.Equal(t, false, caps["pushNotifications"])
		assert.Equal(t, true, caps["extendedAgentCard"])
		assert.NotEmpty(t, caps["extensions"])
		assert.Len(t, c["supportedInterfaces"], 4)
		assert.Equal(t, true, c["supportsAuthenticatedExtendedCard"])
		assert.Equal(t, []any{map[string]any{"bearer": []any{}}}, c["security"])
		assert.NotEmpty(t, c["skills"])
		etag := r.header.Get("ETag")
		assert.True(t, strings.HasPrefix(etag, `W/"`), etag)
		assert.Equal(t, "public, max-age=300", r.header.Get("Cache-Control"))

		notModified := do(t, "GET", srv.URL+path, "", "", "If-None-Match", etag)
		assert.Equal(t, http.StatusNotModified, notModified.status)
		assert.Empty(t, notModified.body)
		assert.Equal(t, etag, notModified.header.Get("ETag"))
		changed := do(t, "GET", srv.URL+path, "", "", "If-None-Match", `W/"stale"`)
		assert.Equal(t, http.StatusOK, changed.status)
	}
}

func TestCardURLFromRequestWhenNoPublicURL(t *testing.T) {
	srv := newServer(t, "")
	r := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "", "X-Forwarded-Proto", "https")
	require.Equal(t, http.StatusOK, r.status)
	host := strings.TrimPrefix(srv.URL, "http://")
	assert.Equal(t, "https://"+host, r.json(t)["url"])
}

func TestAuthentication(t *testing.T) {
	srv := newServer(t, "")
	send := `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}`
	for _, tc := range []struct{ name, method, path, token, body string }{
		{"rpc without token", "POST", "/", "", send},
		{"rpc with wrong token", "POST", "/", "nope", send},
		{"rest get", "GET", "/rest/v1/tasks/x", "", ""},
		{"rest list", "GET", "/rest/tasks", "wrong", ""},
		{"rest send", "POST", "/rest/v1/message:send", "", "{}"},
		{"extended card", "GET", "/rest/v1/card", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, tc.method, srv.URL+tc.path, tc.token, tc.body)
			assert.Equal(t, http.StatusUnauthorized, r.status)
			assert.Equal(t, `Bearer realm="a2a"`, r.header.Get("WWW-Authenticate"))
			e := r.json(t)["error"].(map[string]any)
			assert.Equal(t, "UNAUTHENTICATED", e["status"])
		})
	}
	// Lower-case scheme is accepted (RFC 7235: case-insensitive).
	r := do(t, "POST", srv.URL+"/", "", send, "Authorization", "bearer "+aliceToken)
	assert.Equal(t, http.StatusOK, r.status)
}

func TestCallersAreIsolated(t *testing.T) {
	srv := newServer(t, "")
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
	id := m["result"].(map[string]any)["id"].(string)
	code, msg, _ := rpcError(t, rpc(t, srv, bobToken, "tasks/get", fmt.Sprintf(`{"id":%q}`, id)))
	assert.Equal(t, -32001, code)
	assert.Equal(t, "task "+id+" not found", msg)
	r := do(t, "GET", srv.URL+"/rest/v1/tasks/"+id, bobToken, "")
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestBodyLimit(t *testing.T) {
	srv := newServer(t, "")
	big := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"` + strings.Repeat("x", 5000) + `"}]}}}`
	r := do(t, "POST", srv.URL+"/", aliceToken, big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Contains(t, string(r.body), "exceeds the limit of 4096 bytes")

	// Without Content-Length (chunked) the limit holds too.
	req, err := http.NewRequest("POST", srv.URL+"/rest/v1/message:send", io.MultiReader(strings.NewReader(big)))
	require.NoError(t, err)
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

func TestJSONRPCFraming(t *testing.T) {
	srv := newServer(t, "")
	tests := []struct {
		name string
		body string
		code int
		id   any
		msg  string
	}{
		{"parse error", `{"jsonrpc":`, -32700, nil, "invalid JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]`, -32600, nil, "batch requests are not supported"},
		{"no version", `{"id":5,"method":"tasks/get"}`, -32600, float64(5), `"jsonrpc" is required`},
		{"bad id", `{"jsonrpc":"2.0","id":[],"method":"tasks/get"}`, -32600, nil, `"id" must be a string`},
		{"missing params", `{"jsonrpc":"2.0","id":1,"method":"tasks/get"}`, -32602, float64(1), "params: is required"},
		{"params wrong type", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":7}}`, -32602, float64(1), "params.id: expected a string, got JSON number"},
		{"invalid message", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","parts":[{"kind":"text","text":"x"}]}}}`, -32602, float64(1), "params.message.messageId: is required"},
		{"part of wrong type", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":[{"text":false}]}}}`, -32602, float64(1), "params.message.parts.text: expected a string, got JSON bool"},
		{"parts not an array", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":{"a":1}}}}`, -32602, float64(1), "params.message.parts: expected an array, got JSON object"},
		{"metadata not an object", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"metadata":[1]}}}`, -32602, float64(1), "params.message.metadata: expected an object"},
		{"blocking not a boolean", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{},"configuration":{"blocking":"yes"}}}`, -32602, float64(1), "params.configuration.blocking: expected a boolean, got JSON string"},
		{"wrong message kind", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"task"}}}`, -32602, float64(1), `kind "task" is not "message"`},
		{"stream", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{}}`, -32004, float64(1), "poll tasks/get or register a push notification config"},
		{"resubscribe", `{"jsonrpc":"2.0","id":1,"method":"tasks/resubscribe","params":{"id":"x"}}`, -32004, float64(1), "streaming is not supported"},
		{"push set", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{}}`, -32003, float64(1), "push notifications are not supported"},
		{"push list", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/list","params":{"id":"t"}}`, -32003, float64(1), "push notifications are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", srv.URL+"/", aliceToken, tt.body)
			require.Equal(t, http.StatusOK, r.status)
			m := r.json(t)
			assert.Equal(t, tt.id, m["id"])
			code, msg, data := rpcError(t, m)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, msg, tt.msg)
			if code <= -32001 && code >= -32099 {
				assert.Nil(t, data, "A2A errors carry no data under 0.3")
			}
		})
	}
}

func TestUnknownMethod(t *testing.T) {
	srv := newServer(t, "")
	code, msg, data := rpcError(t, rpc(t, srv, aliceToken, "tasks/frobnicate", `{}`))
	assert.Equal(t, -32601, code)
	assert.Equal(t, "Unsupported method: tasks/frobnicate", msg)
	assert.Equal(t, "METHOD_NOT_SUPPORTED", data["type"])
	assert.Equal(t, "tasks/frobnicate", data["method"])
	assert.Equal(t, "0.3", data["protocol_version"])
	assert.Contains(t, data["supported_methods"], "message/send")
	assert.Contains(t, data["supported_methods"], "tasks/list")
}

// A2A defines no notifications: a request without an id is answered like
// the official SDK servers answer it, with a JSON-RPC error (or result)
// whose id is null, HTTP 200.
func TestRequestsWithoutIDAreAnswered(t *testing.T) {
	srv := newServer(t, "")
	tests := []struct {
		name string
		body string
		code int // 0: a result
		msg  string
	}{
		{"unknown method", `{"jsonrpc":"2.0","method":"message/ssend","params":{}}`, -32601, "Unsupported method: message/ssend"},
		{"invalid params", `{"jsonrpc":"2.0","method":"message/send","params":{"message":{"parts":"x"}}}`, -32602, "params.message.parts: expected an array"},
		{"missing params", `{"jsonrpc":"2.0","method":"tasks/get"}`, -32602, "params: is required"},
		{"invalid request", `{"method":"tasks/get","params":{"id":"x"}}`, -32600, `"jsonrpc" is required`},
		{"unknown task", `{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"missing"}}`, -32001, "missing"},
		{"valid send", `{"jsonrpc":"2.0","method":"message/send","params":{"message":{"role":"user","messageId":"n1","parts":[{"kind":"text","text":"hi"}]}}}`, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", srv.URL+"/", aliceToken, tt.body)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			assert.Equal(t, "application/json", r.header.Get("Content-Type"))
			m := r.json(t)
			require.Contains(t, m, "id")
			assert.Nil(t, m["id"])
			if tt.code == 0 {
				assert.Equal(t, "task", m["result"].(map[string]any)["kind"], string(r.body))
				return
			}
			code, msg, _ := rpcError(t, m)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, msg, tt.msg)
		})
	}
}

func TestExtendedCardMethod(t *testing.T) {
	srv := newServer(t, "https://agent.example.com")
	m := rpc(t, srv, aliceToken, "agent/getAuthenticatedExtendedCard", `null`)
	c := m["result"].(map[string]any)
	assert.Equal(t, "a2a-lambda demo agent", c["name"])
	for _, path := range []string{"/rest/v1/card", "/rest/card"} {
		r := do(t, "GET", srv.URL+path, aliceToken, "")
		require.Equal(t, http.StatusOK, r.status)
		assert.Equal(t, c["name"], r.json(t)["name"])
	}
}

// restError checks a google.rpc.Status error body.
func restError(t *testing.T, r response, status int, rpcStatus, reason, msg string) {
	t.Helper()
	require.Equal(t, status, r.status, string(r.body))
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	e := r.json(t)["error"].(map[string]any)
	assert.EqualValues(t, status, e["code"])
	assert.Equal(t, rpcStatus, e["status"])
	assert.Contains(t, e["message"], msg)
	details := e["details"].([]any)
	require.Len(t, details, 1)
	info := details[0].(map[string]any)
	assert.Equal(t, "type.googleapis.com/google.rpc.ErrorInfo", info["@type"])
	assert.Equal(t, "a2a-protocol.org", info["domain"])
	assert.Equal(t, reason, info["reason"])
}

func TestREST(t *testing.T) {
	srv := newServer(t, "")
	for _, base := range []string{"/rest/v1", "/rest"} {
		t.Run(base, func(t *testing.T) {
			// snake_case fields, as some 0.3 clients send them.
			body := `{"message":{"role":"user","message_id":"` + base + `-m1","parts":[{"kind":"text","text":"ask Who are you?"}],"metadata":{"keep_me":1}},"configuration":{"blocking":true,"history_length":5}}`
			r := do(t, "POST", srv.URL+base+"/message:send", aliceToken, body)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			task := r.json(t)
			assert.Equal(t, "task", task["kind"], "0.3 REST answers a bare Task")
			assert.Equal(t, "input-required", task["status"].(map[string]any)["state"])
			id := task["id"].(string)
			first := task["history"].([]any)[0].(map[string]any)
			assert.Equal(t, map[string]any{"keep_me": float64(1)}, first["metadata"], "metadata keys are not rewritten")

			r = do(t, "GET", srv.URL+base+"/tasks/"+id+"?historyLength=1", aliceToken, "")
			require.Equal(t, http.StatusOK, r.status)
			assert.Len(t, r.json(t)["history"], 1)

			r = do(t, "GET", srv.URL+base+"/tasks?page_size=1&status=TASK_STATE_INPUT_REQUIRED", aliceToken, "")
			require.Equal(t, http.StatusOK, r.status)
			list := r.json(t)
			assert.EqualValues(t, 1, list["pageSize"])
			assert.Len(t, list["tasks"], 1)

			r = do(t, "POST", srv.URL+base+"/tasks/"+id+":cancel", aliceToken, "")
			require.Equal(t, http.StatusOK, r.status)
			assert.Equal(t, "canceled", r.json(t)["status"].(map[string]any)["state"])

			r = do(t, "POST", srv.URL+base+"/tasks/"+id+":cancel", aliceToken, `{"name":"x"}`)
			require.Equal(t, http.StatusOK, r.status, "canceling again is idempotent")
			assert.Equal(t, "canceled", r.json(t)["status"].(map[string]any)["state"])
		})
	}
}

func TestRESTErrors(t *testing.T) {
	srv := newServer(t, "")
	done := do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, `{"message":{"role":"user","messageId":"d1","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
	require.Equal(t, http.StatusOK, done.status)
	doneID := done.json(t)["id"].(string)

	restError(t, do(t, "GET", srv.URL+"/rest/v1/tasks/missing", aliceToken, ""), 404, "NOT_FOUND", "TASK_NOT_FOUND", "task missing not found")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/tasks/"+doneID+":cancel", aliceToken, ""), 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE", "cannot be canceled")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, `{"message":{"role":"user"}}`), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "params.message.messageId")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, `{"message":`), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "invalid JSON")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, ""), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "params: is required")
	restError(t, do(t, "GET", srv.URL+"/rest/v1/tasks/"+doneID+"?historyLength=lots", aliceToken, ""), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "historyLength: must be an integer")
	restError(t, do(t, "GET", srv.URL+"/rest/v1/tasks?pageSize=0", aliceToken, ""), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "params.pageSize")
	restError(t, do(t, "GET", srv.URL+"/rest/v1/tasks?includeArtifacts=maybe", aliceToken, ""), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "includeArtifacts")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/message:stream", aliceToken, "{}"), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "streaming is not supported")
	restError(t, do(t, "GET", srv.URL+"/rest/v1/tasks/"+doneID+":subscribe", aliceToken, ""), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "streaming is not supported")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/tasks/"+doneID+":subscribe", aliceToken, ""), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", "streaming is not supported")
	restError(t, do(t, "POST", srv.URL+"/rest/v1/tasks/"+doneID+"/pushNotificationConfigs", aliceToken, "{}"), 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "push notifications")
	restError(t, do(t, "DELETE", srv.URL+"/rest/v1/tasks/"+doneID+"/pushNotificationConfigs/c1", aliceToken, ""), 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED", "push notifications")

	r := do(t, "GET", srv.URL+"/nowhere", aliceToken, "")
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "NOT_FOUND", r.json(t)["error"].(map[string]any)["status"])
	r = do(t, "POST", srv.URL+"/rest/v1/tasks/"+doneID+":explode", aliceToken, "")
	assert.Equal(t, http.StatusNotFound, r.status)
}

// brokenService fails the operations the tests call with internal errors.
// It implements the rest of httpapi.Service by embedding a nil one: a call
// the tests do not expect panics, which the edge answers 500.
type brokenService struct{ httpapi.Service }

var errSecret = errors.New("dynamodb: connection to 10.0.0.7 refused (secret detail)")

func (brokenService) Send(context.Context, string, a2a.MessageSendParams) (a2a.SendResult, error) {
	return a2a.SendResult{}, fmt.Errorf("store: %w", errSecret)
}
func (brokenService) GetTask(context.Context, string, a2a.TaskQueryParams) (*a2a.Task, error) {
	return nil, context.DeadlineExceeded
}
func (brokenService) CancelTask(context.Context, string, a2a.TaskIDParams) (*a2a.Task, error) {
	return nil, errSecret
}

func TestInternalErrorsAreLoggedNotLeaked(t *testing.T) {
	var logs strings.Builder
	h, err := httpapi.New(httpapi.Options{
		Service: brokenService{}, Auth: auth.Anonymous{}, Cards: cards(agent.Info{Name: "x"}, false),
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	m := rpc(t, srv, "", "message/send", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}]}}`)
	code, msg, _ := rpcError(t, m)
	assert.Equal(t, -32603, code)
	assert.NotContains(t, msg, "10.0.0.7")
	assert.Contains(t, logs.String(), "10.0.0.7", "the cause is logged")

	_, msg, _ = rpcError(t, rpc(t, srv, "", "tasks/get", `{"id":"x"}`))
	assert.Contains(t, msg, "ran out of time")

	r := do(t, "POST", srv.URL+"/rest/v1/tasks/x:cancel", "", "")
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.NotContains(t, string(r.body), "10.0.0.7")
}

func TestCardOnlyRoutes(t *testing.T) {
	h, err := httpapi.New(httpapi.Options{Routes: httpapi.RoutesCard, Cards: cards(agent.Info{Name: "c"}, false), PublicURL: "https://x"})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	assert.Equal(t, http.StatusOK, do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "").status)
	assert.Equal(t, http.StatusNotFound, do(t, "POST", srv.URL+"/", "", `{}`).status)

	_, err = httpapi.New(httpapi.Options{Routes: httpapi.RoutesRPC, Cards: cards(agent.Info{}, false)})
	assert.Error(t, err, "RPC routes need a service and an authenticator")
}

type panickingService struct{ brokenService }

func (panickingService) GetTask(context.Context, string, a2a.TaskQueryParams) (*a2a.Task, error) {
	panic("bug")
}

func TestPanicsAreAnswered500(t *testing.T) {
	var logs strings.Builder
	h, err := httpapi.New(httpapi.Options{Service: panickingService{}, Auth: auth.Anonymous{}, Cards: cards(agent.Info{}, false),
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	r := do(t, "GET", srv.URL+"/rest/v1/tasks/x", "", "")
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, "INTERNAL", r.json(t)["error"].(map[string]any)["status"])
	assert.Contains(t, logs.String(), "panic serving request")
}

func TestInterruptCallbacksOverJSONRPC(t *testing.T) {
	srv := newServer(t, "")
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"perm-1","parts":[{"kind":"text","text":"permission deploy"}]},"configuration":{"blocking":true}}`)
	task := m["result"].(map[string]any)
	require.Equal(t, "input-required", task["status"].(map[string]any)["state"])
	taskID := task["id"].(string)

	list := rpc(t, srv, aliceToken, "a2a.interrupt.list", `{}`)["result"].(map[string]any)["items"].([]any)
	require.Len(t, list, 1)
	item := list[0].(map[string]any)
	assert.Equal(t, "permission", item["type"])
	assert.Equal(t, taskID, item["task_id"])
	assert.Equal(t, map[string]any{"permission": "deploy", "patterns": []any{"deploy"}}, item["details"])
	requestID := item["request_id"].(string)
	assert.Empty(t, rpc(t, srv, bobToken, "a2a.interrupt.list", `null`)["result"].(map[string]any)["items"], "scoped to the caller")

	code, msg, data := rpcError(t, rpc(t, srv, aliceToken, "a2a.interrupt.question.reply", fmt.Sprintf(`{"request_id":%q,"answers":[["x"]]}`, requestID)))
	assert.Equal(t, -32043, code)
	assert.Contains(t, msg, "use a2a.interrupt.permission.reply")
	assert.Equal(t, map[string]any{"type": "INTERRUPT_TYPE_MISMATCH", "request_id": requestID}, data)

	res := rpc(t, srv, aliceToken, "a2a.interrupt.permission.reply", fmt.Sprintf(`{"request_id":%q,"reply":"once"}`, requestID))
	assert.Equal(t, map[string]any{"ok": true, "request_id": requestID}, res["result"])
	require.Eventually(t, func() bool {
		got := rpc(t, srv, aliceToken, "tasks/get", fmt.Sprintf(`{"id":%q}`, taskID))["result"].(map[string]any)
		return got["status"].(map[string]any)["state"] == "completed"
	}, 5*time.Second, 5*time.Millisecond)

	code, msg, data = rpcError(t, rpc(t, srv, aliceToken, "a2a.interrupt.permission.reply", fmt.Sprintf(`{"request_id":%q,"reply":"once"}`, requestID)))
	assert.Equal(t, -32041, code)
	assert.Contains(t, msg, "already answered")
	assert.Equal(t, "INTERRUPT_REQUEST_NOT_FOUND", data["type"])
}

// TestAliasedDuplicateMembers: a member named twice in one object, in the
// same spelling or in two the decoders read as one (messageId and
// message_id; any case), is refused on every binding, before a task is
// made: the same body sent again is refused again, never read the other
// way.
func TestAliasedDuplicateMembers(t *testing.T) {
	srv := newServer(t, "")
	msg03 := `{"kind":"message","role":"user","messageId":"dup-a","message_id":"dup-b","parts":[{"kind":"text","text":"hi"}]}`
	msg10 := `{"role":"ROLE_USER","messageId":"dup-a","MessageId":"dup-b","parts":[{"text":"hi"}]}`
	for range 3 {
		r := do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":"req-1","method":"message/send","params":{"message":`+msg03+`}}`)
		require.Equal(t, http.StatusOK, r.status)
		code, msg, _ := rpcError(t, r.json(t))
		assert.Equal(t, int(a2a.CodeInvalidRequest), code)
		assert.Contains(t, msg, `members "messageId" and "message_id" of one object name the same field`)
	}
	v1 := do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":`+msg10+`}}`, "A2A-Version", "1.0").json(t)
	assert.Equal(t, float64(a2a.CodeInvalidRequest), v1["error"].(map[string]any)["code"])

	for _, tc := range []struct{ path, body, version string }{
		{"/rest/v1/message:send", `{"message":` + msg03 + `}`, ""},
		{"/rest/message:send", `{"message":` + msg10 + `}`, "1.0"},
		{"/rest/message:send", `{"message":{"role":"ROLE_USER","messageId":"m","parts":[{"text":"a","text":"b"}]}}`, "1.0"},
		{"/rest/v1/tasks/t-1/pushNotificationConfigs", `{"url":"https://hooks.example.com/a","URL":"https://hooks.example.com/b"}`, ""},
		{"/rest/v1/tasks/t-1/deliveries:redrive", `{"eventId":"t-1:1","event_id":"t-1:2"}`, ""},
		{"/rest/v1/files", `{"size":1,"Size":2,"sha256":"` + strings.Repeat("0", 64) + `"}`, ""},
	} {
		r := do(t, "POST", srv.URL+tc.path, aliceToken, tc.body, "A2A-Version", tc.version)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s %s: %s", tc.path, tc.body, r.body)
		assert.Contains(t, string(r.body), "one object", tc.path)
	}

	env := orch(t, srv.URL, `{"jsonrpc":"2.0","id":"e1","envelope_type":"message/send","params":{"message":`+msg03+`}}`, nil)
	assert.Contains(t, string(env.body), `name the same field`)

	// Nothing was created.
	list := rpc(t, srv, aliceToken, "tasks/list", `{}`)["result"].(map[string]any)
	assert.Empty(t, list["tasks"])
}
