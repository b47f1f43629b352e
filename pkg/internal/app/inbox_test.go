package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// rpcCall posts one JSON-RPC request to a local server without auth.
func rpcCall(t *testing.T, url, method, params string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	resp, err := http.Post(url+"/", "application/json", bytes.NewBufferString(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	return m
}

// TestMessageToAWorkingTaskOnEveryStore: on the memory store and on
// DynamoDB, a message sent to a working task is accepted, read back with
// historyLength, and acknowledged by the demo agent's next step, once.
func TestMessageToAWorkingTaskOnEveryStore(t *testing.T) {
	for _, kind := range []string{"memory", "dynamodb"} {
		t.Run(kind, func(t *testing.T) {
			var o clienttest.Options
			if kind == "dynamodb" {
				o.Store = clienttest.DynamoStore(t)
			}
			url := clienttest.Start(t, o).URL
			m := rpcCall(t, url, "message/send", `{"message":{"role":"user","messageId":"ib-1","parts":[{"kind":"text","text":"long 40"}]},"configuration":{"blocking":false}}`)
			id := m["result"].(map[string]any)["id"].(string)

			// The step writes every 10 ms: by the time the answer is read it
			// may have written after the message, so look at the last few.
			m = rpcCall(t, url, "message/send", `{"message":{"role":"user","messageId":"ib-2","taskId":"`+id+`","parts":[{"kind":"text","text":"hurry"}]},"configuration":{"historyLength":5}}`)
			res, ok := m["result"].(map[string]any)
			require.True(t, ok, "accepted: %v", m)
			require.LessOrEqual(t, len(res["history"].([]any)), 5)
			var recent []any
			for _, h := range res["history"].([]any) {
				recent = append(recent, h.(map[string]any)["messageId"])
			}
			assert.Contains(t, recent, "ib-2", "the answer's recent history shows the message")

			var history []any
			require.Eventually(t, func() bool {
				task := rpcCall(t, url, "tasks/get", `{"id":"`+id+`"}`)["result"].(map[string]any)
				history, _ = task["history"].([]any)
				return task["status"].(map[string]any)["state"] == "completed"
			}, 60*time.Second, 20*time.Millisecond, "40 steps on moto take seconds, tens of them on a loaded machine")
			acks := 0
			for _, h := range history {
				msg := h.(map[string]any)
				text, _ := msg["parts"].([]any)[0].(map[string]any)["text"].(string)
				if msg["role"] == "agent" && strings.Contains(text, `(received: "hurry")`) {
					acks++
				}
			}
			assert.Equal(t, 1, acks, "the next step acknowledges the message, once")
		})
	}
}
