package service

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// assertFingerprintJSON checks fingerprintJSON against json.Marshal, byte
// for byte: the fingerprints of the sends kept in the store are digests of
// json.Marshal's bytes, and a retry must match its first send's.
func assertFingerprintJSON(t *testing.T, p a2a.MessageSendParams) {
	t.Helper()
	want, err := json.Marshal(&p)
	require.NoError(t, err)
	got, err := fingerprintJSON(&p)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func TestFingerprintJSON(t *testing.T) {
	blocking, history := true, 3
	tests := []struct {
		name string
		p    a2a.MessageSendParams
	}{
		{"a text", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}}},
		{"characters escaped for HTML", a2a.MessageSendParams{
			Message:  a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartKindText, Text: "<b>a & b</b> \u2028\u2029 \"q\" é", Metadata: a2a.Metadata{"<k>": "&"}}}, Metadata: a2a.Metadata{"x": "<y>"}},
			Metadata: a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "s&1"}}, "n": 1.5}}},
		{"every member of a message", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleAgent, TaskID: "t-1", ContextID: "c<1>",
			ReferenceTaskIDs: []string{"t-0"}, Extensions: []string{"https://example.com/ext?a=1&b=2"},
			Parts: []a2a.Part{{Kind: a2a.PartKindFile, File: &a2a.FileContent{URI: "https://example.com/f?a&b", Name: "f<1>.txt", MimeType: "text/plain"}},
				{Kind: a2a.PartKindFile, File: &a2a.FileContent{Bytes: "aGk=", Name: "hi"}}, {Kind: a2a.PartKindText, Text: "t", MediaType: "text/markdown"}}}}},
		{"a configuration", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")}},
			Configuration: &a2a.MessageSendConfiguration{AcceptedOutputModes: []string{"text/<plain>"}, HistoryLength: &history, Blocking: &blocking,
				PushNotificationConfig: &a2a.PushNotificationConfig{URL: "https://example.com/hook?a&b", Token: "t<k>", Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}}}}}},
		{"an empty configuration", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")}}, Configuration: &a2a.MessageSendConfiguration{}}},
		{"a data part with space in it", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartKindData, Data: json.RawMessage(`{ "a" : [1, "<b>"] }`)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertFingerprintJSON(t, tt.p) })
	}
}

// fingerprintJSON writes json.Marshal's bytes whatever the text and
// metadata.
func FuzzFingerprintJSON(f *testing.F) {
	f.Add("hello", "k", "v", "ctx")
	f.Add("<a&b>\u2028\xff", "\x00", "é\"\\", "")
	f.Fuzz(func(t *testing.T, text, key, value, contextID string) {
		assertFingerprintJSON(t, a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, ContextID: contextID, Parts: []a2a.Part{a2a.TextPart(text)},
			Metadata: a2a.Metadata{key: value}}, Metadata: a2a.Metadata{key: []any{value, 1}}})
	})
}
