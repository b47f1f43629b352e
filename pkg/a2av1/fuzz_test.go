package a2av1

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// FuzzDecodeSendMessageRequest checks that decoding SendMessage params never
// panics, fails only with -32602, and that what it accepts is valid for the
// service, encodes in its 1.0 form and decodes again to the same message.
func FuzzDecodeSendMessageRequest(f *testing.F) {
	for _, s := range []string{
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","taskId":"t","contextId":"c","parts":[{"raw":"aGk","filename":"a","mediaType":"text/plain"},{"url":"https://x/y"},{"data":{"n":1e400}}],"metadata":{"shared":{"model":{"providerID":"p","modelID":"m"}}}},"configuration":{"returnImmediately":true,"historyLength":2,"acceptedOutputModes":["text/plain"],"taskPushNotificationConfig":{"url":"https://h","authentication":{"scheme":"Bearer"}}}}`,
		`{"message":{"messageId":"m","role":"user","parts":[{"text":"legacy role"}]}}`,
		`{"message":{"role":"ROLE_USER","parts":[{"text":"a","data":{}}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":null,"text":"x"}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"url":""}]}}`,
		`{"message":null}`, `[]`, `null`, `{"message":{"parts":[{"raw":"@@"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodeSendMessageRequest(body)
		if err == nil {
			err = p.Validate()
		}
		if err != nil {
			var ae *a2a.Error
			if !errors.As(err, &ae) || ae.Code != a2a.CodeInvalidParams {
				t.Fatalf("decoding failed with %v, want -32602", err)
			}
			return
		}
		b, err := AppendMessage(nil, &p.Message)
		if err != nil {
			t.Fatalf("an accepted message does not encode: %v", err)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %s", b)
		}
		back, err := DecodeSendMessageRequest(append(append([]byte(`{"message":`), b...), '}'))
		if err != nil {
			t.Fatalf("the encoded message does not decode: %v\n%s", err, b)
		}
		b2, err := AppendMessage(nil, &back.Message)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("round trip changed the message:\n%s\n%s", b, b2)
		}
	})
}

// FuzzDecodeListTasksRequest checks that ListTasks params decode or fail
// with -32602, and never panic.
func FuzzDecodeListTasksRequest(f *testing.F) {
	for _, s := range []string{`{}`, `{"status":"TASK_STATE_WORKING","pageSize":5,"pageToken":"x","statusTimestampAfter":"2026-01-01T00:00:00Z","includeArtifacts":true}`, `{"pageSize":"x"}`, `{"status":"nope"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodeListTasksRequest(body)
		if err == nil {
			err = p.Validate()
		}
		var ae *a2a.Error
		if err != nil && (!errors.As(err, &ae) || ae.Code != a2a.CodeInvalidParams) {
			t.Fatalf("decoding failed with %v, want -32602", err)
		}
	})
}
