package httpapi_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// newPushServer serves the demo agent with push notification configs on,
// behind a policy that wants https webhooks.
func newPushServer(t *testing.T) (*httptest.Server, *memory.Store) {
	t.Helper()
	ag := fastDemo(t)
	check := func(c a2a.PushNotificationConfig) error {
		if !strings.HasPrefix(c.URL, "https://") {
			return errors.New("webhook URL refused: scheme must be https")
		}
		return nil
	}
	return serveAgent(t, ag, service.Config{PushNotifications: true}, service.Options{CheckPushConfig: check}, httpapi.Options{
		Auth:  auth.NewBearer(map[string]string{"alice": aliceToken, "bob": bobToken}),
		Cards: cards(ag.Info(), true),
	})
}

func newTaskID(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"`+t.Name()+`","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
	return m["result"].(map[string]any)["id"].(string)
}

func TestPushConfigsOverJSONRPC(t *testing.T) {
	srv, store := newPushServer(t)
	taskID := newTaskID(t, srv)

	m := rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/set", `{"taskId":"`+taskID+`","pushNotificationConfig":
		{"id":"c1","url":"https://hooks.example.com/a","token":"tok","authentication":{"schemes":["Bearer"],"credentials":"cred"}}}`)
	want := map[string]any{"taskId": taskID, "pushNotificationConfig": map[string]any{
		"id": "c1", "url": "https://hooks.example.com/a", "token": service.Redacted,
		"authentication": map[string]any{"schemes": []any{"Bearer"}, "credentials": service.Redacted},
	}}
	assert.Equal(t, want, m["result"], "the answer redacts the secrets")
	stored, err := store.GetPushConfig(t.Context(), taskID, "c1")
	require.NoError(t, err)
	assert.Equal(t, "tok", stored.Config.Token)
	assert.Equal(t, a2a.V03, stored.ProtocolVersion)

	m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/get", `{"id":"`+taskID+`","pushNotificationConfigId":"c1"}`)
	assert.Equal(t, want, m["result"])
	m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/get", `{"id":"`+taskID+`"}`)
	assert.Equal(t, want, m["result"], "the deprecated TaskIdParams form reads the only config")
	m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/list", `{"id":"`+taskID+`"}`)
	assert.Equal(t, []any{want}, m["result"])

	m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/delete", `{"id":"`+taskID+`","pushNotificationConfigId":"c1"}`)
	assert.Contains(t, m, "result")
	assert.Nil(t, m["result"])
	m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/list", `{"id":"`+taskID+`"}`)
	assert.Equal(t, []any{}, m["result"])

	for _, tc := range []struct {
		name, token, method, params string
		code                        int
		msg                         string
	}{
		{"a refused URL", aliceToken, "tasks/pushNotificationConfig/set", `{"taskId":"` + taskID + `","pushNotificationConfig":{"url":"http://10.0.0.1/"}}`, -32602, "webhook URL refused: scheme must be https"},
		{"no config", aliceToken, "tasks/pushNotificationConfig/set", `{"taskId":"` + taskID + `"}`, -32602, "webhook URL refused"},
		{"a config of the wrong type", aliceToken, "tasks/pushNotificationConfig/set", `{"taskId":"` + taskID + `","pushNotificationConfig":[]}`, -32602, "params.pushNotificationConfig"},
		{"another caller's task", bobToken, "tasks/pushNotificationConfig/list", `{"id":"` + taskID + `"}`, -32001, "not found"},
		{"an unknown config", aliceToken, "tasks/pushNotificationConfig/get", `{"id":"` + taskID + `","pushNotificationConfigId":"nope"}`, -32001, `has no push notification config "nope"`},
		{"delete without a config id", aliceToken, "tasks/pushNotificationConfig/delete", `{"id":"` + taskID + `"}`, -32602, "pushNotificationConfigId: is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, msg, data := rpcError(t, rpc(t, srv, tc.token, tc.method, tc.params))
			assert.Equal(t, tc.code, code)
			assert.Contains(t, msg, tc.msg)
			assert.Nil(t, data, "0.3 A2A errors carry no data")
		})
	}
}

// TestPushConfigWithoutID is the conformance kit's sequence: set a config
// without an id, then get it with the task id only, and with "default".
func TestPushConfigWithoutID(t *testing.T) {
	srv, _ := newPushServer(t)
	taskID := newTaskID(t, srv)
	m := rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/set", `{"taskId":"`+taskID+`","pushNotificationConfig":{"url":"https://hooks.example.com/kit"}}`)
	want := map[string]any{"taskId": taskID, "pushNotificationConfig": map[string]any{"id": taskID, "url": "https://hooks.example.com/kit"}}
	assert.Equal(t, want, m["result"], "the config gets the task id as its id")
	for _, params := range []string{
		`{"id":"` + taskID + `"}`,
		`{"id":"` + taskID + `","pushNotificationConfigId":"default"}`,
		`{"id":"` + taskID + `","pushNotificationConfigId":"` + taskID + `"}`,
	} {
		m = rpc(t, srv, aliceToken, "tasks/pushNotificationConfig/get", params)
		assert.Equal(t, want, m["result"], params)
	}
}

func TestInlinePushConfigOverJSONRPC(t *testing.T) {
	srv, store := newPushServer(t)
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]},
		"configuration":{"blocking":true,"pushNotificationConfig":{"url":"https://hooks.example.com/inline","token":"t"}}}`)
	taskID := m["result"].(map[string]any)["id"].(string)
	cs, err := store.ListPushConfigs(t.Context(), taskID)
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, "https://hooks.example.com/inline", cs[0].Config.URL)
	assert.Equal(t, taskID, cs[0].Config.ID, "an inline config without an id gets the task id")

	code, msg, _ := rpcError(t, rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"m2","parts":[{"kind":"text","text":"hi"}]},
		"configuration":{"pushNotificationConfig":{"url":"ftp://user:pw@hooks.example.com/"}}}`))
	assert.Equal(t, -32602, code)
	assert.Contains(t, msg, "params.configuration.pushNotificationConfig")
	assert.NotContains(t, msg, "pw@", "the error never echoes the URL's secrets")
}

func TestPushConfigsOverREST(t *testing.T) {
	srv, _ := newPushServer(t)
	taskID := newTaskID(t, srv)
	base := srv.URL + "/rest/v1/tasks/" + taskID + "/pushNotificationConfigs"

	for _, tc := range []struct{ name, body, id string }{
		{"the JSON-RPC params", `{"taskId":"` + taskID + `","pushNotificationConfig":{"id":"rpc-shape","url":"https://hooks.example.com/1"}}`, "rpc-shape"},
		{"the proto's config field", `{"config":{"taskId":"` + taskID + `","pushNotificationConfig":{"id":"proto-shape","url":"https://hooks.example.com/2","token":"t"}}}`, "proto-shape"},
		{"a bare config", `{"id":"bare","url":"https://hooks.example.com/3"}`, "bare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, "POST", base, aliceToken, tc.body)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			var got a2a.TaskPushNotificationConfig
			require.NoError(t, json.Unmarshal(r.body, &got))
			assert.Equal(t, taskID, got.TaskID)
			assert.Equal(t, tc.id, got.PushNotificationConfig.ID)
		})
	}

	r := do(t, "GET", base, aliceToken, "")
	require.Equal(t, http.StatusOK, r.status)
	var list []a2a.TaskPushNotificationConfig
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list, 3)
	assert.Equal(t, "bare", list[0].PushNotificationConfig.ID)
	assert.Equal(t, service.Redacted, list[1].PushNotificationConfig.Token)

	r = do(t, "GET", base+"/proto-shape", aliceToken, "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, string(r.body), `"url":"https://hooks.example.com/2"`)

	// 200 with {} (google.protobuf.Empty): a2a-go's REST clients take any
	// other status, 204 included, for an error.
	r = do(t, "DELETE", base+"/proto-shape", aliceToken, "")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "{}", string(r.body))
	r = do(t, "DELETE", base+"/proto-shape", aliceToken, "")
	assert.Equal(t, http.StatusOK, r.status, "deleting is idempotent")

	restError(t, do(t, "GET", base+"/proto-shape", aliceToken, ""), 404, "NOT_FOUND", "TASK_NOT_FOUND", "has no push notification config")
	restError(t, do(t, "POST", base, aliceToken, `{"taskId":"other","pushNotificationConfig":{"url":"https://h.example.com/"}}`), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", `taskId: "other" does not match`)
	restError(t, do(t, "POST", base, aliceToken, `{"url":"http://h.example.com/"}`), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "scheme must be https")
	restError(t, do(t, "POST", base, aliceToken, `[1]`), 400, "INVALID_ARGUMENT", "INVALID_PARAMS", "must be an object")
	restError(t, do(t, "GET", base, bobToken, ""), 404, "NOT_FOUND", "TASK_NOT_FOUND", "not found")
	assert.Equal(t, http.StatusUnauthorized, do(t, "GET", base, "", "").status)
}

// The delivery log extension over both bindings: the same results, owner
// scoped, the REST body's task id checked against the path.
func TestDeliveriesOverBothBindings(t *testing.T) {
	srv, ts := newPushServer(t)
	taskID := newTaskID(t, srv)
	require.NoError(t, ts.LogDelivery(t.Context(), taskID, store.DeliveryAttempt{ConfigID: "c1", Version: 2, Attempt: 1,
		StatusCode: 410, State: a2a.DeliveryFailed, DeadLettered: true, Job: []byte(`{}`)}))

	m := rpc(t, srv, aliceToken, a2a.MethodDeliveriesList, `{"taskId":"`+taskID+`"}`)
	require.Nil(t, m["error"], m)
	list := m["result"].(map[string]any)["deliveries"].([]any)
	require.Len(t, list, 1)
	assert.Equal(t, taskID+":2", list[0].(map[string]any)["eventId"])
	assert.Equal(t, "failed", list[0].(map[string]any)["state"])

	base := srv.URL + "/rest/v1/tasks/" + taskID + "/deliveries"
	r := do(t, "GET", base+"?pageSize=1", aliceToken, "")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var res a2a.ListDeliveriesResult
	require.NoError(t, json.Unmarshal(r.body, &res))
	require.Len(t, res.Deliveries, 1)
	assert.Equal(t, int64(2), res.Deliveries[0].TaskVersion)
	assert.Equal(t, 410, res.Deliveries[0].Attempts[0].StatusCode)

	assert.Equal(t, http.StatusNotFound, do(t, "GET", base, bobToken, "").status, "another caller's task is not found")
	assert.Equal(t, http.StatusBadRequest, do(t, "GET", base+"?pageSize=x", aliceToken, "").status)
	r = do(t, "POST", base+":redrive", aliceToken, `{"taskId":"other"}`)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, string(r.body), "does not match the task")
	assert.Equal(t, http.StatusNotFound, do(t, "POST", base+":redrive", bobToken, "").status)

	r = do(t, "POST", base+":redrive", aliceToken, `{"eventId":"`+taskID+`:2"}`)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var redriven a2a.RedriveDeliveriesResult
	require.NoError(t, json.Unmarshal(r.body, &redriven))
	require.Len(t, redriven.Redriven, 1)
	assert.Equal(t, "queued", redriven.Redriven[0].State)

	m = rpc(t, srv, aliceToken, a2a.MethodDeliveriesRedrive, `{"taskId":"`+taskID+`"}`)
	require.NotNil(t, m["error"], "nothing failed is left")
	assert.Contains(t, m["error"].(map[string]any)["message"], "has no failed delivery to redrive")
}
