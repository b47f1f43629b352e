package a2a

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertReadAsDecoded checks that, where ReadMessageSendParams reads raw,
// it reads what DecodeMessageSendParams with json.Unmarshal reads, and
// returns whether it read raw.
func assertReadAsDecoded(t *testing.T, raw string) bool {
	t.Helper()
	got, ok := ReadMessageSendParams(json.RawMessage(raw))
	want, err := DecodeMessageSendParams(json.RawMessage(raw), func(b json.RawMessage, v any) error { return json.Unmarshal(b, v) })
	if !ok {
		return false
	}
	require.NoError(t, err, "read what encoding/json refuses: %s", raw)
	assert.Equal(t, want, got, raw)
	return true
}

var sendParamsSeeds = []string{
	`{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`,
	`{"message":{"kind":"message","role":"user","messageId":"m-1","taskId":"t","contextId":"c","referenceTaskIds":["t-0"],"extensions":["https://e"],` +
		`"parts":[{"kind":"file","file":{"bytes":"aGk=","name":"a"}},{"kind":"data","data":{ "n" : 1e400 },"metadata":{"k":1}},{"text":"x","mediaType":"text/markdown","filename":"f.md"}],` +
		`"metadata":{"shared":{"session":{"id":"s"}}}},"configuration":{"blocking":true,"historyLength":2,"acceptedOutputModes":["text/plain"],` +
		`"pushNotificationConfig":{"url":"https://h","token":"t","authentication":{"schemes":["Bearer"]}}},"metadata":{"shared":{"model":{"providerID":"p","modelID":"m"}}}}`,
	`{"message":{"role":"user","messageId":"m","parts":[{"text":"no kind"},{"file":{"uri":"https://x"}},{"data":{}}]}}`,
	` { "message" : { "role" : "user" , "parts" : [ null , { "kind" : "data" , "data" : null } ] } } `,
	`{"message":{"parts":[{"kind":"file","file":null}],"kind":null,"metadata":null},"configuration":null,"metadata":null}`,
	`{"message":{"metadata":{"a":12345678901234567890123}},"configuration":{"historyLength":null,"blocking":null,"acceptedOutputModes":[]}}`,
	`{"message":{"role":"user","parts":[{"kind":"text","text":"\u00e9\n\"q\" \ud83d\ude00 <&>"}]},"extra":{"x":[1,2]}}`,
	`{"message":null}`,
	`{}`,
}

func TestReadMessageSendParams(t *testing.T) {
	for _, raw := range sendParamsSeeds {
		assert.True(t, assertReadAsDecoded(t, raw), "read without encoding/json: %s", raw)
	}
	// Read by DecodeMessageSendParams: what encoding/json reads otherwise
	// than plainly, or refuses.
	for _, raw := range []string{
		`{"Message":{"role":"user"}}`, `{"message":{"MessageId":"m"}}`, `{"message":{"parts":[{"Text":"x"}]}}`,
		`{"message":{"messageI\u0064":"m"}}`, `{"message":{"parts":[],"parts":[]}}`,
		`{"message":{"role":1}}`, `{"message":{"parts":{}}}`, `{"message":{"parts":["x"]}}`, `{"message":[]}`,
		`{"message":{"kind":"task"}}`, `{"configuration":{"historyLength":1.5}}`, `{"configuration":{"blocking":"yes"}}`,
		`{"configuration":[]}`, `{"metadata":[]}`, `{"message":{"parts":[{"file":"x"}]}}`,
		`[]`, `null`, ``, `{"message":{}`, `{"message":{}} x`, `{"message":{"role":"user",}}`,
		`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		assert.False(t, assertReadAsDecoded(t, raw), "left to encoding/json: %s", raw)
	}
}

// Whatever the params, ReadMessageSendParams reads only what
// DecodeMessageSendParams with json.Unmarshal reads, and reads it alike.
func FuzzReadMessageSendParams(f *testing.F) {
	for _, s := range sendParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertReadAsDecoded(t, string(raw))
	})
}

func BenchmarkReadMessageSendParams(b *testing.B) {
	raw := json.RawMessage(`{"message":{"role":"user","messageId":"0190f5c2-7d4e-7a1b-9c3d-0a1b2c3d4e5f","parts":[{"kind":"text","text":"hello there, how are you?"}]},"configuration":{"blocking":true}}`)
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := ReadMessageSendParams(raw); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeMessageSendParams(raw, func(b json.RawMessage, v any) error { return json.Unmarshal(b, v) }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// assertTaskQueryRead checks that, where ReadTaskQueryParams reads raw,
// json.Unmarshal reads the same params, and returns whether it read raw.
func assertTaskQueryRead(t *testing.T, raw string) bool {
	t.Helper()
	got, ok := ReadTaskQueryParams(json.RawMessage(raw))
	if !ok {
		return false
	}
	var want TaskQueryParams
	require.NoError(t, json.Unmarshal([]byte(raw), &want), "read what encoding/json refuses: %s", raw)
	assert.Equal(t, want, got, raw)
	return true
}

var taskQuerySeeds = []string{
	`{"id":"0190f5c2-7d4e-7a1b-9c3d-0a1b2c3d4e5f"}`,
	`{"id":"t","historyLength":3,"metadata":{"k":[1,"x"]}}`,
	` { "id" : "t\u00e9\n" , "historyLength" : null , "metadata" : null , "extra" : { "x" : [ 1 ] } } `,
	`{"id":"a","id":"b","historyLength":1,"historyLength":-2}`,
	`{"id":null,"metadata":{"a":1},"metadata":{"b":2}}`, // null leaves a string be; metadata merges
	`{}`,
}

func TestReadTaskQueryParams(t *testing.T) {
	for _, raw := range taskQuerySeeds {
		assert.True(t, assertTaskQueryRead(t, raw), "read without encoding/json: %s", raw)
	}
	// Read by encoding/json: what it reads otherwise than plainly, or refuses.
	for _, raw := range []string{
		`{"ID":"t"}`, `{"i\u0064":"t"}`, `{"HistoryLength":1}`, `{"id":1}`, `{"historyLength":1.5}`,
		`{"historyLength":"1"}`, `{"metadata":[]}`,
		`[]`, `null`, ``, `{"id":"t"`, `{"id":"t"} x`, `{"id":"t",}`,
		`{"x":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		assert.False(t, assertTaskQueryRead(t, raw), "left to encoding/json: %s", raw)
	}
}

// Whatever the params, ReadTaskQueryParams reads only what json.Unmarshal
// reads, and reads it alike.
func FuzzReadTaskQueryParams(f *testing.F) {
	for _, s := range taskQuerySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertTaskQueryRead(t, string(raw))
	})
}
