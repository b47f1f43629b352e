package a2a

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzMessageSendParams checks that decoding and validating message/send
// params never panics, that validation fails only with -32602, and that
// params it accepts survive a marshal/unmarshal round trip still valid.
func FuzzMessageSendParams(f *testing.F) {
	for _, s := range []string{
		`{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}`,
		`{"message":{"role":"user","messageId":"m","taskId":"t","contextId":"c","parts":[{"kind":"file","file":{"bytes":"aGk=","name":"a"}},{"kind":"data","data":{"n":1e400}}]},"configuration":{"blocking":true,"historyLength":2,"acceptedOutputModes":["text/plain"]},"metadata":{"shared":{"model":{"providerID":"p","modelID":"m"}}}}`,
		`{"message":{"role":"user","messageId":"m","parts":[{"text":"no kind"},{"file":{"uri":"https://x"}}]}}`,
		`{"message":{"kind":"task"}}`,
		`{"message":{"role":"user","messageId":"m","parts":[{"kind":"data","data":null}]}}`,
		`{"message":{"parts":[{"kind":"file","file":null}]}}`,
		`{"message":{"metadata":{"a":12345678901234567890123}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p MessageSendParams
		if json.Unmarshal(body, &p) != nil {
			return
		}
		err := p.Validate()
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != CodeInvalidParams {
				t.Fatalf("validation failed with %v, want -32602", err)
			}
			return
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("valid params do not marshal: %v", err)
		}
		var back MessageSendParams
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("marshalled params do not decode: %v\n%s", err, b)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("round-tripped params no longer valid: %v\n%s", err, b)
		}
	})
}

// FuzzDecodeEvent checks that reading a 0.3 event (a send result, a push
// notification body) never panics and that what it reads writes as JSON
// that reads back the same.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"working","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"a","mediaType":"text/plain"}]}}}`,
		`{"role":"user","messageId":"m","parts":[{"file":{"uri":"https://x"}},{"data":{"n":1}}]}`,
		`{"task":{"status":{}}}`, `{"message":{"role":"agent"}}`, `{"task":{"task":{"task":{}}}}`,
		`{"kind":"status-update","taskId":"t","status":{"state":"completed"},"final":true}`,
		`{"kind":"artifact-update","artifact":{"artifactId":"a","parts":[{"kind":"data","data":null}]}}`,
		`{"kind":"x"}`, `{}`, `null`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := DecodeEvent(body)
		if err != nil {
			return
		}
		var v any
		switch {
		case ev.Task != nil:
			v = ev.Task
		case ev.Message != nil:
			v = ev.Message
		case ev.StatusUpdate != nil:
			v = ev.StatusUpdate
		case ev.ArtifactUpdate != nil:
			v = ev.ArtifactUpdate
		default:
			t.Fatalf("no error and no event for %s", body)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return // e.g. a part of an unknown kind, which Validate refuses
		}
		back, err := DecodeEvent(b)
		if err != nil {
			t.Fatalf("the model's JSON does not read back: %v\n%s", err, b)
		}
		b2, err := json.Marshal(firstOf(back))
		if err != nil || string(b2) != string(b) {
			t.Fatalf("the event changed through the model's JSON:\n%s\n%s", b, b2)
		}
	})
}

func firstOf(ev Event) any {
	switch {
	case ev.Task != nil:
		return ev.Task
	case ev.Message != nil:
		return ev.Message
	case ev.StatusUpdate != nil:
		return ev.StatusUpdate
	}
	return ev.ArtifactUpdate
}
