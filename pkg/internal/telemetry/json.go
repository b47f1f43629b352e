package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// jsonHandler writes each record as one JSON line of the shape
// slog.JSONHandler writes (time, level, msg, then the attributes in order,
// groups as objects, empty attributes and groups left out), the record's
// time in UTC (as the tasks' timestamps are: the lines of every machine
// read alike, and none loads the machine's time zone to write), appended
// directly into a pooled buffer. slog.JSONHandler reaches each attribute
// through several indirections and encodes every float64 with
// encoding/json, which makes the summary line of a small request cost
// more than the request's own work. What this handler does not write
// itself (loggers with groups opened by WithGroup, values JSON cannot hold
// such as NaN, times outside years 0-9999, values that fail to marshal)
// goes to slog.JSONHandler over the same writer, so that those lines are
// exactly slog's (their time in UTC too).
type jsonHandler struct {
	out   *lineWriter
	level slog.Leveler
	// attrs are the WithAttrs attributes, encoded, each with its leading
	// comma.
	attrs []byte
	// std is slog.JSONHandler with the same attributes.
	std slog.Handler
}

// lineWriter serializes the lines of a handler and its derivatives (and
// of their slog.JSONHandler) on one writer.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func newJSONHandler(w io.Writer, level slog.Leveler) *jsonHandler {
	out := &lineWriter{w: w}
	return &jsonHandler{out: out, level: level, std: slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level, ReplaceAttr: timeInUTC})}
}

// timeInUTC has slog.JSONHandler write a line's time in UTC, as
// jsonHandler does.
func timeInUTC(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey && a.Value.Kind() == slog.KindTime {
		return slog.Time(slog.TimeKey, a.Value.Time().UTC())
	}
	return a
}

// lineBuffers are reused across lines; lines above 16 KiB are left to the
// garbage collector rather than kept.
var lineBuffers = jsonw.Buffers{Max: 16 << 10}

func (h *jsonHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

func (h *jsonHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	b := slices.Clip(h.attrs)
	for _, a := range attrs {
		var ok bool
		if b, ok = appendAttr(b, a, false); !ok {
			// An attribute only slog.JSONHandler writes: so it writes
			// every line of this logger.
			return h.std.WithAttrs(attrs)
		}
	}
	return &jsonHandler{out: h.out, level: h.level, attrs: b, std: h.std.WithAttrs(attrs)}
}

func (h *jsonHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.std.WithGroup(name)
}

func (h *jsonHandler) Handle(ctx context.Context, r slog.Record) error {
	var buf [16]slog.Attr
	attrs := buf[:0]
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	return h.write(ctx, r.Time, r.Level, r.Message, r.PC, attrs)
}

// write writes the line of a record made of its parts, so that Handler
// hands over the attributes it gathered without building a record.
func (h *jsonHandler) write(ctx context.Context, t time.Time, level slog.Level, msg string, pc uintptr, attrs []slog.Attr) error {
	buf := lineBuffers.Get()
	b, ok := appendLine(append(*buf, '{'), t, level, msg, h.attrs, attrs)
	defer lineBuffers.Put(buf, b)
	if !ok {
		return handleRecord(ctx, h.std, t, level, msg, pc, attrs)
	}
	_, err := h.out.Write(b)
	return err
}

// appendLine appends the rest of a line after its opening brace, or
// reports false when slog.JSONHandler must write it.
func appendLine(b []byte, t time.Time, level slog.Level, msg string, encoded []byte, attrs []slog.Attr) ([]byte, bool) {
	b, ok := appendHead(b, t, level, msg, encoded)
	for i := 0; ok && i < len(attrs); i++ {
		b, ok = appendAttr(b, attrs[i], false)
	}
	return append(b, '}', '\n'), ok
}

// appendHead appends what a line starts with after its opening brace: the
// time, level and message, and the WithAttrs attributes encoded; false
// when slog.JSONHandler must write the line.
func appendHead(b []byte, t time.Time, level slog.Level, msg string, encoded []byte) ([]byte, bool) {
	if !t.IsZero() {
		t = t.UTC()
		if y := t.Year(); y < 0 || y >= 10000 {
			return b, false
		}
		b = append(b, `"time":"`...)
		b = t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = jsonw.String(b, level.String())
	b = append(b, `,"msg":`...)
	b = jsonw.String(b, msg)
	return append(b, encoded...), true
}

// appendAttr appends a as "key":value, after a comma unless first, and
// reports false for a value it leaves to slog.JSONHandler.
func appendAttr(b []byte, a slog.Attr, first bool) ([]byte, bool) {
	v := a.Value
	if v.Kind() == slog.KindLogValuer { // Resolve defers a recover: not for every attribute
		v = v.Resolve()
	}
	if a.Key == "" && v.Kind() == slog.KindAny && v.Any() == nil {
		return b, true // an empty attribute
	}
	if v.Kind() == slog.KindGroup {
		return appendGroup(b, a.Key, v.Group(), first)
	}
	if !first {
		b = append(b, ',')
	}
	b = append(jsonw.String(b, a.Key), ':')
	switch v.Kind() {
	case slog.KindString:
		return jsonw.String(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return b, false
		}
		return jsonw.Float(b, f), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10), true
	case slog.KindTime:
		t := v.Time()
		if y := t.Year(); y < 0 || y >= 10000 {
			return b, false
		}
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"'), true
	}
	x := v.Any()
	if err, isErr := x.(error); isErr {
		if _, marshaler := x.(json.Marshaler); !marshaler {
			return jsonw.String(b, err.Error()), true
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return b, false
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), true
}

// appendGroup appends a group as "key":{...}, or its attributes in place
// when key is empty; a group with nothing to write is left out.
func appendGroup(b []byte, key string, attrs []slog.Attr, first bool) ([]byte, bool) {
	start := len(b)
	if key != "" {
		if !first {
			b = append(b, ',')
		}
		b = append(jsonw.String(b, key), ':', '{')
		first = true
	}
	members := len(b)
	for _, a := range attrs {
		var ok bool
		if b, ok = appendAttr(b, a, first && len(b) == members); !ok {
			return b, false
		}
	}
	if len(b) == members {
		return b[:start], true
	}
	if key != "" {
		b = append(b, '}')
	}
	return b, true
}
