package a2av1

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertReadAsUnmarshaled checks that, where read (readSendRequest,
// readGetTaskRequest) reads raw, it reads what json.Unmarshal reads, and
// returns whether it read raw.
func assertReadAsUnmarshaled[W any](t *testing.T, read func(json.RawMessage, *W) bool, raw string) bool {
	t.Helper()
	var got, want W
	if !read(json.RawMessage(raw), &got) {
		return false
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &want), "read what encoding/json refuses: %s", raw)
	assert.Equal(t, want, got, raw)
	return true
}

var sendRequestSeeds = []string{
	`{"message":{"role":"ROLE_USER","messageId":"m-get-1","parts":[{"text":"hello"}]}}`,
	`{"tenant":"t","message":{"messageId":"m","contextId":"c","taskId":"t-1","role":"ROLE_USER","extensions":["https://e"],"referenceTaskIds":["t-0"],` +
		`"parts":[{"text":"a","mediaType":"text/markdown","filename":"a.md","metadata":{"k":1}},{"raw":"aGk=","filename":"hi"},{"url":"https://x/f"},{"data": { "n" : [1, 2] } }],` +
		`"metadata":{"shared":{"session":{"id":"s"}}}},"configuration":{"acceptedOutputModes":["text/plain"],"historyLength":3,"returnImmediately":false,` +
		`"taskPushNotificationConfig":{"url":"https://h","token":"t","authentication":{"scheme":"Bearer"}}},"metadata":{"a":1}}`,
	` { "message" : { "parts" : [ null , { "data" : null } ] , "role" : "ROLE_USER" } , "configuration" : null } `,
	`{"message":null,"metadata":null}`,
	`{"message":{"role":"ROLE_USER","parts":[{"text":"\u00e9\n\"q\" \ud83d\ude00 <&>"}]},"extra":[{"x":1}]}`,
	`{}`,
}

func TestReadSendRequest(t *testing.T) {
	for _, raw := range sendRequestSeeds {
		assert.True(t, assertReadAsUnmarshaled(t, readSendRequest, raw), "read without encoding/json: %s", raw)
	}
	for _, raw := range []string{
		`{"Message":{}}`, `{"message":{"Role":"ROLE_USER"}}`, `{"message":{"parts":[{"Text":"x"}]}}`, `{"message":{"rol\u0065":"x"}}`,
		`{"message":{"parts":[],"parts":[]}}`, `{"message":{"role":1}}`, `{"message":{"parts":{}}}`, `{"message":{"parts":["x"]}}`,
		`{"configuration":{"historyLength":"3"}}`, `{"configuration":{"returnImmediately":1}}`, `{"configuration":{"taskPushNotificationConfig":[]}}`,
		`{"message":[]}`, `[]`, `null`, ``, `{"message":{}`, `{} {}`, `{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		assert.False(t, assertReadAsUnmarshaled(t, readSendRequest, raw), "left to encoding/json: %s", raw)
	}
}

// Whatever the params, readSendRequest reads only what json.Unmarshal
// reads, and reads it alike.
func FuzzReadSendRequest(f *testing.F) {
	for _, s := range sendRequestSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertReadAsUnmarshaled(t, readSendRequest, string(raw))
	})
}

var getTaskSeeds = []string{
	`{"id":"0190f5c2-7d4e-7a1b-9c3d-0a1b2c3d4e5f"}`,
	`{"tenant":"t","id":"x","historyLength":0}`,
	` { "id" : "\u00e9\"" , "historyLength" : null , "metadata" : { "k" : 1 } } `,
	`{"id":"a","id":null,"historyLength":1,"historyLength":2}`,
	`{}`,
}

func TestReadGetTaskRequest(t *testing.T) {
	for _, raw := range getTaskSeeds {
		assert.True(t, assertReadAsUnmarshaled(t, readGetTaskRequest, raw), "read without encoding/json: %s", raw)
	}
	for _, raw := range []string{
		`{"Id":"t"}`, `{"i\u0064":"t"}`, `{"TENANT":"t"}`, `{"id":1}`, `{"historyLength":1e2}`, `{"historyLength":true}`,
		`[]`, `null`, ``, `{"id":"t"`, `{"id":"t"}}`, `{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		assert.False(t, assertReadAsUnmarshaled(t, readGetTaskRequest, raw), "left to encoding/json: %s", raw)
	}
}

// Whatever the params, readGetTaskRequest reads only what json.Unmarshal
// reads, and reads it alike.
func FuzzReadGetTaskRequest(f *testing.F) {
	for _, s := range getTaskSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertReadAsUnmarshaled(t, readGetTaskRequest, string(raw))
	})
}
