package memory_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// BenchmarkEntryBytes measures what a finished one-step task takes in the
// heap (heap-B/task) against what the store counts for it
// (counted-B/task): the calibration of the store's entryBytes, for a
// small task ("hello") and one with 100 KB of text each way. The two
// should be close (measured: 2,166 counted and 2,190-2,200 in the heap for the
// small one; 207 KB and 216 KB for the large, whose strings the heap
// rounds up to whole pages).
func BenchmarkEntryBytes(b *testing.B) {
	for _, tc := range []struct{ size, n int }{{5, 2000}, {100 << 10, 200}} {
		b.Run(strconv.Itoa(tc.size), func(b *testing.B) {
			text, n := strings.Repeat("x", tc.size), tc.n
			for b.Loop() {
				ctx := context.Background()
				s := memory.New(memory.Options{MaxTasks: 2 * n, MaxBytes: 1 << 40})
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before := ms.HeapAlloc
				for i := range n {
					id := "task-" + strconv.Itoa(i) + "-0123456789abcdef0123456789ab"
					ctxID := "ctx-" + strconv.Itoa(i) + "-0123456789abcdef0123456789ab"
					ts := a2a.FormatTime(time.Now())
					m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + id, TaskID: id, ContextID: ctxID, Parts: []a2a.Part{a2a.TextPart(strings.Clone(text))}}
					if err := s.CreateTask(ctx, store.NewTask{Owner: "default", SessionID: "s-" + id, Task: a2a.Task{ID: id, ContextID: ctxID,
						History: []a2a.Message{m}, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: ts}}}); err != nil {
						b.Fatal(err)
					}
					done := a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: ts,
						Message: &a2a.Message{Role: a2a.RoleAgent, MessageID: "s-" + id, TaskID: id, ContextID: ctxID, Parts: []a2a.Part{a2a.TextPart("done")}}}
					if _, err := s.UpdateTask(ctx, store.Update{TaskID: id, Status: &done,
						Artifacts: []a2a.Artifact{{ArtifactID: "a-" + id, Name: "echo", Parts: []a2a.Part{a2a.TextPart(strings.Clone(text))}}}}); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapAlloc-before)/float64(n), "heap-B/task")
				b.ReportMetric(float64(s.Bytes())/float64(n), "counted-B/task")
				runtime.KeepAlive(s)
			}
		})
	}
}
