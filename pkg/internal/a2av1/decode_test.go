package a2av1_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

func boolp(v bool) *bool { return &v }

func TestSendDefaultsToWaiting(t *testing.T) {
	p, err := a2av1.DecodeSendMessageRequest(json.RawMessage(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}`))
	require.NoError(t, err)
	require.NotNil(t, p.Configuration)
	assert.Equal(t, boolp(true), p.Configuration.Blocking, "returnImmediately absent: wait for a terminal or interrupted task")
	p, err = a2av1.DecodeSendMessageRequest(json.RawMessage(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"returnImmediately":false}}`))
	require.NoError(t, err)
	assert.Equal(t, boolp(true), p.Configuration.Blocking)
}

func TestDecodeErrors(t *testing.T) {
	msg := func(parts string) string {
		return `{"message":{"messageId":"m","role":"ROLE_USER","parts":` + parts + `}}`
	}
	tests := []struct {
		name, body, wantMsg string
	}{
		{"no params", ``, "params: is required"},
		{"params not an object", `[1]`, "params: must be an object"},
		{"no message", `{}`, "params.message: is required"},
		{"no role", `{"message":{"messageId":"m","parts":[{"text":"x"}]}}`, `params.message.role: is required ("ROLE_USER" or "ROLE_AGENT")`},
		{"bad role", `{"message":{"messageId":"m","role":"ROLE_ROBOT","parts":[{"text":"x"}]}}`, `params.message.role: must be "ROLE_USER" or "ROLE_AGENT", got "ROLE_ROBOT"`},
		{"agent role", `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`, `params.message.role: must be "ROLE_USER" for SendMessage, got "ROLE_AGENT"`},
		{"no parts", msg(`[]`), "params.message.parts: must hold at least one part"},
		{"empty part", msg(`[{}]`), "params.message.parts[0]: must have exactly one of text, raw, url or data, got 0"},
		{"two contents", msg(`[{"text":"a"},{"text":"b","url":"https://x"}]`), "params.message.parts[1]: must have exactly one of text, raw, url or data, got 2"},
		{"bad base64", msg(`[{"raw":"!!"}]`), "params.message.parts[0].raw: is not valid base64"},
		{"relative url", msg(`[{"url":"a/b"}]`), "params.message.parts[0].url: must be an absolute URL"},
		{"data array", msg(`[{"data":[1]}]`), "params.message.parts[0].data: must be a JSON object"},
		{"wrong type", `{"message":{"messageId":7}}`, "params.message.messageId: expected a string"},
		{"push without url", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"taskPushNotificationConfig":{"token":"t"}}}`, "params.configuration.taskPushNotificationConfig.url: is required"},
		{"push without scheme", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"taskPushNotificationConfig":{"url":"https://x","authentication":{}}}}`, "params.configuration.taskPushNotificationConfig.authentication.scheme: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a2av1.DecodeSendMessageRequest(json.RawMessage(tt.body))
			var ae *a2a.Error
			require.True(t, errors.As(err, &ae), "%v", err)
			assert.Equal(t, a2a.CodeInvalidParams, ae.Code)
			assert.Contains(t, ae.Message, tt.wantMsg)
		})
	}

	_, err := a2av1.DecodeListTasksRequest(json.RawMessage(`{"status":"TASK_STATE_SLEEPING"}`))
	assert.ErrorContains(t, err, `params.status: "TASK_STATE_SLEEPING" is not a task state`)
	l, err := a2av1.DecodeListTasksRequest(json.RawMessage(`{"pageSize":0,"status":"TASK_STATE_UNSPECIFIED"}`))
	require.NoError(t, err)
	assert.Equal(t, a2a.ListTasksParams{}, l, "zero values are the proto defaults")
	// The official JS SDK 1.x client sends its enum's unknown sentinel when
	// no filter is set: no filter.
	l, err = a2av1.DecodeListTasksRequest(json.RawMessage(`{"status":"UNRECOGNIZED"}`))
	require.NoError(t, err)
	assert.Equal(t, a2a.ListTasksParams{}, l, "UNRECOGNIZED is no filter")
	l, err = a2av1.DecodeListTasksRequest(nil)
	require.NoError(t, err)
	assert.Equal(t, a2a.ListTasksParams{}, l, "ListTasks params may be omitted")
	_, err = a2av1.DecodePushConfig(json.RawMessage(`{"taskId":"a","url":"https://x"}`), "b")
	assert.ErrorContains(t, err, `params.taskId: "a" does not match the task "b" of the path`)
	_, err = a2av1.DecodePushConfig(json.RawMessage(`{"url":"https://x"}`), "")
	assert.ErrorContains(t, err, "params.taskId: is required")
	_, err = a2av1.DecodeGetPushConfigRequest(json.RawMessage(`{"taskId":"t"}`))
	assert.ErrorContains(t, err, "params.id: is required")
	_, err = a2av1.DecodeDeletePushConfigRequest(json.RawMessage(`{"id":"c"}`))
	assert.ErrorContains(t, err, "params.taskId: is required")
}

func TestBase64Forms(t *testing.T) {
	for _, in := range []string{"aGk+Pz8=", "aGk+Pz8", "aGk-Pz8=", "aGk-Pz8"} {
		p, err := a2av1.DecodeSendMessageRequest(json.RawMessage(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"raw":"` + in + `"}]}}`))
		require.NoError(t, err, in)
		assert.Equal(t, "aGk+Pz8=", p.Message.Parts[0].File.Bytes, in)
		require.NoError(t, p.Validate())
	}
}
