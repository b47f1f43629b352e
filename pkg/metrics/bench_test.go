package metrics_test

import (
	"io"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// The metrics of one invocation, as the send and tasks functions record
// them, from the first Add to the written lines: what metrics on adds to
// a request (BenchmarkTelemetry in pkg/internal/app measures the whole request).
func BenchmarkInvocationMetrics(b *testing.B) {
	s := metrics.New(metrics.Config{Dimensions: map[string]string{"Service": "bench"}, Out: io.Discard})
	b.Run("send", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Count(metrics.TasksCreated, metrics.DimAgent, "Echo Agent")
			s.Capacity("TransactWriteItems", 4, 0, 0)
			s.Add(metrics.StepDuration, metrics.UnitMilliseconds, 0.4, metrics.DimAgent, "Echo Agent")
			s.Capacity("UpdateItem", 1, 0, 0)
			s.Count(metrics.TasksCompleted, metrics.DimAgent, "Echo Agent")
			s.Capacity("Query", 1, 0, 0)
			s.Add(metrics.RequestLatency, metrics.UnitMilliseconds, 12.5, metrics.DimMethod, "message/send")
			_ = s.Flush()
		}
	})
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Capacity("Query", 1, 0, 0)
			s.Add(metrics.RequestLatency, metrics.UnitMilliseconds, 4.5, metrics.DimMethod, "tasks/get")
			_ = s.Flush()
		}
	})
}
