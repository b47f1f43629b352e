package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/a2aschema"
)

// The golden tests record, for every method of both protocol versions
// over JSON-RPC, the HTTP+JSON binding and OAP, one request and the
// response the server gives it: testdata/golden/<version>/<binding>/
// NN-name.request.json and .response.json. Run with -update to rewrite
// them after an intended change, and read the diff.
//
// A request is {method, path, headers, body}; {{name}} in it stands for a
// value captured from an earlier response of the same sequence. Responses
// are {status, headers (Content-Type, Content-Encoding), body}, with ids
// (UUIDs, numbered in order of appearance) and timestamps normalized.

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden")

type goldenReq struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"`
}

type goldenCase struct {
	name string
	req  goldenReq
	// capture names values of the response body to use in later
	// requests: name -> dotted path ("result.id").
	capture map[string]string
}

func rpcReq(version, method, params string) goldenReq {
	r := goldenReq{Method: "POST", Path: "/", Body: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`)}
	if params == "" {
		r.Body = json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)
	}
	if version != "" {
		r.Headers = map[string]string{"A2A-Version": version}
	}
	return r
}

func restReq(version, method, path, body string) goldenReq {
	r := goldenReq{Method: method, Path: path}
	if body != "" {
		r.Body = json.RawMessage(body)
	}
	if version != "" {
		r.Headers = map[string]string{"A2A-Version": version}
	}
	return r
}

func oapReq(version, envelopeType, params string) goldenReq {
	r := goldenReq{Method: "POST", Path: "/orchestrate", Headers: map[string]string{
		"Content-Type": "application/vnd.orch-envelope+json; version=oap.v1",
		"Orch-Id":      "evt-1", "Orch-Caller": "planner", "Orch-Module-Id": "module-7", "Orch-Session-Id": "session-" + version,
	}, Body: json.RawMessage(`{"jsonrpc":"2.0","id":"env-1","envelope_type":"` + envelopeType + `","params":` + params + `,"_meta":{"trace":"t-1"}}`)}
	if version != "0.3" {
		r.Headers["A2A-Version"] = version
	}
	return r
}

const hook = `"url":"https://hooks.example.com/a2a","token":"secret-token"`

func goldenSequences() map[string][]goldenCase {
	// Each sent message names its context, so that contexts/list shows
	// ids that do not change from run to run (its order is the
	// sequence's: see goldenServer's clock).
	send03 := func(id, text string, blocking bool) string {
		return fmt.Sprintf(`{"message":{"kind":"message","role":"user","messageId":%q,"contextId":"ctx-%s","parts":[{"kind":"text","text":%q}]},"configuration":{"blocking":%t}}`, id, id, text, blocking)
	}
	send10 := func(id, text string) string {
		return fmt.Sprintf(`{"message":{"messageId":%q,"contextId":"ctx-%s","role":"ROLE_USER","parts":[{"text":%q}]}}`, id, id, text)
	}
	cap := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	return map[string][]goldenCase{
		"v0.3/jsonrpc": {
			{"message-send", rpcReq("", "message/send", send03("m-1", "hello", true)), cap("done", "result.id", "ctx", "result.contextId")},
			{"message-send-input-required", rpcReq("", "message/send", send03("m-2", "ask What is your name?", true)), cap("asked", "result.id")},
			{"tasks-get", rpcReq("", "tasks/get", `{"id":"{{done}}","historyLength":1}`), nil},
			{"tasks-list", rpcReq("", "tasks/list", `{"status":"input-required"}`), nil},
			{"tasks-cancel", rpcReq("", "tasks/cancel", `{"id":"{{asked}}"}`), nil},
			{"tasks-cancel-finished", rpcReq("", "tasks/cancel", `{"id":"{{done}}"}`), nil},
			{"tasks-get-unknown", rpcReq("", "tasks/get", `{"id":"no-such-task"}`), nil},
			{"push-config-set", rpcReq("", "tasks/pushNotificationConfig/set", `{"taskId":"{{done}}","pushNotificationConfig":{"id":"hook-1",`+hook+`}}`), nil},
			{"push-config-get", rpcReq("", "tasks/pushNotificationConfig/get", `{"id":"{{done}}","pushNotificationConfigId":"hook-1"}`), nil},
			{"push-config-list", rpcReq("", "tasks/pushNotificationConfig/list", `{"id":"{{done}}"}`), nil},
			{"push-config-delete", rpcReq("", "tasks/pushNotificationConfig/delete", `{"id":"{{done}}","pushNotificationConfigId":"hook-1"}`), nil},
			{"extended-card", rpcReq("", "agent/getAuthenticatedExtendedCard", ""), nil},
			{"message-stream", rpcReq("", "message/stream", send03("m-3", "hi", false)), nil},
			{"tasks-resubscribe", rpcReq("", "tasks/resubscribe", `{"id":"{{done}}"}`), nil},
			{"tasks-feedback", rpcReq("", "tasks/feedback", `{"taskId":"{{done}}","rating":5,"comment":"exactly right"}`), nil},
			{"contexts-list", rpcReq("", "contexts/list", `{}`), nil},
			{"contexts-clear-unknown", rpcReq("", "contexts/clear", `{"contextId":"no-such-context"}`), nil},
			{"contexts-clear", rpcReq("", "contexts/clear", `{"contextId":"{{ctx}}"}`), nil},
			{"interrupt-list", rpcReq("", "a2a.interrupt.list", `{}`), nil},
			{"unknown-method", rpcReq("", "SendMessage", `{}`), nil},
			{"invalid-params", rpcReq("", "message/send", `{"message":{"role":"user","parts":[]}}`), nil},
		},
		"v1.0/jsonrpc": {
			{"send-message", rpcReq("1.0", "SendMessage", send10("m-1", "hello")), cap("done", "result.task.id", "ctx", "result.task.contextId")},
			{"send-message-input-required", rpcReq("1.0", "SendMessage", send10("m-2", "ask What is your name?")), cap("asked", "result.task.id")},
			{"get-task", rpcReq("1.0", "GetTask", `{"id":"{{done}}","historyLength":1}`), nil},
			{"list-tasks", rpcReq("1.0", "ListTasks", `{"status":"TASK_STATE_INPUT_REQUIRED","pageSize":10}`), nil},
			{"cancel-task", rpcReq("1.0", "CancelTask", `{"id":"{{asked}}"}`), nil},
			{"cancel-task-finished", rpcReq("1.0", "CancelTask", `{"id":"{{done}}"}`), nil},
			{"get-task-unknown", rpcReq("1.0", "GetTask", `{"id":"no-such-task"}`), nil},
			{"create-push-config", rpcReq("1.0", "CreateTaskPushNotificationConfig", `{"taskId":"{{done}}","id":"hook-1",`+hook+`,"authentication":{"scheme":"Bearer","credentials":"webhook-secret"}}`), nil},
			{"get-push-config", rpcReq("1.0", "GetTaskPushNotificationConfig", `{"taskId":"{{done}}","id":"hook-1"}`), nil},
			{"list-push-configs", rpcReq("1.0", "ListTaskPushNotificationConfigs", `{"taskId":"{{done}}"}`), nil},
			{"delete-push-config", rpcReq("1.0", "DeleteTaskPushNotificationConfig", `{"taskId":"{{done}}","id":"hook-1"}`), nil},
			{"get-extended-agent-card", rpcReq("1.0", "GetExtendedAgentCard", `{}`), nil},
			{"send-streaming-message", rpcReq("1.0", "SendStreamingMessage", send10("m-3", "hi")), nil},
			{"subscribe-to-task", rpcReq("1.0", "SubscribeToTask", `{"id":"{{done}}"}`), nil},
			{"tasks-feedback", rpcReq("1.0", "tasks/feedback", `{"taskId":"{{done}}","rating":5,"comment":"exactly right"}`), nil},
			{"contexts-list", rpcReq("1.0", "contexts/list", `{}`), nil},
			{"contexts-clear", rpcReq("1.0", "contexts/clear", `{"contextId":"{{ctx}}"}`), nil},
			{"unknown-method", rpcReq("1.0", "message/send", `{}`), nil},
			{"invalid-params", rpcReq("1.0", "SendMessage", `{"message":{"messageId":"m-4","role":"ROLE_USER","parts":[{"text":"a","url":"https://x.example/"}]}}`), nil},
			{"version-not-supported", rpcReq("2.0", "SendMessage", `{}`), nil},
		},
		"v0.3/rest": {
			{"message-send", restReq("", "POST", "/rest/v1/message:send", send03("m-1", "hello", true)), cap("done", "id")},
			{"message-send-input-required", restReq("", "POST", "/rest/v1/message:send", send03("m-2", "ask What is your name?", true)), cap("asked", "id")},
			{"tasks-get", restReq("", "GET", "/rest/v1/tasks/{{done}}?historyLength=1", ""), nil},
			{"tasks-list", restReq("", "GET", "/rest/v1/tasks?status=input-required", ""), nil},
			{"tasks-cancel", restReq("", "POST", "/rest/v1/tasks/{{asked}}:cancel", ""), nil},
			{"tasks-cancel-finished", restReq("", "POST", "/rest/v1/tasks/{{done}}:cancel", ""), nil},
			{"tasks-get-unknown", restReq("", "GET", "/rest/v1/tasks/no-such-task", ""), nil},
			{"push-config-set", restReq("", "POST", "/rest/v1/tasks/{{done}}/pushNotificationConfigs", `{"taskId":"{{done}}","pushNotificationConfig":{"id":"hook-1",`+hook+`}}`), nil},
			{"push-config-get", restReq("", "GET", "/rest/v1/tasks/{{done}}/pushNotificationConfigs/hook-1", ""), nil},
			{"push-config-list", restReq("", "GET", "/rest/v1/tasks/{{done}}/pushNotificationConfigs", ""), nil},
			{"push-config-delete", restReq("", "DELETE", "/rest/v1/tasks/{{done}}/pushNotificationConfigs/hook-1", ""), nil},
			{"extended-card", restReq("", "GET", "/rest/v1/card", ""), nil},
			{"message-stream", restReq("", "POST", "/rest/v1/message:stream", send03("m-3", "hi", false)), nil},
		},
		"v1.0/rest": {
			{"send-message", restReq("1.0", "POST", "/rest/message:send", send10("m-1", "hello")), cap("done", "task.id")},
			{"send-message-input-required", restReq("1.0", "POST", "/rest/message:send", send10("m-2", "ask What is your name?")), cap("asked", "task.id")},
			{"get-task", restReq("1.0", "GET", "/rest/tasks/{{done}}?historyLength=1", ""), nil},
			{"list-tasks", restReq("1.0", "GET", "/rest/tasks?status=TASK_STATE_INPUT_REQUIRED", ""), nil},
			{"cancel-task", restReq("1.0", "POST", "/rest/tasks/{{asked}}:cancel", ""), nil},
			{"cancel-task-finished", restReq("1.0", "POST", "/rest/tasks/{{done}}:cancel", ""), nil},
			{"get-task-unknown", restReq("1.0", "GET", "/rest/tasks/no-such-task", ""), nil},
			{"create-push-config", restReq("1.0", "POST", "/rest/tasks/{{done}}/pushNotificationConfigs", `{"id":"hook-1",`+hook+`,"authentication":{"scheme":"Bearer"}}`), nil},
			{"get-push-config", restReq("1.0", "GET", "/rest/tasks/{{done}}/pushNotificationConfigs/hook-1", ""), nil},
			{"list-push-configs", restReq("1.0", "GET", "/rest/tasks/{{done}}/pushNotificationConfigs", ""), nil},
			{"delete-push-config", restReq("1.0", "DELETE", "/rest/tasks/{{done}}/pushNotificationConfigs/hook-1", ""), nil},
			{"get-extended-agent-card", restReq("1.0", "GET", "/rest/extendedAgentCard", ""), nil},
			{"send-streaming-message", restReq("1.0", "POST", "/rest/message:stream", send10("m-3", "hi")), nil},
			{"version-not-supported", restReq("2.0", "GET", "/rest/tasks/{{done}}", ""), nil},
		},
		"v0.3/oap": {
			// No contextId: Orch-Session-Id is the context.
			{"message-send", oapReq("0.3", "message/send", `{"message":{"kind":"message","role":"user","messageId":"m-1","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":true}}`), cap("done", "result.id")},
			{"tasks-get", oapReq("0.3", "tasks/get", `{"id":"{{done}}","historyLength":0}`), nil},
			{"unknown-envelope-type", oapReq("0.3", "plan/execute", `{}`), nil},
		},
		"v1.0/oap": {
			{"send-message", oapReq("1.0", "SendMessage", `{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`), cap("done", "result.task.id")},
			{"get-task", oapReq("1.0", "GetTask", `{"id":"{{done}}","historyLength":0}`), nil},
		},
	}
}

// schema10 names, for the 1.0 cases that answer an A2A object, its
// definition in the official JSON Schema bundle: every such response is
// validated against it (pkg/testkit/a2aschema), not only compared with its
// golden file.
var schema10 = map[string]string{
	"send-message":                a2aschema.SendMessageResponse,
	"send-message-input-required": a2aschema.SendMessageResponse,
	"get-task":                    a2aschema.Task,
	"cancel-task":                 a2aschema.Task,
	"list-tasks":                  a2aschema.ListTasksResponse,
	"create-push-config":          a2aschema.TaskPushNotificationConfig,
	"get-push-config":             a2aschema.TaskPushNotificationConfig,
	"list-push-configs":           a2aschema.ListPushConfigsResponse,
	"get-extended-agent-card":     a2aschema.AgentCard,
}

// checkSchema10 validates the A2A object of a 1.0 response: the JSON-RPC
// result, the OAP envelope's result, or the REST body.
func checkSchema10(t *testing.T, seq, name string, c goldenCase, status int, decoded any) {
	t.Helper()
	def, ok := schema10[c.name]
	if !ok || !strings.HasPrefix(seq, "v1.0/") {
		return
	}
	require.Equal(t, http.StatusOK, status, "%s: a 1.0 %s", name, def)
	obj := decoded
	if !strings.HasSuffix(seq, "/rest") {
		m, _ := decoded.(map[string]any)
		require.Contains(t, m, "result", "%s: a 1.0 %s", name, def)
		obj = m["result"]
	}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	require.NoError(t, a2aschema.Validate(def, b), "%s: %s", name, b)
}

// goldenServer serves the demo agent (instant work) with push configs on,
// one caller, and a fixed public URL. Its clock moves a millisecond at
// each reading: two tasks never share a status timestamp, so the order
// of contexts/list (newest status first) is the order of the sequence
// (on the system clock, a fast run settled two tasks in one millisecond,
// and the tie fell to their ids).
func goldenServer(t *testing.T) *httptest.Server {
	t.Helper()
	ag := fastDemo(t)
	clk := clocktest.New(clocktest.Start(t), clocktest.WithTick(time.Millisecond))
	srv, _ := serveAgent(t, ag, service.Config{PushNotifications: true}, service.Options{Clock: clk}, httpapi.Options{
		Auth: alice(), Cards: cards(ag.Info(), true), PublicURL: "https://agent.example.com",
	})
	return srv
}

var (
	uuidRE      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z`)
)

// normalizer names the ids of one sequence in order of appearance.
type normalizer map[string]string

func (n normalizer) apply(b []byte) []byte {
	b = uuidRE.ReplaceAllFunc(b, func(id []byte) []byte {
		name, ok := n[string(id)]
		if !ok {
			name = fmt.Sprintf("<id-%d>", len(n)+1)
			n[string(id)] = name
		}
		return []byte(name)
	})
	return timestampRE.ReplaceAll(b, []byte("<timestamp>"))
}

func lookup(v any, path string) string {
	for _, k := range strings.Split(path, ".") {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	return append(b, '\n')
}

func TestGolden(t *testing.T) {
	for seq, cases := range goldenSequences() {
		t.Run(seq, func(t *testing.T) {
			srv := goldenServer(t)
			dir := filepath.Join("testdata", "golden", filepath.FromSlash(seq))
			if *update {
				require.NoError(t, os.RemoveAll(dir))
				require.NoError(t, os.MkdirAll(dir, 0o755))
			}
			vars := map[string]string{}
			norm := normalizer{}
			for i, c := range cases {
				name := fmt.Sprintf("%02d-%s", i+1, c.name)
				reqFile := indent(t, c.req)

				raw := string(reqFile)
				for k, v := range vars {
					raw = strings.ReplaceAll(raw, "{{"+k+"}}", v)
				}
				var req goldenReq
				require.NoError(t, json.Unmarshal([]byte(raw), &req))
				var body io.Reader
				if len(req.Body) > 0 {
					body = bytes.NewReader(req.Body)
				}
				hr, err := http.NewRequest(req.Method, srv.URL+req.Path, body)
				require.NoError(t, err)
				hr.Header.Set("Authorization", "Bearer "+aliceToken)
				hr.Header.Set("Accept-Encoding", "identity")
				for k, v := range req.Headers {
					hr.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(hr)
				require.NoError(t, err)
				respBody, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.NoError(t, err)

				var decoded any
				require.NoError(t, json.Unmarshal(respBody, &decoded), "%s: %s", name, respBody)
				for k, path := range c.capture {
					vars[k] = lookup(decoded, path)
					require.NotEmpty(t, vars[k], "%s: capture %s at %s", name, k, path)
				}
				checkSchema10(t, seq, name, c, resp.StatusCode, decoded)
				got := map[string]any{"status": resp.StatusCode, "contentType": resp.Header.Get("Content-Type"), "body": decoded}
				gotFile := norm.apply(indent(t, got))

				reqPath := filepath.Join(dir, name+".request.json")
				respPath := filepath.Join(dir, name+".response.json")
				if *update {
					require.NoError(t, os.WriteFile(reqPath, reqFile, 0o644))
					require.NoError(t, os.WriteFile(respPath, gotFile, 0o644))
					continue
				}
				wantReq, err := os.ReadFile(reqPath)
				require.NoError(t, err, "run go test -run TestGolden -update ./pkg/httpapi to write the golden files")
				require.Equal(t, string(wantReq), string(reqFile), "%s: the request differs from its golden file", name)
				wantResp, err := os.ReadFile(respPath)
				require.NoError(t, err)
				require.JSONEq(t, string(wantResp), string(gotFile), "%s: the response differs from its golden file", name)
			}
		})
	}
}
