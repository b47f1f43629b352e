package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var orchHeaders = []string{
	"Content-Type", "application/vnd.orch-envelope+json; version=oap.v1",
	"Orch-Id", "evt-1", "Orch-Caller", "planner", "Orch-Module-Id", "mod-7", "Orch-Session-Id", "session-42",
}

// orch posts an envelope with the correlation headers, minus those named
// in drop, plus extra headers.
func orch(t *testing.T, url, body string, drop map[string]bool, extra ...string) response {
	t.Helper()
	var hdrs []string
	for i := 0; i < len(orchHeaders); i += 2 {
		if !drop[orchHeaders[i]] {
			hdrs = append(hdrs, orchHeaders[i], orchHeaders[i+1])
		}
	}
	return do(t, "POST", url+"/orchestrate", aliceToken, body, append(hdrs, extra...)...)
}

// checkEchoed checks the correlation headers and _meta of a response.
func checkEchoed(t *testing.T, r response, env map[string]any) {
	t.Helper()
	assert.Equal(t, "application/vnd.orch-envelope+json; version=oap.v1", r.header.Get("Content-Type"))
	for i := 2; i < len(orchHeaders); i += 2 {
		assert.Equal(t, orchHeaders[i+1], r.header.Get(orchHeaders[i]), orchHeaders[i])
	}
	meta := env["_meta"].(map[string]any)
	assert.Equal(t, "evt-1", meta["orch_id"])
	assert.Equal(t, "planner", meta["orch_caller"])
	assert.Equal(t, "mod-7", meta["orch_module_id"])
	assert.Equal(t, "session-42", meta["orch_session_id"])
}

func TestOAPRoundTrip(t *testing.T) {
	srv := newServer(t, "")
	tests := []struct {
		name, version, send, get, role, part, wantState string
		wrapped                                         bool
	}{
		{"A2A 0.3 envelope types", "", "message/send", "tasks/get", "user", `"kind":"text",`, "completed", false},
		{"A2A 1.0 envelope types", "1.0", "SendMessage", "GetTask", "ROLE_USER", "", "TASK_STATE_COMPLETED", true},
	}
	var contexts []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			if tt.version != "" {
				extra = []string{"A2A-Version", tt.version}
			}
			body := `{"jsonrpc":"2.0","id":"e-1","envelope_type":"` + tt.send + `","params":{"message":{"role":"` + tt.role + `","messageId":"oap-` + tt.send + `",
				"parts":[{` + tt.part + `"text":"hi"}]},"configuration":{"blocking":true}},"_meta":{"trace":"t-9"}}`
			r := orch(t, srv.URL, body, nil, extra...)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			env := r.json(t)
			checkEchoed(t, r, env)
			assert.Equal(t, "2.0", env["jsonrpc"])
			assert.Equal(t, "e-1", env["id"])
			assert.Equal(t, tt.send, env["envelope_type"])
			assert.Equal(t, "t-9", env["_meta"].(map[string]any)["trace"], "the request's _meta comes back")
			task := env["result"].(map[string]any)
			if tt.wrapped {
				task = task["task"].(map[string]any)
			}
			assert.Equal(t, "session-42", task["contextId"], "Orch-Session-Id is the context")
			contexts = append(contexts, task["contextId"].(string))
			id := task["id"].(string)

			r = orch(t, srv.URL, `{"jsonrpc":"2.0","id":"e-2","envelope_type":"`+tt.get+`","params":{"id":"`+id+`"}}`, nil, extra...)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			env = r.json(t)
			checkEchoed(t, r, env)
			assert.Equal(t, tt.get, env["envelope_type"])
			got := env["result"].(map[string]any)
			assert.Equal(t, id, got["id"])
			assert.Equal(t, tt.wantState, got["status"].(map[string]any)["state"])
		})
	}
	assert.Equal(t, []string{"session-42", "session-42"}, contexts, "a session's tasks share one context")

	// Plain JSON is accepted too.
	r := orch(t, srv.URL, `{"jsonrpc":"2.0","id":3,"envelope_type":"tasks/list","params":{"contextId":"session-42"}}`, nil, "Content-Type", "application/json")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	env := r.json(t)
	assert.EqualValues(t, 3, env["id"])
	assert.EqualValues(t, 2, env["result"].(map[string]any)["totalSize"])
}

func TestOAPErrors(t *testing.T) {
	srv := newServer(t, "")
	get := `{"jsonrpc":"2.0","id":"e-1","envelope_type":"tasks/get","params":{"id":"x"}}`
	envelopeError := func(t *testing.T, r response, status, code int, msg string) map[string]any {
		t.Helper()
		require.Equal(t, status, r.status, string(r.body))
		assert.Equal(t, "application/vnd.orch-envelope+json; version=oap.v1", r.header.Get("Content-Type"))
		env := r.json(t)
		e := env["error"].(map[string]any)
		assert.EqualValues(t, code, e["code"])
		assert.Contains(t, e["message"], msg)
		assert.NotNil(t, env["_meta"])
		return env
	}

	for _, h := range []string{"Orch-Id", "Orch-Caller", "Orch-Module-Id", "Orch-Session-Id"} {
		t.Run("missing "+h, func(t *testing.T) {
			env := envelopeError(t, orch(t, srv.URL, get, map[string]bool{h: true}), 400, -32600, "the "+h+" header is required")
			assert.Equal(t, "e-1", env["id"])
			assert.Equal(t, "tasks/get", env["envelope_type"])
			assert.Equal(t, h, env["error"].(map[string]any)["data"].(map[string]any)["missing_header"])
		})
	}
	t.Run("wrong media type", func(t *testing.T) {
		r := orch(t, srv.URL, get, nil, "Content-Type", "text/plain")
		envelopeError(t, r, 415, -32600, `Content-Type "text/plain" is not supported`)
		assert.Equal(t, "evt-1", r.header.Get("Orch-Id"), "headers are echoed on errors too")
		envelopeError(t, orch(t, srv.URL, get, nil, "Content-Type", "application/vnd.orch-envelope+json; version=oap.v2"), 415, -32600, "not supported")
	})
	t.Run("unknown envelope_type", func(t *testing.T) {
		env := envelopeError(t, orch(t, srv.URL, `{"jsonrpc":"2.0","id":"e-5","envelope_type":"plan/execute","params":{}}`, nil), 400, -32601, "Unsupported envelope_type: plan/execute")
		assert.Equal(t, "plan/execute", env["envelope_type"])
		data := env["error"].(map[string]any)["data"].(map[string]any)
		assert.Contains(t, data["supported_envelope_types"], "message/send")
		// Under 1.0 the method names are 1.0's.
		env = envelopeError(t, orch(t, srv.URL, get, nil, "A2A-Version", "1.0"), 400, -32601, "Unsupported envelope_type: tasks/get")
		assert.IsType(t, []any{}, env["error"].(map[string]any)["data"], "1.0 error shape")
	})
	t.Run("malformed envelope", func(t *testing.T) {
		envelopeError(t, orch(t, srv.URL, `{"jsonrpc":"2.0","id":"e-6","params":{}}`, nil), 400, -32600, `"envelope_type" is required`)
		envelopeError(t, orch(t, srv.URL, `{"jsonrpc":`, nil), 400, -32700, "invalid JSON")
	})
	t.Run("operation errors are answered 200", func(t *testing.T) {
		envelopeError(t, orch(t, srv.URL, get, nil), 200, -32001, "task x not found")
		envelopeError(t, orch(t, srv.URL, `{"jsonrpc":"2.0","id":"e-7","envelope_type":"message/send","params":{"message":{"role":"user","messageId":"m","contextId":"other","parts":[{"kind":"text","text":"hi"}]}}}`, nil),
			200, -32602, `"other" differs from the Orch-Session-Id "session-42"`)
	})
	t.Run("version", func(t *testing.T) {
		env := envelopeError(t, orch(t, srv.URL, get, nil, "A2A-Version", "7"), 400, -32009, "not supported")
		assert.Equal(t, "e-1", env["id"])
	})
	t.Run("authentication", func(t *testing.T) {
		r := do(t, "POST", srv.URL+"/orchestrate", "", get, orchHeaders...)
		assert.Equal(t, http.StatusUnauthorized, r.status)
	})
	t.Run("body limit", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":"e","envelope_type":"tasks/get","params":{"id":"` + string(make([]byte, 5000)) + `"}}`
		assert.Equal(t, http.StatusRequestEntityTooLarge, orch(t, srv.URL, big, nil).status)
	})
}
