package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinduExtensions drives tasks/feedback, contexts/list and
// contexts/clear over JSON-RPC, under both versions.
func TestBinduExtensions(t *testing.T) {
	srv := newServer(t, "")
	// Named contexts: a later one has a greater id, which orders
	// contexts created in the same millisecond the same way.
	m := rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"b1","contextId":"ctx-1","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":true}}`)
	done := m["result"].(map[string]any)
	taskID, contextID := done["id"].(string), done["contextId"].(string)
	m = rpc(t, srv, aliceToken, "message/send", `{"message":{"role":"user","messageId":"b2","contextId":"ctx-2","parts":[{"kind":"text","text":"ask Who?"}]},"configuration":{"blocking":true}}`)
	asked := m["result"].(map[string]any)

	m = rpc(t, srv, aliceToken, "tasks/feedback", `{"taskId":"`+taskID+`","rating":4,"comment":"ok"}`)
	assert.Equal(t, map[string]any{"ok": true}, m["result"])
	m = rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+taskID+`"}`)
	assert.EqualValues(t, 4, m["result"].(map[string]any)["metadata"].(map[string]any)["feedback"].(map[string]any)["rating"])
	code, msg, _ := rpcError(t, rpc(t, srv, aliceToken, "tasks/feedback", `{"task_id":"`+asked["id"].(string)+`","rating":4}`))
	assert.Equal(t, -32602, code, "feedback on a live task (snake_case params are read too)")
	assert.Contains(t, msg, "is input-required")

	m = rpc(t, srv, aliceToken, "contexts/list", `{}`)
	res := m["result"].(map[string]any)
	ctxs := res["contexts"].([]any)
	require.Len(t, ctxs, 2)
	assert.Equal(t, asked["contextId"], ctxs[0].(map[string]any)["contextId"], "newest first")
	assert.EqualValues(t, 1, ctxs[1].(map[string]any)["taskCount"])
	assert.Equal(t, "", res["nextPageToken"])
	m = rpc1(t, srv.URL, "contexts/list", `{"pageSize":1}`)
	res = m["result"].(map[string]any)
	assert.Len(t, res["contexts"], 1, "the extensions are served under 1.0 too")
	assert.NotEmpty(t, res["nextPageToken"])

	code, msg, data := rpcError(t, rpc(t, srv, aliceToken, "contexts/clear", `{"contextId":"`+asked["contextId"].(string)+`"}`))
	assert.Equal(t, -32021, code)
	assert.Contains(t, msg, "cancel it")
	assert.Equal(t, asked["id"], data["taskId"], "extension errors keep their data under 0.3")
	m = rpc(t, srv, aliceToken, "contexts/clear", `{"contextId":"`+contextID+`"}`)
	assert.Equal(t, map[string]any{"ok": true}, m["result"])
	code, _, _ = rpcError(t, rpc(t, srv, aliceToken, "tasks/get", `{"id":"`+taskID+`"}`))
	assert.Equal(t, -32001, code, "a cleared context's tasks are gone")

	code, msg, info := errorInfo(t, rpc1(t, srv.URL, "contexts/clear", `{"contextId":"`+contextID+`"}`))
	assert.Equal(t, -32020, code)
	assert.Contains(t, msg, "not found")
	assert.Equal(t, "CONTEXT_NOT_FOUND", info["reason"])
	code, _, _ = rpcError(t, rpc(t, srv, bobToken, "contexts/clear", `{"contextId":"`+asked["contextId"].(string)+`"}`))
	assert.Equal(t, -32020, code, "another caller's context does not exist for bob")
}
