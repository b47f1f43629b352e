package notify_test

import (
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
)

// FuzzDecodeJob: a queue message of any content decodes to a job that
// re-encodes to an equal job, or is refused; it never panics.
func FuzzDecodeJob(f *testing.F) {
	for _, seed := range []string{
		`{"taskId":"t1","configId":"a","version":2}`,
		`{"taskId":"t1","configId":"a","version":2,"task":{"id":"t1","contextId":"c","status":{"state":"working"},"kind":"task"},"artifactIds":["x"]}`,
		`{"taskId":"t1","configId":"a","version":-1}`,
		`{"taskId":"t1","configId":"a","version":2,"task":{"id":"t2"}}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		j, err := notify.DecodeJob(body)
		if err != nil {
			return
		}
		if j.TaskID == "" || j.ConfigID == "" || j.Version <= 0 {
			t.Fatalf("accepted an incomplete job %+v", j)
		}
		b, err := j.Encode()
		if err != nil {
			t.Fatalf("a decoded job does not encode: %v", err)
		}
		back, err := notify.DecodeJob(b)
		if err != nil {
			t.Fatalf("a re-encoded job does not decode: %v", err)
		}
		if back.EventID() != j.EventID() || back.ConfigID != j.ConfigID {
			t.Fatalf("round trip changed the job: %+v -> %+v", j, back)
		}
	})
}
