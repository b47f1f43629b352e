package app_test

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// The cost of metrics: send and get through the telemetry of an
// invocation (fields, the summary line, and EMF lines or none), with
// metrics off and on. `make bench` reports both; docs/measured.md quotes them.
func BenchmarkTelemetry(b *testing.B) {
	for _, mode := range []string{"off", "emf"} {
		wrap := func(b *testing.B) http.Handler {
			var sink *metrics.Sink
			if mode == "emf" {
				sink = metrics.New(metrics.Config{Namespace: "A2A", Dimensions: map[string]string{"Service": "bench"}, Out: io.Discard})
			}
			tel := telemetry.NewFunction("bench", boot.NewLogger(io.Discard, slog.LevelInfo), sink, nil)
			return telemetry.Middleware(tel, newEchoServer(b))
		}
		b.Run("send/metrics="+mode, func(b *testing.B) {
			h := wrap(b)
			b.ReportAllocs()
			for b.Loop() {
				serve(b, h, "POST", "/", sendBody(true))
			}
		})
		b.Run("get/metrics="+mode, func(b *testing.B) {
			h := wrap(b)
			get := getBody(sentTaskID(serve(b, h, "POST", "/", sendBody(true))))
			b.ReportAllocs()
			for b.Loop() {
				serve(b, h, "POST", "/", get)
			}
		})
	}
}
