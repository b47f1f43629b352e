package a2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMessageSendParamsValidate(t *testing.T) {
	tests := []struct {
		name    string
		params  string
		message string // expected error message prefix; "" means valid
	}{
		{"valid text", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`, ""},
		{"valid file uri", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file","file":{"uri":"https://a/b.pdf"}}]}}`, ""},
		{"valid file bytes", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file","file":{"bytes":"aGVsbG8="}}]}}`, ""},
		{"valid data", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":{"a":1}}]}}`, ""},
		{"missing role", `{"message":{"messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`, "params.message.role: is required"},
		{"bad role", `{"message":{"role":"system","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`, `params.message.role: must be "user" or "agent", got "system"`},
		{"agent role", `{"message":{"role":"agent","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`, `params.message.role: must be "user" for message/send`},
		{"missing messageId", `{"message":{"role":"user","parts":[{"kind":"text","text":"hi"}]}}`, "params.message.messageId: is required"},
		{"blank messageId", `{"message":{"role":"user","messageId":"  ","parts":[{"kind":"text","text":"hi"}]}}`, "params.message.messageId: is required"},
		{"no parts", `{"message":{"role":"user","messageId":"m","parts":[]}}`, "params.message.parts: must hold at least one part"},
		{"unknown kind", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"video"}]}}`, `params.message.parts[0].kind: must be "text", "file" or "data", got "video"`},
		{"no kind no content", `{"message":{"role":"user","messageId":"m","parts":[{}]}}`, "params.message.parts[0].kind: is required"},
		{"file both", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"},{"kind":"file","file":{"uri":"https://a","bytes":"aGk="}}]}}`, "params.message.parts[1].file: must have exactly one of bytes or uri, not both"},
		{"file neither", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file","file":{"name":"x"}}]}}`, "params.message.parts[0].file: must have exactly one of bytes or uri"},
		{"file missing", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file"}]}}`, "params.message.parts[0].file: is required"},
		{"bad base64", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file","file":{"bytes":"!!"}}]}}`, "params.message.parts[0].file.bytes: is not valid base64"},
		{"relative uri", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"file","file":{"uri":"b.pdf"}}]}}`, "params.message.parts[0].file.uri: must be an absolute URI"},
		{"data missing", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"data"}]}}`, "params.message.parts[0].data: is required"},
		{"data array", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":[1]}]}}`, "params.message.parts[0].data: must be a JSON object"},
		{"negative historyLength", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}]},"configuration":{"historyLength":-1}}`, "params.configuration.historyLength: must not be negative"},
		{"text part without text", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text"}]}}`, "params.message.parts[0].text: is required for a text part"},
		{"empty text", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":{}},{"kind":"text","text":""}]}}`, "params.message.parts[1].text: is required"},
		{"id of 256 bytes", `{"message":{"role":"user","messageId":"` + strings.Repeat("m", 256) + `","parts":[{"kind":"text","text":"x"}]}}`, ""},
		{"messageId too long", `{"message":{"role":"user","messageId":"` + strings.Repeat("m", 257) + `","parts":[{"kind":"text","text":"x"}]}}`, "params.message.messageId: is 257 bytes long; ids are at most 256"},
		{"taskId too long", `{"message":{"role":"user","messageId":"m","taskId":"` + strings.Repeat("t", 300<<10) + `","parts":[{"kind":"text","text":"x"}]}}`, "params.message.taskId: is 307200 bytes long"},
		{"contextId too long", `{"message":{"role":"user","messageId":"m","contextId":"` + strings.Repeat("c", 257) + `","parts":[{"kind":"text","text":"x"}]}}`, "params.message.contextId: is 257 bytes"},
		{"session id of 256 bytes", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}]},"metadata":{"shared":{"session":{"id":"` + strings.Repeat("s", 256) + `"}}}}`, ""},
		{"session id too long", `{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}]},"metadata":{"shared":{"session":{"id":"` + strings.Repeat("s", 300<<10) + `"}}}}`, "params.metadata.shared.session.id: is 307200 bytes long"},
		{"message's session id too long", `{"message":{"role":"user","messageId":"m","metadata":{"shared":{"session":{"id":"` + strings.Repeat("s", 257) + `"}}},"parts":[{"kind":"text","text":"x"}]}}`, "params.message.metadata.shared.session.id: is 257 bytes"},
		{"referenced id too long", `{"message":{"role":"user","messageId":"m","referenceTaskIds":["a","` + strings.Repeat("r", 257) + `"],"parts":[{"kind":"text","text":"x"}]}}`, "params.message.referenceTaskIds[1]: is 257 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p MessageSendParams
			require.NoError(t, json.Unmarshal([]byte(tt.params), &p))
			err := p.Validate()
			if tt.message == "" {
				require.NoError(t, err)
				return
			}
			var ae *Error
			require.True(t, errors.As(err, &ae), "want *a2a.Error, got %v", err)
			assert.Equal(t, CodeInvalidParams, ae.Code)
			assert.Contains(t, ae.Message, tt.message)
		})
	}
}

func TestOtherParamsValidate(t *testing.T) {
	neg, big, zero, ok := -1, 101, 0, 10
	tests := []struct {
		name string
		v    interface{ Validate() error }
		msg  string
	}{
		{"get ok", &TaskQueryParams{ID: "t"}, ""},
		{"get no id", &TaskQueryParams{}, "params.id: is required"},
		{"get negative history", &TaskQueryParams{ID: "t", HistoryLength: &neg}, "params.historyLength: must not be negative"},
		{"cancel no id", &TaskIDParams{ID: " "}, "params.id: is required"},
		{"get long id", &TaskQueryParams{ID: strings.Repeat("t", 257)}, "params.id: is 257 bytes long; ids are at most 256"},
		{"cancel long id", &TaskIDParams{ID: strings.Repeat("t", 300<<10)}, "params.id: is 307200 bytes long"},
		{"list long context", &ListTasksParams{ContextID: strings.Repeat("c", 257)}, "params.contextId: is 257 bytes long"},
		{"list ok", &ListTasksParams{PageSize: &ok, Status: TaskStateWorking}, ""},
		{"list page too big", &ListTasksParams{PageSize: &big}, "params.pageSize: must be between 1 and 100, got 101"},
		{"list page zero", &ListTasksParams{PageSize: &zero}, "params.pageSize: must be between 1 and 100, got 0"},
		{"list bad status", &ListTasksParams{Status: "done"}, `params.status: "done" is not a task state`},
		{"list bad timestamp", &ListTasksParams{StatusTimestampAfter: "yesterday"}, "params.statusTimestampAfter: must be an RFC 3339 timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.v.Validate()
			if tt.msg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidParams)
			assert.Contains(t, err.(*Error).Message, tt.msg)
		})
	}
}

func TestArtifactValidate(t *testing.T) {
	a := Artifact{Parts: []Part{TextPart("x")}}
	assert.ErrorContains(t, a.Validate("artifact"), "artifact.artifactId: is required")
	a.ArtifactID = "a"
	assert.NoError(t, a.Validate("artifact"))
}
