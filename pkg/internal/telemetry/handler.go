package telemetry

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

// Redacted replaces a secret in a log line.
const Redacted = "[REDACTED]"

// secretKeys are parts of attribute names whose values are never logged.
var secretKeys = []string{"token", "authorization", "password", "secret", "apikey", "api_key", "signing_key", "private_key", "credential"}

// Handler adds the fields of the invocation to every record and redacts
// secrets: the values of attributes whose names look secret (token,
// authorization, password, secret, api key, signing or private key,
// credential), the secret values it was given, and bearer credentials,
// PEM private keys and sk-... API keys anywhere in a message or a string.
type Handler struct {
	next    slog.Handler
	secrets []string
	// withKeys are the keys WithAttrs gave at the level the record's
	// attributes land on (since the last WithGroup): like the record's own
	// attributes, they take precedence over the invocation's fields, so
	// that a line never carries a key twice.
	withKeys []string
}

// NewHandler wraps next; secrets are values never to print (the configured
// bearer tokens, LLM keys, signing keys); empty ones are ignored.
func NewHandler(next slog.Handler, secrets ...string) *Handler {
	h := &Handler{next: next}
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) >= 4 {
			h.secrets = append(h.secrets, s)
		}
	}
	return h
}

// Enabled reports whether next handles level.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the invocation's fields and redacts r before next sees it.
// The attributes are gathered in pooled buffers and handed to next at
// once: to the JSON handler of NewLogger as they are, to any other handler
// in a new record. Not on the stack: a summary line is the deepest point of
// a request, and buffers there (1.6 KB) made a connection's goroutine
// outgrow its first 8 KB of stack at every request after the collector had
// shrunk it back (copying the stack cost a get 0.5 µs).
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	sc := attrScratches.Get().(*attrScratch)
	defer sc.put()
	attrs := invocationAttrs(ctx, sc.attrs[:0])
	own := len(attrs)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, h.redact(a))
		return true
	})
	return h.finish(ctx, sc, attrs, own, r.Time, r.Level, r.Message, r.PC)
}

// handleParts is Handle for a record of time t, level and msg whose
// attributes are those of parts, in order: the summary line's, which are
// gathered here instead of in a record first.
func (h *Handler) handleParts(ctx context.Context, t time.Time, level slog.Level, msg string, parts ...[]slog.Attr) error {
	if j, ok := h.next.(*jsonHandler); ok {
		if written, err := h.writeParts(ctx, j, t, level, msg, parts); written {
			return err
		}
	}
	sc := attrScratches.Get().(*attrScratch)
	defer sc.put()
	attrs := invocationAttrs(ctx, sc.attrs[:0])
	own := len(attrs)
	for _, part := range parts {
		for _, a := range part {
			attrs = append(attrs, h.redact(a))
		}
	}
	return h.finish(ctx, sc, attrs, own, t, level, msg, 0)
}

// writeParts writes handleParts' line with j, each attribute redacted as
// it is appended instead of gathered and copied first (every request's
// summary line goes this way), and reports false, having written nothing,
// for a line j leaves to slog.JSONHandler: handleParts then writes it the
// way Handle does, which hands it over.
func (h *Handler) writeParts(ctx context.Context, j *jsonHandler, t time.Time, level slog.Level, msg string, parts [][]slog.Attr) (bool, error) {
	buf := lineBuffers.Get()
	b, ok := appendHead(append(*buf, '{'), t, level, h.redactString(msg), j.attrs)
	var room [2]slog.Attr
	if ok {
		b, ok = h.appendAll(b, invocationAttrs(ctx, room[:0]))
	}
	for _, part := range parts {
		if ok {
			b, ok = h.appendAll(b, part)
		}
	}
	if ok {
		logfields.EachField(ctx, func(a slog.Attr) bool {
			if h.bagShows(a.Key, parts...) {
				b, ok = h.appendRedacted(b, a)
			}
			return ok
		})
	}
	var err error
	if ok {
		_, err = j.out.Write(append(b, '}', '\n'))
	}
	lineBuffers.Put(buf, b)
	return ok, err
}

// appendAll appends attrs with appendRedacted, and false at the first
// one slog.JSONHandler must write.
func (h *Handler) appendAll(b []byte, attrs []slog.Attr) ([]byte, bool) {
	ok := true
	for i := 0; ok && i < len(attrs); i++ {
		b, ok = h.appendRedacted(b, attrs[i])
	}
	return b, ok
}

// appendRedacted appends a as redact leaves it, without building the
// redacted attribute when its value is a string or a number.
func (h *Handler) appendRedacted(b []byte, a slog.Attr) ([]byte, bool) {
	switch a.Value.Kind() {
	case slog.KindString:
		if !secretKey(a.Key) {
			return appendAttr(b, slog.String(a.Key, h.redactString(a.Value.String())), false)
		}
	case slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration, slog.KindTime:
		if !secretKey(a.Key) {
			return appendAttr(b, a, false)
		}
	}
	return appendAttr(b, h.redact(a), false)
}

// bagShows reports whether a line shows the field bag's attribute named
// key: not when the record's own attributes (own) or WithAttrs name it.
func (h *Handler) bagShows(key string, own ...[]slog.Attr) bool {
	for _, part := range own {
		if hasKey(part, key) {
			return false
		}
	}
	return !slices.Contains(h.withKeys, key)
}

// invocationAttrs appends the attributes of the Lambda invocation and
// the trace in ctx.
func invocationAttrs(ctx context.Context, attrs []slog.Attr) []slog.Attr {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		attrs = append(attrs, slog.String(logfields.FieldLambdaRequestID, lc.AwsRequestID))
	}
	if tid := traceID(ctx); tid != "" {
		attrs = append(attrs, slog.String(logfields.FieldTraceID, tid))
	}
	return attrs
}

// finish adds the field bag's attributes to attrs (those of the record
// from own on), those the record and WithAttrs do not name, and hands the
// line to next.
func (h *Handler) finish(ctx context.Context, sc *attrScratch, attrs []slog.Attr, own int, t time.Time, level slog.Level, msg string, pc uintptr) error {
	ownAttrs := attrs[own:]
	logfields.EachField(ctx, func(a slog.Attr) bool {
		if h.bagShows(a.Key, ownAttrs) {
			attrs = append(attrs, h.redact(a))
		}
		return true
	})
	sc.attrs = attrs
	msg = h.redactString(msg)
	if j, ok := h.next.(*jsonHandler); ok {
		return j.write(ctx, t, level, msg, pc, attrs)
	}
	return handleRecord(ctx, h.next, t, level, msg, pc, attrs)
}

// handleRecord hands next a record made of its parts, the attributes of
// attrs in order. A function of its own: the record takes room in the
// frame that builds it, at the deepest point of every request, for
// handlers the usual line does not reach.
func handleRecord(ctx context.Context, next slog.Handler, t time.Time, level slog.Level, msg string, pc uintptr, attrs ...[]slog.Attr) error {
	out := slog.NewRecord(t, level, msg, pc)
	for _, part := range attrs {
		out.AddAttrs(part...)
	}
	return next.Handle(ctx, out)
}

// attrScratch is the room Handle gathers a record's attributes in.
type attrScratch struct{ attrs []slog.Attr }

var attrScratches = sync.Pool{New: func() any {
	return &attrScratch{attrs: make([]slog.Attr, 0, 24)}
}}

// put returns sc to the pool, holding no value of its line (a record's
// values stay reachable otherwise), unless a long line grew it.
func (sc *attrScratch) put() {
	if cap(sc.attrs) > 64 {
		return
	}
	clear(sc.attrs)
	attrScratches.Put(sc)
}

// hasKey reports whether attrs has one named key.
func hasKey(attrs []slog.Attr, key string) bool {
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// WithAttrs redacts attrs and hands them to next.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	keys := slices.Clip(h.withKeys)
	for i, a := range attrs {
		red[i] = h.redact(a)
		keys = append(keys, a.Key)
	}
	return &Handler{next: h.next.WithAttrs(red), secrets: h.secrets, withKeys: keys}
}

// WithGroup opens a group on next.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), secrets: h.secrets}
}

func secretKey(k string) bool {
	switch k {
	case "msg", "time", "level", "error", logfields.FieldFunction, logfields.FieldTaskID, logfields.FieldContextID, logfields.FieldMethod,
		"route", "status", logfields.FieldDurationMS, logfields.FieldColdStart, logfields.FieldCaller, logfields.FieldVersion,
		logfields.FieldAPIRequestID, logfields.FieldLambdaRequestID, logfields.FieldTraceID, logfields.FieldBlocking:
		return false
	}
	k = strings.ToLower(k)
	for _, s := range secretKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

func (h *Handler) redact(a slog.Attr) slog.Attr {
	if secretKey(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.redactString(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.redact(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.redactString(err.Error()))
		}
		// Structs, maps and slices are printed as JSON by the handler;
		// their text is checked the same way as a string's.
		return slog.Any(a.Key, redactedValue{h: h, v: v.Any()})
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h *Handler) redactString(s string) string {
	for _, sec := range h.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return redactSecretText(s)
}

// traceID returns the X-Ray trace header of the invocation in ctx (what
// Lambda passes with an active or pass-through trace), or "".
func traceID(ctx context.Context) string {
	s := logfields.TraceHeader(ctx)
	if s == "" {
		return ""
	}
	// Root=1-...;Parent=...;Sampled=1: the root names the trace.
	if root, _, _ := tracing.ParseHeader(s); root != "" {
		return root
	}
	return s
}
