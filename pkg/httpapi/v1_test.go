package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rpc1 calls a JSON-RPC method with A2A-Version: 1.0.
func rpc1(t *testing.T, url, method, params string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	r := do(t, "POST", url+"/", aliceToken, body, "A2A-Version", "1.0")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	return r.json(t)
}

// errorInfo returns the code, message and the ErrorInfo of a 1.0 JSON-RPC
// error, checking that error.data is an array holding it.
func errorInfo(t *testing.T, m map[string]any) (int, string, map[string]any) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	require.True(t, ok, "want an error, got %v", m)
	data, ok := e["data"].([]any)
	require.True(t, ok, "error.data is an array under 1.0: %v", e["data"])
	require.Len(t, data, 1)
	info := data[0].(map[string]any)
	assert.Equal(t, "type.googleapis.com/google.rpc.ErrorInfo", info["@type"])
	assert.Equal(t, "a2a-protocol.org", info["domain"])
	return int(e["code"].(float64)), e["message"].(string), info
}

func TestVersionNegotiation(t *testing.T) {
	srv := newServer(t, "")
	send := `{"jsonrpc":"2.0","id":"v","method":"%s","params":{"message":{"role":"%s","messageId":"%s","parts":[{%s"text":"hi"}]},"configuration":{}}}`
	tests := []struct {
		name, method, role, part string
		headers                  []string
		query                    string
		wantState                string
	}{
		{"no header is 0.3", "message/send", "user", `"kind":"text",`, nil, "", "submitted"},
		{"0.3", "message/send", "user", `"kind":"text",`, []string{"A2A-Version", "0.3"}, "", "submitted"},
		{"0.3.0", "message/send", "user", `"kind":"text",`, []string{"A2A-Version", "0.3.0"}, "", "submitted"},
		{"1.0 header", "SendMessage", "ROLE_USER", "", []string{"A2A-Version", "1.0"}, "", "TASK_STATE_COMPLETED"}, // 1.0 waits by default
		{"1 header", "SendMessage", "ROLE_USER", "", []string{"A2A-Version", "1"}, "", "TASK_STATE_COMPLETED"},     // 1.0 waits by default
		{"1.0 query", "SendMessage", "ROLE_USER", "", nil, "?A2A-Version=1.0", "TASK_STATE_COMPLETED"},             // 1.0 waits by default
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, "POST", srv.URL+"/"+tt.query, aliceToken, fmt.Sprintf(send, tt.method, tt.role, fmt.Sprint("neg-", i), tt.part), tt.headers...)
			require.Equal(t, http.StatusOK, r.status)
			res := r.json(t)["result"].(map[string]any)
			if task, ok := res["task"].(map[string]any); ok {
				res = task // 1.0 wraps the task
			} else {
				assert.Equal(t, "task", res["kind"], "0.3 answers the bare task")
			}
			assert.Equal(t, tt.wantState, res["status"].(map[string]any)["state"], "%s", r.body)
		})
	}

	// An unsupported version is refused before routing, in the 1.0 shape.
	for _, v := range []string{"2.0", "0.2", "1.1"} {
		r := do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":"x","method":"message/send","params":{}}`, "A2A-Version", v)
		require.Equal(t, http.StatusOK, r.status)
		m := r.json(t)
		assert.Equal(t, "x", m["id"], "the request's id is kept")
		code, msg, info := errorInfo(t, m)
		assert.Equal(t, -32009, code)
		assert.Contains(t, msg, "0.3 and 1.0")
		assert.Equal(t, "VERSION_NOT_SUPPORTED", info["reason"])

		restError(t, do(t, "GET", srv.URL+"/rest/tasks/any", aliceToken, "", "A2A-Version", v), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED", "0.3 and 1.0")
	}
	restError(t, do(t, "GET", srv.URL+"/rest/tasks/any?A2A-Version=9", aliceToken, ""), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED", "not supported")
	// Version first, even before authentication.
	restError(t, do(t, "GET", srv.URL+"/rest/tasks/any", "", "", "A2A-Version", "3"), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED", "not supported")
	// The cards are not A2A calls: any version gets them.
	assert.Equal(t, http.StatusOK, do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "", "A2A-Version", "3").status)
}

func TestJSONRPC10(t *testing.T) {
	srv := newServer(t, "")
	m := rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"v1-m1","parts":[{"text":"ask Who are you?"}]}}`)
	task := m["result"].(map[string]any)["task"].(map[string]any)
	assert.NotContains(t, task, "kind")
	assert.Equal(t, "TASK_STATE_INPUT_REQUIRED", task["status"].(map[string]any)["state"], "returnImmediately absent: the send waits for an interrupted state")
	id := task["id"].(string)
	first := task["history"].([]any)[0].(map[string]any)
	assert.Equal(t, "ROLE_USER", first["role"])
	assert.Equal(t, []any{map[string]any{"text": "ask Who are you?"}}, first["parts"])

	m = rpc1(t, srv.URL, "GetTask", `{"id":"`+id+`","historyLength":0}`)
	got := m["result"].(map[string]any)
	assert.Equal(t, id, got["id"])
	assert.NotContains(t, got, "history")

	m = rpc1(t, srv.URL, "ListTasks", `{"status":"TASK_STATE_INPUT_REQUIRED","pageSize":0}`)
	list := m["result"].(map[string]any)
	assert.EqualValues(t, 50, list["pageSize"], "pageSize 0 is the default")
	assert.EqualValues(t, 1, list["totalSize"])
	assert.Equal(t, "", list["nextPageToken"])

	m = rpc1(t, srv.URL, "CancelTask", `{"id":"`+id+`"}`)
	assert.Equal(t, "TASK_STATE_CANCELED", m["result"].(map[string]any)["status"].(map[string]any)["state"])

	m = rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"v1-m2","parts":[{"text":"long 50"}]},"configuration":{"returnImmediately":true}}`)
	state := m["result"].(map[string]any)["task"].(map[string]any)["status"].(map[string]any)["state"]
	assert.Contains(t, []any{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"}, state, "returnImmediately: the send answers at once")

	m = rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"v1-m3","parts":[{"text":"hi"}]}}`)
	done := m["result"].(map[string]any)["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_COMPLETED", done["status"].(map[string]any)["state"])
	doneID := done["id"].(string)

	m = rpc1(t, srv.URL, "GetExtendedAgentCard", `{}`)
	assert.Equal(t, "a2a-lambda demo agent", m["result"].(map[string]any)["name"])

	errs := []struct {
		method, params string
		code           int
		reason, msg    string
	}{
		{"GetTask", `{"id":"missing"}`, -32001, "TASK_NOT_FOUND", "task missing not found"},
		{"CancelTask", `{"id":"` + doneID + `"}`, -32002, "TASK_NOT_CANCELABLE", "cannot be canceled"},
		{"SendMessage", `{"message":{"role":"ROLE_USER","messageId":"x","parts":[{"text":"hi","url":"https://x"}]}}`, -32602, "INVALID_PARAMS", "params.message.parts[0]: must have exactly one of text, raw, url or data"},
		{"SendStreamingMessage", `{}`, -32004, "UNSUPPORTED_OPERATION", "streaming is not supported"},
		{"SubscribeToTask", `{"id":"x"}`, -32004, "UNSUPPORTED_OPERATION", "streaming is not supported"},
		{"ListTasks", `{"status":"done"}`, -32602, "INVALID_PARAMS", `params.status: "done" is not a task state`},
		{"message/send", `{}`, -32601, "METHOD_NOT_FOUND", "Unsupported method: message/send"},
	}
	for _, e := range errs {
		code, msg, info := errorInfo(t, rpc1(t, srv.URL, e.method, e.params))
		assert.Equal(t, e.code, code, e.method)
		if e.reason != "" {
			assert.Equal(t, e.reason, info["reason"], e.method)
			assert.Contains(t, msg, e.msg, e.method)
		}
	}
	_, _, info := errorInfo(t, rpc1(t, srv.URL, "tasks/get", `{}`))
	md := info["metadata"].(map[string]any)
	assert.Equal(t, "1.0", md["protocol_version"])
	assert.Contains(t, md["supported_methods"], `"SendMessage"`)
}

func TestREST10(t *testing.T) {
	srv := newServer(t, "")
	v1 := []string{"A2A-Version", "1.0"}
	for _, base := range []string{"/rest", "/rest/acme"} {
		t.Run(base, func(t *testing.T) {
			r := do(t, "POST", srv.URL+base+"/message:send", aliceToken, `{"message":{"role":"ROLE_USER","message_id":"`+base+`","parts":[{"text":"ask Who?"}]}}`, v1...)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			assert.Equal(t, "application/json", r.header.Get("Content-Type"), "HTTP+JSON responses are application/json (spec section 11)")
			task := r.json(t)["task"].(map[string]any)
			id := task["id"].(string)
			assert.Equal(t, "TASK_STATE_INPUT_REQUIRED", task["status"].(map[string]any)["state"])

			r = do(t, "GET", srv.URL+base+"/tasks/"+id+"?historyLength=1", aliceToken, "null", v1...)
			require.Equal(t, http.StatusOK, r.status, "a null body on GET is accepted")
			assert.Len(t, r.json(t)["history"], 1)

			r = do(t, "GET", srv.URL+base+"/tasks?status=TASK_STATE_INPUT_REQUIRED&pageSize=0", aliceToken, "", v1...)
			require.Equal(t, http.StatusOK, r.status)
			assert.EqualValues(t, 50, r.json(t)["pageSize"])

			r = do(t, "POST", srv.URL+base+"/tasks/"+id+":cancel", aliceToken, "null", v1...)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			assert.Equal(t, "TASK_STATE_CANCELED", r.json(t)["status"].(map[string]any)["state"])

			r = do(t, "GET", srv.URL+base+"/extendedAgentCard", aliceToken, "", v1...)
			require.Equal(t, http.StatusOK, r.status)
			assert.Equal(t, "a2a-lambda demo agent", r.json(t)["name"])

			restError(t, do(t, "GET", srv.URL+base+"/tasks/missing", aliceToken, "", v1...), 404, "NOT_FOUND", "TASK_NOT_FOUND", "task missing not found")
		})
	}
	restError(t, do(t, "GET", srv.URL+"/rest/tasks?status=nope", aliceToken, "", v1...), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", `"nope" is not a task state`)
	// /rest/tasks/tasks is the task named "tasks", not a tenant's list.
	restError(t, do(t, "GET", srv.URL+"/rest/tasks/tasks", aliceToken, "", v1...), 404, "NOT_FOUND", "TASK_NOT_FOUND", "task tasks not found")
}

// TestWireContract: the extended card's wire contract lists what the
// handler serves, and every method it lists is served.
func TestWireContract(t *testing.T) {
	srv := newServer(t, "https://agent.example.com")
	pub := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "").json(t)
	for _, e := range pub["capabilities"].(map[string]any)["extensions"].([]any) {
		assert.Len(t, e.(map[string]any), 1, "the public card declares extensions by URI only: %v", e)
	}
	ext := rpc1(t, srv.URL, "GetExtendedAgentCard", `{}`)["result"].(map[string]any)
	var contract map[string]any
	for _, e := range ext["capabilities"].(map[string]any)["extensions"].([]any) {
		e := e.(map[string]any)
		assert.NotEmpty(t, e["params"], e["uri"])
		if e["uri"] == "https://github.com/a2a-lambda/a2a-lambda/blob/main/README.md#wire-contract-v1" {
			contract = e["params"].(map[string]any)
		}
	}
	require.NotNil(t, contract)
	assert.Equal(t, []any{"0.3", "1.0"}, contract["supported_protocol_versions"])
	all := contract["all_jsonrpc_methods"].(map[string]any)
	assert.Contains(t, all["1.0"], "SendMessage")
	assert.Contains(t, all["0.3"], "message/send")
	assert.NotContains(t, all["1.0"], "SendStreamingMessage", "streaming is not available")
	assert.NotContains(t, all["0.3"], "tasks/pushNotificationConfig/set", "push is off in this deployment")
	exts := contract["extensions"].(map[string]any)
	assert.Contains(t, exts["jsonrpc_methods"], "a2a.interrupt.permission.reply")
	assert.Contains(t, exts["jsonrpc_methods"], "tasks/list")
	for v, methods := range all {
		for _, m := range methods.([]any) {
			hdr := []string{"A2A-Version", v}
			r := do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":1,"method":"`+m.(string)+`","params":{}}`, hdr...)
			require.Equal(t, http.StatusOK, r.status)
			if e, ok := r.json(t)["error"].(map[string]any); ok {
				assert.NotEqualValues(t, -32601, e["code"], "%s %s is listed but not served", v, m)
			}
		}
	}
}

func TestSnakeCaseKeysOnly(t *testing.T) {
	srv := newServer(t, "")
	// A snake_case key is read (ProtoJSON accepts both spellings); an
	// underscore in a value is not a key.
	m := rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","message_id":"snake-1","parts":[{"text":"a_b"}]},"configuration":{"return_immediately":false}}`)
	task := m["result"].(map[string]any)["task"].(map[string]any)
	assert.Equal(t, "snake-1", task["history"].([]any)[0].(map[string]any)["messageId"])
	assert.Equal(t, "TASK_STATE_COMPLETED", task["status"].(map[string]any)["state"])
}

// TestRESTPrefixes: the REST binding answers the same at its two
// prefixes (/rest/v1 and /rest), a tenant segment is taken only in the
// form without /v1, and a path no route serves is named as the client
// sent it.
func TestRESTPrefixes(t *testing.T) {
	srv := newServer(t, "")
	cases := []struct {
		method, path string
		status       int
		// msg is part of a 404's message.
		msg string
	}{
		{method: "GET", path: "/rest/v1/tasks", status: http.StatusOK},
		{method: "GET", path: "/rest/tasks", status: http.StatusOK},
		{method: "GET", path: "/rest/acme/tasks", status: http.StatusOK},
		{method: "GET", path: "/rest/v1/acme/tasks", status: http.StatusNotFound, msg: "no route for GET /rest/v1/acme/tasks"},
		{method: "GET", path: "/rest/acme/v1/tasks", status: http.StatusNotFound, msg: "no route for GET /rest/acme/v1/tasks"},
		{method: "GET", path: "/rest/v1/v1/tasks", status: http.StatusNotFound, msg: "no route for GET /rest/v1/v1/tasks"},
		{method: "GET", path: "/rest/v1/nowhere", status: http.StatusNotFound, msg: "no route for GET /rest/v1/nowhere"},
		{method: "GET", path: "/rest/v1", status: http.StatusNotFound, msg: "no route for GET /rest/v1"},
		{method: "DELETE", path: "/rest/v1/tasks/t1", status: http.StatusNotFound, msg: "no route for DELETE /rest/v1/tasks/t1"},
		{method: "DELETE", path: "/rest/acme/tasks/t1", status: http.StatusNotFound, msg: "no route for DELETE /rest/acme/tasks/t1"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := do(t, c.method, srv.URL+c.path, aliceToken, "")
			require.Equal(t, c.status, r.status, string(r.body))
			if c.msg != "" {
				assert.Contains(t, string(r.body), c.msg)
			}
		})
	}
}
