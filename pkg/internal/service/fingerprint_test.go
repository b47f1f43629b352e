package service

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// assertFingerprintJSON checks appendFingerprintJSON against json.Marshal, byte
// for byte: the fingerprints of the sends kept in the store are digests of
// json.Marshal's bytes, and a retry must match its first send's.
func assertFingerprintJSON(t *testing.T, p a2a.MessageSendParams) {
	t.Helper()
	want, err := json.Marshal(&p)
	require.NoError(t, err)
	got, err := appendFingerprintJSON(nil, &p)
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
		{"a configuration without a push notification config", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")}},
			Configuration: &a2a.MessageSendConfiguration{AcceptedOutputModes: []string{"text/plain", "a<b>&c"}, HistoryLength: &history, Blocking: &blocking}}},
		{"a configuration that only blocks", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}, Metadata: a2a.Metadata{"k": "<v>"}}},
		{"an empty configuration", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")}}, Configuration: &a2a.MessageSendConfiguration{}}},
		{"a data part with space in it", a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartKindData, Data: json.RawMessage(`{ "a" : [1, "<b>"] }`)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assertFingerprintJSON(t, tt.p) })
	}
}

// appendFingerprintJSON writes json.Marshal's bytes whatever the text and
// metadata.
func FuzzFingerprintJSON(f *testing.F) {
	f.Add("hello", "k", "v", "ctx", "", -1)
	f.Add("<a&b>\u2028\xff", "\x00", "é\"\\", "", "text/<x>", 3)
	f.Fuzz(func(t *testing.T, text, key, value, contextID, mode string, history int) {
		p := a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, ContextID: contextID, Parts: []a2a.Part{a2a.TextPart(text)},
			Metadata: a2a.Metadata{key: value}}, Metadata: a2a.Metadata{key: []any{value, 1}}}
		if history >= 0 { // a configuration, with the mode when there is one
			blocking := history%2 == 0
			p.Configuration = &a2a.MessageSendConfiguration{HistoryLength: &history, Blocking: &blocking}
			if mode != "" {
				p.Configuration.AcceptedOutputModes = []string{mode}
			}
		}
		assertFingerprintJSON(t, p)
	})
}

func BenchmarkMessageFingerprint(b *testing.B) {
	p := a2a.MessageSendParams{Message: a2a.Message{Role: a2a.RoleUser, MessageID: "m-1", Parts: []a2a.Part{a2a.TextPart("hello, what is the weather like in Lisbon today?")}},
		Configuration: &a2a.MessageSendConfiguration{AcceptedOutputModes: []string{"text/plain"}}}
	b.ReportAllocs()
	for b.Loop() {
		if MessageFingerprint(&p) == "" {
			b.Fatal("no fingerprint")
		}
	}
}
