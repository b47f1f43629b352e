package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/jsontest"
)

// tokens reads each line of out as its sequence of JSON tokens (keys,
// values and delimiters, strings decoded), so that two encodings of the
// same line compare equal whatever escapes each chose.
func tokens(t testing.TB, out []byte) [][]any {
	t.Helper()
	var lines [][]any
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		require.True(t, json.Valid(line), "not one JSON value: %s", line)
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var toks []any
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			toks = append(toks, tok)
		}
		lines = append(lines, toks)
	}
	return lines
}

// logBoth logs through jsonHandler and slog.JSONHandler and returns both
// outputs.
func logBoth(do func(*slog.Logger)) (ours, std []byte) {
	var a, b bytes.Buffer
	do(slog.New(newJSONHandler(&a, slog.LevelDebug)))
	do(slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})))
	return a.Bytes(), b.Bytes()
}

type point struct {
	X, Y int
	Name string `json:"name,omitempty"`
}

type marshalErr struct{}

func (marshalErr) Error() string                { return "the error text" }
func (marshalErr) MarshalJSON() ([]byte, error) { return []byte(`{"code":7}`), nil }

type lazy struct{ v any }

func (l lazy) LogValue() slog.Value { return slog.AnyValue(l.v) }

// The lines are slog.JSONHandler's: the same keys in the same order with
// the same values, for every kind of value, group and logger shape, and
// byte for byte where slog.JSONHandler writes them (the shapes this
// handler hands over).
func TestJSONHandlerWritesWhatSlogWrites(t *testing.T) {
	when := time.Date(2026, 11, 26, 23, 26, 5, 532445110, time.UTC)
	for name, do := range map[string]func(*slog.Logger){
		"summary line": func(l *slog.Logger) {
			l.Info("invocation", "route", "POST /", "status", 200, "duration_ms", 0.743, "function", "local", "cold_start", false, "caller", "e3283c7280b2e5d9")
		},
		"kinds": func(l *slog.Logger) {
			l.Debug("kinds", "i", -42, "u", uint64(math.MaxUint64), "f", 1e-7, "big", 1e21, "neg0", math.Copysign(0, -1), "b", true,
				"d", 1500*time.Millisecond, "t", when, "local", when.In(time.FixedZone("x", 3600)), "nil", nil, "bytes", []byte("hi"))
		},
		"composite values": func(l *slog.Logger) {
			l.Warn("any", "map", map[string]any{"b": 1, "a": []any{"x", 2.5}}, "struct", point{X: 1, Y: 2}, "ptr", &point{Name: "<p&q>"},
				"slice", []string{"a"}, "err", errors.New("boom \"quoted\""), "marshalErr", marshalErr{}, "lazy", lazy{"later"}, "lazyGroup", lazy{slog.GroupValue(slog.Int("n", 1))})
		},
		"groups": func(l *slog.Logger) {
			l.Error("groups", slog.Group("g", "a", 1, slog.Group("h", "b", 2)), slog.Group("empty"), slog.Group("", "inline", true),
				slog.Group("firstEmpty", slog.Attr{}, "c", 3), slog.Attr{}, "after", "x")
		},
		"levels and message": func(l *slog.Logger) {
			l.Log(t.Context(), slog.LevelInfo+2, "line\nbreak \u2028 \"q\" \x01 \xff <html>")
			l.Log(t.Context(), slog.LevelDebug-1, "below debug")
		},
		"with attrs": func(l *slog.Logger) {
			w := l.With("function", "card", slog.Group("g", "x", 1))
			w.Info("one", "a", 1)
			w.With("more", 2.5).Info("two")
		},
		"with a group": func(l *slog.Logger) {
			l.With("a", 1).WithGroup("g").With("b", 2).Info("grouped", "c", 3)
			l.WithGroup("empty").Info("nothing in the group")
			l.WithGroup("").Info("no group", "d", 4)
		},
	} {
		t.Run(name, func(t *testing.T) {
			ours, std := logBoth(do)
			assert.Equal(t, tokens(t, std), tokens(t, stripTimes(t, ours, std)), "ours:\n%s\nslog:\n%s", ours, std)
		})
	}
}

// What JSON cannot hold is written by slog.JSONHandler itself (its
// "!ERROR:" strings), byte for byte.
func TestJSONHandlerHandsOverWhatJSONCannotHold(t *testing.T) {
	ours, std := logBoth(func(l *slog.Logger) {
		l.Info("nan", "f", math.NaN(), "g", 1)
		l.Info("inf", slog.Group("g", "f", math.Inf(-1)))
		l.Info("year", "t", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
		l.Info("marshal fails", "ch", make(chan int))
		l.With("f", math.Inf(1)).Info("with nan", "a", 1)
	})
	assert.Equal(t, string(std), string(stripTimes(t, ours, std)))
	assert.Contains(t, string(ours), "!ERROR:")
}

// A group whose attributes are all empty is left out, and the line stays
// valid JSON (slog.JSONHandler 1.26 loses the comma after such a group).
func TestJSONHandlerEmptyGroup(t *testing.T) {
	var buf bytes.Buffer
	slog.New(newJSONHandler(&buf, slog.LevelInfo)).Info("m", "y", 0, slog.Group("onlyEmpty", slog.Attr{}), "x", 1)
	assert.True(t, json.Valid(buf.Bytes()), buf.String())
	assert.Contains(t, buf.String(), `"msg":"m","y":0,"x":1}`)
}

// stripTimes replaces the record times of ours by std's, line by line (the
// two loggers ran at different instants).
func stripTimes(t *testing.T, ours, std []byte) []byte {
	t.Helper()
	o, s := bytes.Split(ours, []byte("\n")), bytes.Split(std, []byte("\n"))
	require.Equal(t, len(s), len(o), "ours:\n%s\nslog:\n%s", ours, std)
	for i := range o {
		const prefix = `{"time":"`
		if !bytes.HasPrefix(o[i], []byte(prefix)) || !bytes.HasPrefix(s[i], []byte(prefix)) {
			continue
		}
		oe := bytes.IndexByte(o[i][len(prefix):], '"') + len(prefix)
		se := bytes.IndexByte(s[i][len(prefix):], '"') + len(prefix)
		o[i] = append(append([]byte(nil), s[i][:se]...), o[i][oe:]...)
	}
	return bytes.Join(o, []byte("\n"))
}

// A record without a time has no time key, as in slog.
func TestJSONHandlerZeroTime(t *testing.T) {
	var ours, std bytes.Buffer
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "timeless", 0)
	r.AddAttrs(slog.Int("n", 1))
	require.NoError(t, newJSONHandler(&ours, slog.LevelInfo).Handle(t.Context(), r))
	require.NoError(t, slog.NewJSONHandler(&std, nil).Handle(t.Context(), r))
	assert.Equal(t, std.String(), ours.String())
}

// A line's time is written in UTC, whatever the record's zone: the lines
// of every machine read alike, as the tasks' own timestamps do, and
// writing one never loads the machine's zone (a file read at start-up).
func TestJSONHandlerTimeInUTC(t *testing.T) {
	lisbon := time.FixedZone("WET+1", 3600)
	for _, tc := range []struct {
		name string
		at   time.Time
		want string
	}{
		{"another zone", time.Date(2026, 3, 29, 2, 30, 0, 5, lisbon), `"time":"2026-03-29T01:30:00.000000005Z"`},
		{"across a new year", time.Date(2027, 1, 1, 0, 30, 0, 0, lisbon), `"time":"2026-12-31T23:30:00Z"`},
		{"UTC", time.Date(2026, 3, 29, 2, 30, 0, 0, time.UTC), `"time":"2026-03-29T02:30:00Z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := newJSONHandler(&buf, slog.LevelInfo)
			require.NoError(t, h.Handle(t.Context(), slog.NewRecord(tc.at, slog.LevelInfo, "m", 0)))
			assert.Contains(t, buf.String(), tc.want)
			// The lines slog.JSONHandler writes for it: a grouped logger's,
			// and one with a value JSON cannot hold.
			grouped := slog.NewRecord(tc.at, slog.LevelInfo, "grouped", 0)
			grouped.AddAttrs(slog.Int("n", 1))
			require.NoError(t, h.WithGroup("g").Handle(t.Context(), grouped))
			nan := slog.NewRecord(tc.at, slog.LevelInfo, "nan", 0)
			nan.AddAttrs(slog.Float64("x", math.NaN()))
			require.NoError(t, h.Handle(t.Context(), nan))
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			require.Len(t, lines, 3)
			assert.Contains(t, lines[1], tc.want, "a grouped logger's line")
			assert.Contains(t, lines[2], tc.want, "a line slog writes")
		})
	}
}

func TestJSONHandlerLevel(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(newJSONHandler(&buf, slog.LevelWarn))
	l.Info("dropped")
	l.Warn("kept")
	assert.Equal(t, 1, strings.Count(buf.String(), "\n"))
	assert.Contains(t, buf.String(), `"msg":"kept"`)
}

// FuzzJSONHandler compares the lines of both handlers for any text in the
// message, keys and values, and any numbers.
func FuzzJSONHandler(f *testing.F) {
	for _, s := range jsontest.TrickyStrings() {
		f.Add(s, "key", s, 0.092, int64(-1))
	}
	f.Add("", "", "", math.NaN(), int64(0))
	f.Fuzz(func(t *testing.T, msg, key, val string, x float64, n int64) {
		ours, std := logBoth(func(l *slog.Logger) {
			l.With(key, val).Info(msg, key, x, "n", n, slog.Group(key, val, n), val, key)
		})
		assert.Equal(t, tokens(t, std), tokens(t, stripTimes(t, ours, std)), "ours:\n%s\nslog:\n%s", ours, std)
	})
}

func BenchmarkJSONHandler(b *testing.B) {
	for name, h := range map[string]slog.Handler{
		"ours": newJSONHandler(io.Discard, slog.LevelInfo),
		"slog": slog.NewJSONHandler(io.Discard, nil),
	} {
		b.Run(name, func(b *testing.B) {
			r := slog.NewRecord(time.Now(), slog.LevelInfo, "invocation", 0)
			r.AddAttrs(slog.String("route", "POST /"), slog.Int("status", 200), slog.Float64("duration_ms", 0.743), slog.String("function", "local"),
				slog.Bool("cold_start", false), slog.String("caller", "e3283c7280b2e5d9"), slog.String("protocol_version", "1.0"), slog.String("method", "SendMessage"),
				slog.String("task_id", "2eb51973-85e8-8c94-8774-41804b550374"), slog.String("context_id", "5a5e646e-f22f-42be-ad12-d0e895ac4141"))
			b.ReportAllocs()
			for b.Loop() {
				_ = h.Handle(b.Context(), r)
			}
		})
	}
}
