// Package tracing records spans (X-Ray subsegments) inside the trace of
// the current Lambda invocation: around each agent step, each AWS call
// (awstrace.Middleware) and each webhook POST (Transport). The trace comes from
// the invocation's X-Ray header (pkg/internal/logfields.TraceHeader),
// which the runners hand on, so a task's send, its execution's worker
// steps and their calls share one trace id.
//
// A nil *Tracer, or a context without one, records nothing and allocates
// nothing: tracing off costs a context lookup per span. Exporters: Memory
// (tests) and XRayDaemon (the UDP daemon Lambda runs when Tracing is
// Active).
package tracing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
)

// Span is one finished span.
type Span struct {
	TraceID, ID, ParentID string
	Name                  string
	// Namespace is "aws" for AWS calls, "remote" for other HTTP calls, ""
	// for local work.
	Namespace  string
	Start, End time.Time
	// Error is the error the span ended with, or "".
	Error string
	// Operation is the AWS operation or the HTTP method; Status the HTTP
	// status code, when known.
	Operation string
	Status    int
}

// Exporter receives finished spans. It must be safe for concurrent use
// and must not block.
type Exporter interface{ Export(Span) }

// Tracer makes spans and hands them to its exporter.
type Tracer struct {
	exp   Exporter
	clock clock.Clock
}

// New returns a tracer exporting to exp (nil: a nil tracer, which records
// nothing).
func New(exp Exporter, clk clock.Clock) *Tracer {
	if exp == nil {
		return nil
	}
	return &Tracer{exp: exp, clock: clock.Or(clk)}
}

type tracerKey struct{}
type spanKey struct{}

// NewContext returns ctx carrying t.
func NewContext(ctx context.Context, t *Tracer) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, tracerKey{}, t)
}

// Active is a span being recorded.
type Active struct {
	t    *Tracer
	span Span
}

// Start starts a span named name under the span of ctx, or under the
// invocation's trace header. Without a tracer, or outside a sampled trace,
// it returns ctx and nil; End on nil does nothing.
func Start(ctx context.Context, name, namespace string) (context.Context, *Active) {
	t, _ := ctx.Value(tracerKey{}).(*Tracer)
	if t == nil {
		return ctx, nil
	}
	var traceID, parent string
	if p, ok := ctx.Value(spanKey{}).(*Active); ok {
		traceID, parent = p.span.TraceID, p.span.ID
	} else {
		var sampled bool
		traceID, parent, sampled = ParseHeader(logfields.TraceHeader(ctx))
		if traceID == "" || !sampled {
			return ctx, nil
		}
	}
	a := &Active{t: t, span: Span{TraceID: traceID, ID: newID(), ParentID: parent, Name: name, Namespace: namespace, Start: t.clock.Now()}}
	return context.WithValue(ctx, spanKey{}, a), a
}

// SetOperation records the AWS operation or HTTP method of the span.
func (a *Active) SetOperation(op string) {
	if a != nil {
		a.span.Operation = op
	}
}

// SetStatus records the HTTP status of the span.
func (a *Active) SetStatus(code int) {
	if a != nil {
		a.span.Status = code
	}
}

// End finishes the span with err and exports it.
func (a *Active) End(err error) {
	if a == nil {
		return
	}
	a.span.End = a.t.clock.Now()
	if err != nil {
		a.span.Error = err.Error()
	}
	a.t.exp.Export(a.span)
}

// maxHeader bounds a trace header handed on (Step Functions takes 256
// characters; a longer one is not X-Ray's).
const maxHeader = 256

// Header returns the X-Ray trace header that work continuing ctx's trace
// elsewhere carries (a task item, a queued job): the header ctx runs under
// (logfields.TraceHeader), or "" outside a trace or when it is too long.
func Header(ctx context.Context) string {
	h := logfields.TraceHeader(ctx)
	if len(h) > maxHeader {
		return ""
	}
	return h
}

// WithHeader returns ctx running under trace header h: the spans started
// from it (outside another span), the headers handed on and the log lines'
// trace id are h's. An empty h leaves ctx as it is.
func WithHeader(ctx context.Context, h string) context.Context {
	if h == "" {
		return ctx
	}
	return logfields.WithTraceHeader(ctx, h)
}

// ParseHeader reads an X-Ray trace header: Root=...;Parent=...;Sampled=1.
func ParseHeader(h string) (traceID, parent string, sampled bool) {
	for part := range strings.SplitSeq(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Root":
			traceID = v
		case "Parent":
			parent = v
		case "Sampled":
			sampled = v == "1"
		}
	}
	return traceID, parent, sampled
}

// newID is a random 64-bit id in 16 hex digits, as X-Ray's.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Memory keeps spans in memory, for tests.
type Memory struct {
	mu    sync.Mutex
	spans []Span
}

// Export keeps s.
func (m *Memory) Export(s Span) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spans = append(m.spans, s)
}

// Spans returns the spans exported so far.
func (m *Memory) Spans() []Span {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Span(nil), m.spans...)
}
