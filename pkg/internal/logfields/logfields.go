// Package logfields is the bag of fields one invocation's log lines share
// (API Gateway request id, task and context ids, method, protocol version,
// caller hash, cold start...), carried by the context: code anywhere below
// the function's entry adds to it with Add, and every later line (the
// summary line included) carries them (pkg/internal/telemetry's handler adds them).
// It imports nothing of AWS or HTTP, so pkg/internal/service may use it.
package logfields

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"sync"
)

// Field names every function uses.
const (
	FieldLambdaRequestID = "aws_request_id"
	FieldTraceID         = "trace_id"
	FieldAPIRequestID    = "apigw_request_id"
	FieldTaskID          = "task_id"
	FieldContextID       = "context_id"
	FieldMethod          = "method"
	FieldVersion         = "protocol_version"
	FieldCaller          = "caller"
	FieldColdStart       = "cold_start"
	FieldFunction        = "function"
	FieldDurationMS      = "duration_ms"
	// FieldBlocking is true on a send whose caller waits for the task to
	// settle: its latency is the agent's, not the service's.
	FieldBlocking = "blocking"
)

type bagKey struct{}

// bag is the fields of one invocation; later Adds of a key replace it.
type bag struct {
	mu    sync.Mutex
	attrs []slog.Attr
	// inline holds the fields of a usual invocation (function, cold
	// start, caller, version, method, task and context, a request id), so
	// that the bag is one allocation, not one per growth of attrs.
	inline [8]slog.Attr
}

// WithFields returns ctx with an empty field bag, unless it has one.
func WithFields(ctx context.Context) context.Context {
	if _, ok := ctx.Value(bagKey{}).(*bag); ok {
		return ctx
	}
	c := &bagContext{Context: ctx}
	c.bag.attrs = c.bag.inline[:0]
	return c
}

// bagContext is a context carrying a bag: one allocation for both (what
// context.WithValue and a separate bag would take two for, on every
// request).
type bagContext struct {
	context.Context
	bag bag
}

func (c *bagContext) Value(key any) any {
	if key == (bagKey{}) {
		return &c.bag
	}
	return c.Context.Value(key)
}

// Add sets fields (key, value pairs) on the bag of ctx, replacing earlier
// values of the same keys; empty string values are skipped. Without a bag
// it does nothing.
func Add(ctx context.Context, args ...any) {
	b, ok := ctx.Value(bagKey{}).(*bag)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := 0; i+1 < len(args); i += 2 {
		k, _ := args[i].(string)
		b.set(slog.Any(k, args[i+1]))
	}
}

// AddAttrs sets fields on the bag of ctx as Add does, without boxing their
// values into interfaces (slog.String and the like allocate nothing).
func AddAttrs(ctx context.Context, attrs ...slog.Attr) {
	b, ok := ctx.Value(bagKey{}).(*bag)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range attrs {
		b.set(a)
	}
}

// set sets one field, unless its key or its string value is empty. Callers
// hold b.mu.
func (b *bag) set(a slog.Attr) {
	if a.Key == "" || (a.Value.Kind() == slog.KindString && a.Value.String() == "") {
		return
	}
	for j := range b.attrs {
		if b.attrs[j].Key == a.Key {
			b.attrs[j] = a
			return
		}
	}
	b.attrs = append(b.attrs, a)
}

// Get returns the value of field key in the bag of ctx, or "".
func Get(ctx context.Context, key string) string {
	b, ok := ctx.Value(bagKey{}).(*bag)
	if !ok {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.attrs {
		if a.Key == key {
			return a.Value.String()
		}
	}
	return ""
}

// HasFields reports whether ctx carries a field bag (WithFields).
func HasFields(ctx context.Context) bool {
	_, ok := ctx.Value(bagKey{}).(*bag)
	return ok
}

// EachField calls fn with each field of ctx, in order, until fn returns
// false, without copying them: fn runs under the bag's lock, so it must
// not call this package with ctx.
func EachField(ctx context.Context, fn func(slog.Attr) bool) {
	b, ok := ctx.Value(bagKey{}).(*bag)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.attrs {
		if !fn(a) {
			return
		}
	}
}

// CallerHash names a caller in logs without revealing it: the first 16 hex
// digits of the SHA-256 of the owner name (the owner is already a name
// derived from the credential, never the token itself).
func CallerHash(owner string) string {
	if owner == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("a2a-caller\x00" + owner))
	return hex.EncodeToString(sum[:8])
}

// AddTask sets the task and context id fields.
func AddTask(ctx context.Context, taskID, contextID string) {
	b, ok := ctx.Value(bagKey{}).(*bag)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.set(slog.String(FieldTaskID, taskID))
	b.set(slog.String(FieldContextID, contextID))
}

// TraceHeader returns the X-Ray trace header of the invocation in ctx, as
// aws-lambda-go passes it (Root=...;Parent=...;Sampled=...), or "". The
// runners hand it on (Step Functions' TraceHeader, SQS's AWSTraceHeader)
// so that one trace follows a task across functions.
func TraceHeader(ctx context.Context) string {
	s, _ := ctx.Value("x-amzn-trace-id").(string) //nolint:staticcheck // aws-lambda-go's own string key
	return s
}

// WithTraceHeader returns ctx running under the X-Ray trace header h
// instead of the invocation's: work an invocation does for another trace
// (a queued job, a stream record's task). TraceHeader(ctx) is then h.
func WithTraceHeader(ctx context.Context, h string) context.Context {
	return context.WithValue(ctx, "x-amzn-trace-id", h) //nolint:staticcheck // aws-lambda-go's own string key
}
