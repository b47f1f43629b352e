package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/conformance"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/a2aschema"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// The tests of this file hold the server to the rules the official A2A
// conformance checks and SDK servers apply (issue 13).

// newAnonymousServer serves the demo agent with authentication off, as
// `make run` does without A2A_BEARER_TOKEN.
func newAnonymousServer(t *testing.T, o httpapi.Options) *httptest.Server {
	t.Helper()
	ag := fastDemo(t)
	o.Auth = auth.Anonymous{}
	o.Cards = cards(ag.Info(), false)
	srv, _ := serveAgent(t, ag, service.Config{}, service.Options{}, o)
	return srv
}

func TestExtendedCardNeedsAuthentication(t *testing.T) {
	t.Run("auth on: declared, and credentials are required", func(t *testing.T) {
		srv := newServer(t, "https://agent.example.com")
		c := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "").json(t)
		assert.Equal(t, true, c["supportsAuthenticatedExtendedCard"])
		assert.Equal(t, true, c["capabilities"].(map[string]any)["extendedAgentCard"])

		for _, tc := range []struct{ version, method string }{
			{"", "agent/getAuthenticatedExtendedCard"},
			{"1.0", "GetExtendedAgentCard"},
		} {
			for _, token := range []string{"", "wrong-token"} {
				r := do(t, "POST", srv.URL+"/", token, `{"jsonrpc":"2.0","id":3,"method":"`+tc.method+`"}`, "A2A-Version", tc.version)
				require.Equal(t, http.StatusOK, r.status, string(r.body))
				assert.Equal(t, `Bearer realm="a2a"`, r.header.Get("WWW-Authenticate"))
				m := r.json(t)
				assert.EqualValues(t, 3, m["id"])
				e := m["error"].(map[string]any)
				assert.EqualValues(t, -32007, e["code"], tc.method)
				assert.Contains(t, e["message"], "needs valid credentials")
			}
			// With credentials, the card.
			r := do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":3,"method":"`+tc.method+`"}`, "A2A-Version", tc.version)
			assert.Equal(t, "a2a-lambda demo agent", r.json(t)["result"].(map[string]any)["name"])
		}
		// Other methods without credentials stay 401.
		r := do(t, "POST", srv.URL+"/", "", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"x"}}`)
		assert.Equal(t, http.StatusUnauthorized, r.status)
	})

	t.Run("auth off: not declared, and not served", func(t *testing.T) {
		srv := newAnonymousServer(t, httpapi.Options{PublicURL: "https://agent.example.com"})
		c := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "").json(t)
		assert.NotContains(t, c, "supportsAuthenticatedExtendedCard")
		assert.NotContains(t, c["capabilities"], "extendedAgentCard")

		for _, tc := range []struct{ version, method string }{
			{"", "agent/getAuthenticatedExtendedCard"},
			{"1.0", "GetExtendedAgentCard"},
		} {
			r := do(t, "POST", srv.URL+"/", "", `{"jsonrpc":"2.0","id":3,"method":"`+tc.method+`"}`, "A2A-Version", tc.version)
			require.Equal(t, http.StatusOK, r.status)
			e := r.json(t)["error"].(map[string]any)
			assert.EqualValues(t, -32007, e["code"], tc.method)
			assert.Contains(t, e["message"], "no extended agent card is configured")
		}
		for _, path := range []string{"/rest/v1/card", "/rest/extendedAgentCard"} {
			r := do(t, "GET", srv.URL+path, "", "")
			assert.Equal(t, http.StatusBadRequest, r.status, path)
			assert.Contains(t, string(r.body), "no extended agent card is configured")
		}
	})
}

// TestListTasksUnrecognizedStatus: the official JS SDK 1.x client sends
// "status":"UNRECOGNIZED" when no filter is set; it lists every task.
func TestListTasksUnrecognizedStatus(t *testing.T) {
	srv := newServer(t, "")
	send := rpc1(t, srv.URL, "SendMessage", `{"message":{"messageId":"u1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`)
	id := send["result"].(map[string]any)["task"].(map[string]any)["id"]
	for _, status := range []string{"UNRECOGNIZED", "TASK_STATE_UNSPECIFIED"} {
		m := rpc1(t, srv.URL, "ListTasks", `{"status":"`+status+`"}`)
		tasks := m["result"].(map[string]any)["tasks"].([]any)
		require.Len(t, tasks, 1, status)
		assert.Equal(t, id, tasks[0].(map[string]any)["id"])

		r := do(t, "GET", srv.URL+"/rest/tasks?status="+status, aliceToken, "", "A2A-Version", "1.0")
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Len(t, r.json(t)["tasks"], 1, status)
	}
	m := rpc1(t, srv.URL, "ListTasks", `{"status":"TASK_STATE_SLEEPING"}`)
	code, _, _ := errorInfo(t, m)
	assert.Equal(t, -32602, code, "a name that is no state is still refused")
}

// TestContentTypeOf10Requests: an A2A 1.0 request whose body is declared
// as something other than JSON is refused before it is read; requests
// without A2A-Version keep today's leniency.
func TestContentTypeOf10Requests(t *testing.T) {
	srv := newServer(t, "")
	send := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"ct1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	r := do(t, "POST", srv.URL+"/", aliceToken, send, "A2A-Version", "1.0", "Content-Type", "text/plain")
	require.Equal(t, http.StatusOK, r.status)
	m := r.json(t)
	assert.Nil(t, m["id"], "the body is not read")
	code, msg, info := errorInfo(t, m)
	assert.Equal(t, -32005, code)
	assert.Contains(t, msg, `Content-Type "text/plain" is not supported`)
	assert.Equal(t, "CONTENT_TYPE_NOT_SUPPORTED", info["reason"])
	tasks := rpc1(t, srv.URL, "ListTasks", `{}`)["result"].(map[string]any)["tasks"]
	assert.Empty(t, tasks, "nothing was sent")

	rest := `{"message":{"messageId":"ct2","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	r = do(t, "POST", srv.URL+"/rest/message:send", aliceToken, rest, "A2A-Version", "1.0", "Content-Type", "text/plain")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.status)
	e := r.json(t)["error"].(map[string]any)
	assert.EqualValues(t, 415, e["code"])
	assert.Contains(t, e["message"], "send Content-Type: application/json")

	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/a2a+json", ""} {
		r = do(t, "POST", srv.URL+"/", aliceToken, send, "A2A-Version", "1.0", "Content-Type", ct)
		assert.Contains(t, r.json(t), "result", "Content-Type %q", ct)
	}
	// Without A2A-Version (0.3), text/plain is read as JSON, as the
	// README's curl lines rely on.
	r = do(t, "POST", srv.URL+"/", aliceToken, `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`, "Content-Type", "text/plain")
	assert.Contains(t, r.json(t), "result")
	r = do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, `{"message":{"kind":"message","role":"user","messageId":"ct3","parts":[{"kind":"text","text":"hi"}]}}`, "Content-Type", "text/plain")
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}

// TestCardCaching: the card has Cache-Control with max-age and an ETag,
// no Last-Modified (its render time would differ between instances), and
// answers 304 to a current If-None-Match; If-Modified-Since is ignored.
func TestCardCaching(t *testing.T) {
	srv := newServer(t, "https://agent.example.com")
	url := srv.URL + "/.well-known/agent-card.json"
	r := do(t, "GET", url, "", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Regexp(t, `(^|,\s*)max-age=\d+`, r.header.Get("Cache-Control"))
	assert.NotEmpty(t, r.header.Get("ETag"))
	assert.Empty(t, r.header.Values("Last-Modified"))
	assert.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"), "a length, not chunks")
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat)

	tests := []struct {
		name    string
		headers []string
		want    int
	}{
		{"current ETag", []string{"If-None-Match", r.header.Get("ETag")}, http.StatusNotModified},
		{"current ETag among others", []string{"If-None-Match", `"other", ` + strings.TrimPrefix(r.header.Get("ETag"), "W/")}, http.StatusNotModified},
		{"any", []string{"If-None-Match", "*"}, http.StatusNotModified},
		{"stale ETag", []string{"If-None-Match", `W/"stale"`}, http.StatusOK},
		{"stale ETag and a date", []string{"If-None-Match", `W/"stale"`, "If-Modified-Since", now}, http.StatusOK},
		{"a date alone", []string{"If-Modified-Since", now}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, "GET", url, "", "", tt.headers...)
			assert.Equal(t, tt.want, got.status)
			assert.Equal(t, r.header.Get("ETag"), got.header.Get("ETag"))
			if tt.want == http.StatusNotModified {
				assert.Empty(t, got.body)
			} else {
				assert.JSONEq(t, string(r.body), string(got.body))
			}
		})
	}
}

// TestHistoryLengthCapsExactly: historyLength N returns the N most recent
// messages of the history, on every method and binding that takes it.
func TestHistoryLengthCapsExactly(t *testing.T) {
	srv := newServer(t, "")
	// A task with four messages: question, answer, and the agent's two.
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"h1","parts":[{"kind":"text","text":"ask Name?"}]},"configuration":{"blocking":true}}`)
	id := m["result"].(map[string]any)["id"].(string)
	m = rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"h2","taskId":"`+id+`","parts":[{"kind":"text","text":"Ada"}]},"configuration":{"blocking":true}}`)
	full := m["result"].(map[string]any)["history"].([]any)
	require.Greater(t, len(full), 2, "the task has a longer history than the caps below")
	last := full[len(full)-1].(map[string]any)["messageId"]

	history := func(t *testing.T, v any, path ...string) []any {
		t.Helper()
		for _, k := range path {
			v = v.(map[string]any)[k]
		}
		h, _ := v.(map[string]any)["history"].([]any)
		return h
	}
	v1 := []string{"A2A-Version", "1.0"}
	for _, n := range []int{0, 1, 2} {
		ns := fmt.Sprint(n)
		cases := map[string][]any{
			"0.3 tasks/get":    history(t, rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+id+`","historyLength":`+ns+`}`), "result"),
			"1.0 GetTask":      history(t, rpc1(t, srv.URL, "GetTask", `{"id":"`+id+`","historyLength":`+ns+`}`), "result"),
			"0.3 REST get":     history(t, do(t, "GET", srv.URL+"/rest/v1/tasks/"+id+"?historyLength="+ns, aliceToken, "").json(t)),
			"1.0 REST get":     history(t, do(t, "GET", srv.URL+"/rest/tasks/"+id+"?historyLength="+ns, aliceToken, "", v1...).json(t)),
			"0.3 tasks/list":   history(t, rpc(t, srv, aliceToken, "tasks/list", `{"historyLength":`+ns+`}`)["result"].(map[string]any)["tasks"].([]any)[0]),
			"1.0 ListTasks":    history(t, rpc1(t, srv.URL, "ListTasks", `{"historyLength":`+ns+`}`)["result"].(map[string]any)["tasks"].([]any)[0]),
			"0.3 REST list":    history(t, do(t, "GET", srv.URL+"/rest/v1/tasks?historyLength="+ns, aliceToken, "").json(t)["tasks"].([]any)[0]),
			"1.0 REST list":    history(t, do(t, "GET", srv.URL+"/rest/tasks?historyLength="+ns, aliceToken, "", v1...).json(t)["tasks"].([]any)[0]),
			"0.3 message/send": history(t, rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"s`+ns+`","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true,"historyLength":`+ns+`}}`), "result"),
			"1.0 SendMessage":  history(t, rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"s1`+ns+`","parts":[{"text":"hi"}]},"configuration":{"historyLength":`+ns+`}}`), "result", "task"),
			"0.3 REST send":    history(t, do(t, "POST", srv.URL+"/rest/v1/message:send", aliceToken, `{"message":{"role":"user","messageId":"s2`+ns+`","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true,"historyLength":`+ns+`}}`).json(t)),
			"1.0 REST send":    history(t, do(t, "POST", srv.URL+"/rest/message:send", aliceToken, `{"message":{"role":"ROLE_USER","messageId":"s3`+ns+`","parts":[{"text":"hi"}]},"configuration":{"historyLength":`+ns+`}}`, v1...).json(t), "task"),
		}
		for name, h := range cases {
			assert.Len(t, h, n, "%s historyLength %d", name, n)
			if n > 0 && len(h) == n && (strings.HasSuffix(name, "get") || strings.HasSuffix(name, "GetTask")) {
				assert.Equal(t, last, h[n-1].(map[string]any)["messageId"], "%s: the most recent messages", name)
			}
		}
	}
}

// newVersionServer serves the demo agent with bearer auth, push
// notifications and only the given protocol versions.
func newVersionServer(t *testing.T, versions ...a2a.Version) *httptest.Server {
	t.Helper()
	ag := fastDemo(t)
	srv, _ := serveAgent(t, ag, service.Config{PushNotifications: true}, service.Options{}, httpapi.Options{
		Auth: alice(),
		Cards: func(u string) (a2a.AgentCard, func() a2a.AgentCard) {
			o := card.Options{PublicURL: u, Agent: ag.Info(), BearerAuth: true, PushNotifications: true, Versions: versions}
			return card.Public(o), func() a2a.AgentCard { return card.Extended(o) }
		},
		PublicURL: "https://agent.example.com",
		Versions:  versions,
	})
	return srv
}

// TestProtocolVersions: A2A_PROTOCOL_VERSIONS=1.0 serves a pure 1.0 card,
// valid against the official JSON Schema, and refuses 0.3 requests; 0.3
// the reverse; both (the default) the union card.
func TestProtocolVersions(t *testing.T) {
	send03 := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"v1","parts":[{"kind":"text","text":"hi"}]}}}`
	send10 := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"v2","parts":[{"text":"hi"}]}}}`

	t.Run("1.0 only", func(t *testing.T) {
		srv := newVersionServer(t, a2a.V10)
		r := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "")
		require.Equal(t, http.StatusOK, r.status)
		require.NoError(t, a2aschema.Validate(a2aschema.AgentCard, r.body), "the public card is a valid 1.0 card: %s", r.body)
		c := r.json(t)
		for _, f := range []string{"url", "preferredTransport", "additionalInterfaces", "protocolVersion", "supportsAuthenticatedExtendedCard", "security"} {
			assert.NotContains(t, c, f)
		}
		assert.Equal(t, true, c["capabilities"].(map[string]any)["extendedAgentCard"])
		for _, i := range c["supportedInterfaces"].([]any) {
			assert.Equal(t, "1.0", i.(map[string]any)["protocolVersion"])
		}
		ext := do(t, "GET", srv.URL+"/rest/extendedAgentCard", aliceToken, "", "A2A-Version", "1.0")
		require.Equal(t, http.StatusOK, ext.status)
		require.NoError(t, a2aschema.Validate(a2aschema.AgentCard, ext.body))
		var contract map[string]any
		for _, e := range ext.json(t)["capabilities"].(map[string]any)["extensions"].([]any) {
			if e.(map[string]any)["uri"] == card.ExtWireContract {
				contract = e.(map[string]any)["params"].(map[string]any)
			}
		}
		require.NotNil(t, contract, "the extended card carries the wire contract")
		assert.Equal(t, []any{"1.0"}, contract["supported_protocol_versions"])
		assert.NotContains(t, contract["all_jsonrpc_methods"], "0.3")

		for _, hdr := range [][]string{nil, {"A2A-Version", "0.3"}} {
			r = do(t, "POST", srv.URL+"/", aliceToken, send03, hdr...)
			code, msg, info := errorInfo(t, r.json(t))
			assert.Equal(t, -32009, code)
			assert.Contains(t, msg, "it speaks 1.0 only")
			assert.Equal(t, "VERSION_NOT_SUPPORTED", info["reason"])
		}
		r = do(t, "GET", srv.URL+"/rest/v1/tasks", aliceToken, "")
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, string(r.body), "VERSION_NOT_SUPPORTED")
		assert.Contains(t, rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"v3","parts":[{"text":"hi"}]}}`), "result")
	})

	t.Run("0.3 only", func(t *testing.T) {
		srv := newVersionServer(t, a2a.V03)
		c := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "").json(t)
		assert.Equal(t, "https://agent.example.com", c["url"])
		assert.Equal(t, true, c["supportsAuthenticatedExtendedCard"])
		assert.NotContains(t, c, "supportedInterfaces")
		assert.NotContains(t, c["capabilities"], "extendedAgentCard")

		r := do(t, "POST", srv.URL+"/", aliceToken, send10, "A2A-Version", "1.0")
		code, msg, _ := errorInfo(t, r.json(t))
		assert.Equal(t, -32009, code)
		assert.Contains(t, msg, "it speaks 0.3 only")
		assert.Contains(t, rpc(t, srv, aliceToken, "message/send", `{"message":{"kind":"message","role":"user","messageId":"v4","parts":[{"kind":"text","text":"hi"}]}}`), "result")
	})

	t.Run("both", func(t *testing.T) {
		srv := newVersionServer(t)
		r := do(t, "GET", srv.URL+"/.well-known/agent-card.json", "", "")
		c := r.json(t)
		assert.Equal(t, "https://agent.example.com", c["url"], "the union card keeps the 0.3 fields")
		assert.Len(t, c["supportedInterfaces"], 4)
		assert.Error(t, a2aschema.Validate(a2aschema.AgentCard, r.body), "which strict 1.0 validation refuses")
		assert.Contains(t, do(t, "POST", srv.URL+"/", aliceToken, send03).json(t), "result")
		assert.Contains(t, do(t, "POST", srv.URL+"/", aliceToken, send10, "A2A-Version", "1.0").json(t), "result")
	})
}

// TestMessageResult: an agent that answers directly (agent.Respond, the
// conformance agent's tck-message-response) gives a blocking send a
// Message result, in each version's shape; tasks/get still finds the task.
func TestMessageResult(t *testing.T) {
	ag, err := conformance.New(envtest.Settings())
	require.NoError(t, err)
	srv, _ := serveAgent(t, ag, service.Config{}, service.Options{}, httpapi.Options{Auth: alice(), Cards: cards(ag.Info(), true)})

	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"kind":"message","role":"user","messageId":"tck-message-response-1","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
	res := m["result"].(map[string]any)
	assert.Equal(t, "message", res["kind"])
	assert.Equal(t, "agent", res["role"])
	assert.NotContains(t, res, "metadata", "host bookkeeping stays out of the answer")
	assert.Equal(t, []any{map[string]any{"kind": "text", "text": "Direct message response"}}, res["parts"], "DM-MSG-001")
	got := rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+res["taskId"].(string)+`"}`)["result"].(map[string]any)
	assert.Equal(t, "completed", got["status"].(map[string]any)["state"])

	m = rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"tck-message-response-2","parts":[{"text":"hi"}]}}`)
	b, err := json.Marshal(m["result"])
	require.NoError(t, err)
	require.NoError(t, a2aschema.Validate(a2aschema.SendMessageResponse, b), "%s", b)
	assert.Equal(t, "ROLE_AGENT", m["result"].(map[string]any)["message"].(map[string]any)["role"])
	assert.Equal(t, []any{map[string]any{"text": "Direct message response"}}, m["result"].(map[string]any)["message"].(map[string]any)["parts"])

	r := do(t, "POST", srv.URL+"/rest/message:send", aliceToken, `{"message":{"role":"ROLE_USER","messageId":"tck-message-response-3","parts":[{"text":"hi"}]}}`, "A2A-Version", "1.0")
	require.Equal(t, http.StatusOK, r.status)
	require.NoError(t, a2aschema.Validate(a2aschema.SendMessageResponse, r.body), "%s", r.body)
	assert.Contains(t, r.json(t), "message")

	// A non-blocking send answers with the task, as always.
	m = rpc(t, srv, aliceToken, "message/send", `{"message":{"kind":"message","role":"user","messageId":"tck-message-response-4","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":false}}`)
	assert.Equal(t, "task", m["result"].(map[string]any)["kind"])
}

// TestMessageToAWorkingTask: a user message to a task that is still
// working is accepted (the task, 200), joins the history at once, and
// reaches the agent's next step exactly once: the demo agent acknowledges
// it in its progress. A finished task still refuses new messages.
func TestMessageToAWorkingTask(t *testing.T) {
	ag, err := demo.New(envtest.Settings(demo.EnvWorkMS, "0", demo.EnvStepMS, "300"))
	require.NoError(t, err)
	srv, _ := serveAgent(t, ag, service.Config{}, service.Options{}, httpapi.Options{Auth: alice(), Cards: cards(ag.Info(), true)})

	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"w1","parts":[{"kind":"text","text":"long 3"}]},"configuration":{"blocking":false}}`)
	id := m["result"].(map[string]any)["id"].(string)
	require.Eventually(t, func() bool {
		got := rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+id+`","historyLength":0}`)["result"].(map[string]any)
		return got["status"].(map[string]any)["state"] == "working"
	}, 5*time.Second, 5*time.Millisecond)

	for i, text := range []string{"faster please", "and louder"} {
		m = rpc(t, srv, aliceToken, "message/send", fmt.Sprintf(`{"message":{"role":"user","messageId":"w-more-%d","taskId":%q,"parts":[{"kind":"text","text":%q}]},"configuration":{"blocking":true,"historyLength":1}}`, i, id, text))
		res, ok := m["result"].(map[string]any)
		require.True(t, ok, "accepted: %v", m)
		assert.Equal(t, id, res["id"])
		assert.Equal(t, "working", res["status"].(map[string]any)["state"])
		hist := res["history"].([]any)
		require.Len(t, hist, 1, "historyLength reads see the message")
		assert.Equal(t, fmt.Sprintf("w-more-%d", i), hist[0].(map[string]any)["messageId"])
	}
	// 1.0 too.
	m = rpc1(t, srv.URL, "SendMessage", `{"message":{"role":"ROLE_USER","messageId":"w-more-2","taskId":"`+id+`","parts":[{"text":"third"}]},"configuration":{"returnImmediately":true}}`)
	assert.Equal(t, "TASK_STATE_WORKING", m["result"].(map[string]any)["task"].(map[string]any)["status"].(map[string]any)["state"])

	var task map[string]any
	require.Eventually(t, func() bool {
		task = rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+id+`"}`)["result"].(map[string]any)
		return task["status"].(map[string]any)["state"] == "completed"
	}, 10*time.Second, 20*time.Millisecond)
	var acks []string
	for _, h := range task["history"].([]any) {
		msg := h.(map[string]any)
		text := msg["parts"].([]any)[0].(map[string]any)["text"].(string)
		if msg["role"] == "agent" && strings.Contains(text, "received:") {
			acks = append(acks, text)
		}
	}
	joined := strings.Join(acks, "\n")
	for _, text := range []string{`"faster please"`, `"and louder"`, `"third"`} {
		assert.Equal(t, 1, strings.Count(joined, text), "%s reaches exactly one step: %v", text, acks)
	}
	assert.Less(t, strings.Index(joined, `"faster please"`), strings.Index(joined, `"and louder"`), "in order")

	// A finished task keeps its clear error.
	code, msg, _ := rpcError(t, rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"w-late","taskId":"`+id+`","parts":[{"kind":"text","text":"late"}]}}`))
	assert.Equal(t, -32004, code)
	assert.Contains(t, msg, "is completed and cannot take new messages")
}
