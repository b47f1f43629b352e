package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// fakeCall is one request a fake server received.
type fakeCall struct {
	Method, Path, Auth, Version string
	Body                        map[string]any
}

// fake answers every request with respond and records it.
type fake struct {
	mu    sync.Mutex
	calls []fakeCall
}

func (f *fake) start(t *testing.T, respond func(w http.ResponseWriter, c fakeCall)) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c := fakeCall{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Version: r.Header.Get("A2A-Version")}
		if len(b) > 0 {
			require.NoError(t, json.Unmarshal(b, &c.Body))
		}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		respond(w, c)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

func (f *fake) last() fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// TestInterruptCallbacks checks the three a2a.interrupt.* callbacks against
// a fake server that speaks their contract (our server does not serve them
// yet), over 0.3 and 1.0 JSON-RPC.
func TestInterruptCallbacks(t *testing.T) {
	for _, version := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(version), func(t *testing.T) {
			f := &fake{}
			url := f.start(t, func(w http.ResponseWriter, c fakeCall) {
				params := c.Body["params"].(map[string]any)
				switch params["request_id"] {
				case "expired":
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"interrupt request expired","data":{"type":"INTERRUPT_REQUEST_EXPIRED","request_id":"expired"}}}`)
				default:
					writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{"ok":true,"request_id":"`+params["request_id"].(string)+`"}}`)
				}
			})
			c := client.New(url, client.Options{Token: "tok", Endpoint: &client.AgentInterface{URL: url, Binding: "jsonrpc", Version: version}})
			ctx := clienttest.Context(t)

			r, err := c.ReplyPermission(ctx, "perm-1", a2a.PermissionAlways, "go ahead")
			require.NoError(t, err)
			assert.Equal(t, &a2a.InterruptReplyResult{OK: true, RequestID: "perm-1"}, r)
			call := f.last()
			assert.Equal(t, "a2a.interrupt.permission.reply", call.Body["method"])
			assert.Equal(t, map[string]any{"request_id": "perm-1", "reply": "always", "message": "go ahead"}, call.Body["params"])
			assert.Equal(t, "Bearer tok", call.Auth)
			if version == a2a.V10 {
				assert.Equal(t, "1.0", call.Version)
			} else {
				assert.Empty(t, call.Version)
			}

			_, err = c.ReplyQuestion(ctx, "q-1", [][]string{{"blue"}, {"a", "b"}})
			require.NoError(t, err)
			assert.Equal(t, "a2a.interrupt.question.reply", f.last().Body["method"])
			assert.Equal(t, map[string]any{"request_id": "q-1", "answers": []any{[]any{"blue"}, []any{"a", "b"}}}, f.last().Body["params"])

			_, err = c.RejectQuestion(ctx, "q-2")
			require.NoError(t, err)
			assert.Equal(t, "a2a.interrupt.question.reject", f.last().Body["method"])
			assert.Equal(t, map[string]any{"request_id": "q-2"}, f.last().Body["params"])

			_, err = c.ReplyQuestion(ctx, "expired", [][]string{{"late"}})
			assert.ErrorIs(t, err, a2a.ErrInvalidParams)
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, "INTERRUPT_REQUEST_EXPIRED", ce.Data["type"])

			_, err = c.ReplyPermission(ctx, "perm-1", "sometimes", "")
			assert.ErrorContains(t, err, "must be once, always or reject")
		})
	}
}

func TestInterruptCallbackUsesJSONRPCWhenRESTChosen(t *testing.T) {
	f := &fake{}
	var base string
	base = f.start(t, func(w http.ResponseWriter, c fakeCall) {
		switch c.Path {
		case "/.well-known/agent-card.json":
			writeJSON(w, 200, `{"protocolVersion":"0.3.0","name":"x","description":"x","version":"1","url":"`+base+`/rpc","preferredTransport":"HTTP+JSON",
				"additionalInterfaces":[{"url":"`+base+`/rest","transport":"HTTP+JSON"},{"url":"`+base+`/rpc","transport":"JSONRPC"}],
				"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{"ok":true,"request_id":"r"}}`)
		}
	})
	c := client.New(base, client.Options{Binding: "rest"})
	_, err := c.RejectQuestion(clienttest.Context(t), "r")
	require.NoError(t, err)
	assert.Equal(t, "/rpc", f.last().Path, "the callback goes to the card's JSON-RPC interface")
}

// TestErrorBodies maps every error shape a server may answer with.
func TestErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		name       string
		binding    string
		version    a2a.Version
		status     int
		body       string
		code       a2a.Code
		reason     string
		message    string
		data       map[string]any
		transient  bool
		unauthened bool
	}{
		{name: "0.3 JSON-RPC error", binding: "jsonrpc", version: "0.3", status: 200,
			body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task x not found"}}`,
			code: a2a.CodeTaskNotFound, reason: "TASK_NOT_FOUND", message: "task x not found"},
		{name: "0.3 JSON-RPC error with data", binding: "jsonrpc", version: "0.3", status: 200,
			body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Unsupported method","data":{"method":"x"}}}`,
			code: a2a.CodeMethodNotFound, reason: "METHOD_NOT_FOUND", message: "Unsupported method", data: map[string]any{"method": "x"}},
		{name: "1.0 JSON-RPC error with ErrorInfo", binding: "jsonrpc", version: "1.0", status: 200,
			body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"not cancelable","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org","metadata":{"taskId":"x"}}]}}`,
			code: a2a.CodeTaskNotCancelable, reason: "TASK_NOT_CANCELABLE", message: "not cancelable", data: map[string]any{"taskId": "x"}},
		{name: "REST google.rpc.Status", binding: "rest", version: "1.0", status: 404,
			body: `{"error":{"code":404,"status":"NOT_FOUND","message":"task x not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`,
			code: a2a.CodeTaskNotFound, reason: "TASK_NOT_FOUND", message: "task x not found"},
		{name: "REST status without details", binding: "rest", version: "0.3", status: 401,
			body:    `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"a valid bearer token is required"}}`,
			message: "a valid bearer token is required", unauthened: true},
		{name: "REST problem document", binding: "rest", version: "0.3", status: 400,
			body:    `{"type":"about:blank","title":"Bad request","detail":"message is required","status":400}`,
			message: "Bad request: message is required"},
		{name: "gateway text", binding: "rest", version: "0.3", status: 502,
			body: "Bad Gateway\n", message: "Bad Gateway", transient: true},
		{name: "rate limited JSON-RPC", binding: "jsonrpc", version: "0.3", status: 429,
			body: `slow down`, message: "slow down", transient: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := (&fake{}).start(t, func(w http.ResponseWriter, _ fakeCall) { writeJSON(w, tc.status, tc.body) })
			c := client.New(url, client.Options{Endpoint: &client.AgentInterface{URL: url, Binding: tc.binding, Version: tc.version}})
			_, err := c.GetTask(clienttest.Context(t), a2a.TaskQueryParams{ID: "x"})
			var ce *client.Error
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.code, ce.Code)
			assert.Equal(t, tc.reason, ce.Reason)
			assert.Equal(t, tc.message, ce.Message)
			assert.Equal(t, tc.data, ce.Data)
			assert.Equal(t, tc.status, ce.HTTPStatus)
			assert.Equal(t, tc.transient, client.Transient(err))
			assert.Equal(t, tc.unauthened, errors.Is(err, client.ErrUnauthenticated))
			if tc.code != 0 {
				var ae *a2a.Error
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tc.code, ae.Code)
			}
		})
	}
}

// TestREST03SendResultShapes accepts the bare task our server sends and the
// {"task"} / {"message"} wrappers of the 0.3 REST binding.
func TestREST03SendResultShapes(t *testing.T) {
	task := `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`
	for name, body := range map[string]string{
		"bare task":       task,
		"wrapped task":    `{"task":` + task + `}`,
		"task, no kind":   `{"id":"t1","contextId":"c1","status":{"state":"working"}}`,
		"bare message":    `{"kind":"message","role":"agent","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}`,
		"wrapped message": `{"message":{"role":"agent","messageId":"m1","parts":[{"text":"hi"}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := &fake{}
			url := f.start(t, func(w http.ResponseWriter, _ fakeCall) { writeJSON(w, 200, body) })
			c := client.New(url, client.Options{Endpoint: &client.AgentInterface{URL: url + "/rest", Binding: "rest", Version: "0.3"}})
			res, err := c.SendMessage(clienttest.Context(t), a2a.MessageSendParams{Message: clienttest.TextMessage("hi")})
			require.NoError(t, err)
			assert.Equal(t, "/rest/v1/message:send", f.last().Path)
			msg := f.last().Body["message"].(map[string]any)
			assert.Equal(t, "user", msg["role"], "the role defaults to user")
			assert.NotEmpty(t, msg["messageId"], "a message id is generated")
			if res.Task != nil {
				assert.Equal(t, "t1", res.Task.ID)
				assert.Equal(t, a2a.TaskStateWorking, res.Task.Status.State)
			} else {
				require.NotNil(t, res.Message)
				assert.Equal(t, "hi", res.Message.Text())
			}
		})
	}
}

// TestWaitRetriesTransientErrors: a 503 in the middle of polling is
// retried; a protocol error stops Wait at once.
func TestWaitRetriesTransientErrors(t *testing.T) {
	var mu sync.Mutex
	n := 0
	url := (&fake{}).start(t, func(w http.ResponseWriter, c fakeCall) {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		switch {
		case c.Body["params"].(map[string]any)["id"] == "gone":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task gone not found"}}`)
		case i == 2:
			writeJSON(w, 503, `unavailable`)
		case i < 4:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}}`)
		default:
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"ok"}]}]}}`)
		}
	})
	c := client.New(url, client.Options{Endpoint: &client.AgentInterface{URL: url, Binding: "jsonrpc", Version: "0.3"}})
	var states []a2a.TaskState
	final, err := c.Wait(clienttest.Context(t), "t", client.WaitOptions{MinInterval: time.Millisecond, OnUpdate: func(u client.Update) {
		states = append(states, u.Task.Status.State)
	}})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, final.Status.State)
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted}, states, "unchanged polls are not reported")

	_, err = c.Wait(clienttest.Context(t), "gone", client.WaitOptions{MinInterval: time.Millisecond})
	assert.ErrorIs(t, err, a2a.ErrTaskNotFound)
}

func TestChanges(t *testing.T) {
	task := func(state a2a.TaskState, msg string, arts ...a2a.Artifact) *a2a.Task {
		t := &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: state}, Artifacts: arts}
		if msg != "" {
			t.Status.Message = &a2a.Message{MessageID: msg, Parts: []a2a.Part{a2a.TextPart(msg)}}
		}
		return t
	}
	art := func(id string, texts ...string) a2a.Artifact {
		a := a2a.Artifact{ArtifactID: id}
		for _, s := range texts {
			a.Parts = append(a.Parts, a2a.TextPart(s))
		}
		return a
	}
	for _, tc := range []struct {
		name         string
		prev, cur    *a2a.Task
		changed      bool
		stateChanged bool
		message      string
		artifacts    []client.ArtifactChange
	}{
		{name: "first read", prev: nil, cur: task(a2a.TaskStateWorking, "m1", art("a", "x")), changed: true, stateChanged: true, message: "m1",
			artifacts: []client.ArtifactChange{{Artifact: art("a", "x"), New: true, NewParts: art("a", "x").Parts}}},
		{name: "nothing new", prev: task(a2a.TaskStateWorking, "m1", art("a", "x")), cur: task(a2a.TaskStateWorking, "m1", art("a", "x"))},
		{name: "new status message", prev: task(a2a.TaskStateWorking, "m1"), cur: task(a2a.TaskStateWorking, "m2"), changed: true, message: "m2"},
		{name: "state change", prev: task(a2a.TaskStateWorking, ""), cur: task(a2a.TaskStateCompleted, ""), changed: true, stateChanged: true},
		{name: "part appended", prev: task(a2a.TaskStateWorking, "", art("a", "x")), cur: task(a2a.TaskStateWorking, "", art("a", "x", "y")), changed: true,
			artifacts: []client.ArtifactChange{{Artifact: art("a", "x", "y"), NewParts: art("a", "y").Parts}}},
		{name: "text grew", prev: task(a2a.TaskStateWorking, "", art("a", "Hel")), cur: task(a2a.TaskStateWorking, "", art("a", "Hello")), changed: true,
			artifacts: []client.ArtifactChange{{Artifact: art("a", "Hello"), Grown: true, NewParts: art("a", "lo").Parts}}},
		{name: "replaced", prev: task(a2a.TaskStateWorking, "", art("a", "old")), cur: task(a2a.TaskStateWorking, "", art("a", "new")), changed: true,
			artifacts: []client.ArtifactChange{{Artifact: art("a", "new"), Replaced: true, NewParts: art("a", "new").Parts}}},
		{name: "new artifact", prev: task(a2a.TaskStateWorking, "", art("a", "x")), cur: task(a2a.TaskStateWorking, "", art("a", "x"), art("b", "y")), changed: true,
			artifacts: []client.ArtifactChange{{Artifact: art("b", "y"), New: true, NewParts: art("b", "y").Parts}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := client.Changes(tc.prev, tc.cur)
			assert.Equal(t, tc.changed, u.Changed())
			assert.Equal(t, tc.stateChanged, u.StateChanged)
			assert.Equal(t, tc.message, u.StatusMessage.Text())
			assert.Equal(t, tc.artifacts, u.Artifacts)
		})
	}
}

// TestWaitSince: the first update reports only what changed since the task
// the caller already showed.
func TestWaitSince(t *testing.T) {
	url := (&fake{}).start(t, func(w http.ResponseWriter, _ fakeCall) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},
			"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"old"},{"kind":"text","text":"new"}]}]}}`)
	})
	c := client.New(url, client.Options{Endpoint: &client.AgentInterface{URL: url, Binding: "jsonrpc", Version: "0.3"}})
	since := &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired},
		Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("old")}}}}
	var updates []client.Update
	_, err := c.Wait(clienttest.Context(t), "t", client.WaitOptions{Since: since, OnUpdate: func(u client.Update) { updates = append(updates, u) }})
	require.NoError(t, err)
	require.Len(t, updates, 1)
	assert.True(t, updates[0].First)
	assert.True(t, updates[0].StateChanged)
	require.Len(t, updates[0].Artifacts, 1)
	assert.Equal(t, []a2a.Part{a2a.TextPart("new")}, updates[0].Artifacts[0].NewParts, "only the part added since")
}

// A card that speaks only 1.0 (no url, preferredTransport or
// supportsAuthenticatedExtendedCard) is read from its 1.0 fields.
func TestCardOfOnly10(t *testing.T) {
	f := &fake{}
	var base string
	base = f.start(t, func(w http.ResponseWriter, c fakeCall) {
		writeJSON(w, 200, `{"name":"x","description":"x","version":"1",
			"supportedInterfaces":[{"url":"`+base+`/v1","protocolBinding":"http+json","protocolVersion":"1.0","tenant":"t1"},{"url":"`+base+`/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
			"capabilities":{"extendedAgentCard":true},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`)
	})
	card, err := client.New(base, client.Options{}).Card(clienttest.Context(t))
	require.NoError(t, err)
	assert.Equal(t, []client.AgentInterface{
		{URL: base + "/v1", Binding: client.BindingREST, Version: a2a.V10, Tenant: "t1"},
		{URL: base + "/", Binding: client.BindingJSONRPC, Version: a2a.V10},
	}, card.Interfaces)
	assert.Equal(t, base+"/v1", card.URL, "the 0.3 url is the first interface")
	assert.Equal(t, client.BindingREST, card.PreferredTransport)
	assert.True(t, card.SupportsAuthenticatedExtendedCard, "capabilities.extendedAgentCard")
}
