package telemetry_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// discardWriter is a ResponseWriter that keeps nothing, so that the
// benchmark counts the telemetry's own work.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkMiddleware is the telemetry of one local request: the field bag,
// the fields an A2A route adds (caller, version, method, task), the summary
// line at the default level, and no metrics (the local default).
func BenchmarkMiddleware(b *testing.B) {
	tel := telemetry.NewFunction("local", telemetry.NewLogger(io.Discard, slog.LevelInfo), nil, nil)
	h := telemetry.Middleware(tel, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logfields.Add(r.Context(), logfields.FieldCaller, "e3283c7280b2e5d9", logfields.FieldVersion, "0.3", logfields.FieldMethod, "tasks/get")
		logfields.AddTask(r.Context(), "2eb51973-85e8-8c94-8774-41804b550374", "5a5e646e-f22f-42be-ad12-d0e895ac4141")
		w.Write([]byte("{}"))
	}))
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h) // each answer's header is new
		h.ServeHTTP(w, req)
	}
}

// BenchmarkMiddlewarePlain is the telemetry of a request for a plain path
// (the agent card): the summary line, no field bag.
func BenchmarkMiddlewarePlain(b *testing.B) {
	tel := telemetry.NewFunction("local", telemetry.NewLogger(io.Discard, slog.LevelInfo), nil, nil)
	h := telemetry.Middleware(tel, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{}"))
	}), "/.well-known/agent-card.json")
	req := httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h) // each answer's header is new
		h.ServeHTTP(w, req)
	}
}
