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
