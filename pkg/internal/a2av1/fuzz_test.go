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

// FuzzDecodeStreamResponse checks that reading a StreamResponse (a push
// notification body, the CLI's webhook) or a server's answer never panics,
// and that what it reads writes as valid JSON that reads back the same.
func FuzzDecodeStreamResponse(f *testing.F) {
	for _, s := range []string{
		`{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a","mediaType":"text/plain","filename":"a.txt"}]}},"artifacts":[{"artifactId":"a","parts":[{"raw":"aGk"},{"url":"x"},{"data":[1]},{}]}]}}`,
		`{"message":{"messageId":"m","role":"ROLE_NOPE","parts":[{"data":null}]}}`,
		`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"n":1e400}}}`,
		`{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"lastChunk":true}}`,
		`{}`, `null`, `[]`, `{"task":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := DecodeStreamResponse(body)
		if err != nil {
			return
		}
		b, err := AppendStreamResponse(nil, &ev)
		if err != nil {
			return // e.g. a data part holding invalid JSON is refused, not written
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %s", b)
		}
		back, err := DecodeStreamResponse(b)
		if err != nil {
			t.Fatalf("the encoded response does not decode: %v\n%s", err, b)
		}
		b2, err := AppendStreamResponse(nil, &back)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("round trip changed the response:\n%s\n%s", b, b2)
		}
	})
}
