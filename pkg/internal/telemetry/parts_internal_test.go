package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
)

// notJSON hides the JSON handler from the type assertion that picks the
// direct path, so that a line goes the way of any other handler's.
type notJSON struct{ slog.Handler }

// TestSummaryLineDirectPath: the summary line written straight from its
// parts is, byte for byte, the line the record of the same parts makes:
// the invocation's and the bag's fields, the parts' keys over the bag's,
// WithAttrs keys over both, every kind of value redacted alike, and what
// JSON cannot hold handed over to slog.JSONHandler.
func TestSummaryLineDirectPath(t *testing.T) {
	when := time.Date(2026, 11, 27, 18, 30, 1, 120000000, time.UTC)
	bag := func(ctx context.Context) context.Context {
		ctx = logfields.WithFields(ctx)
		logfields.AddAttrs(ctx, slog.String(logfields.FieldFunction, "local"), slog.Bool(logfields.FieldColdStart, false),
			slog.String(logfields.FieldCaller, "e3283c7280b2e5d9"), slog.String("route", "from the bag"), slog.String("session_token", "s3cr3t-value"),
			slog.String("note", "Authorization: Bearer abc.def"), slog.String("shared", "bag"))
		logfields.AddTask(ctx, "2eb51973-85e8-8c94-8774-41804b550374", "5a5e646e-f22f-42be-ad12-d0e895ac4141")
		return ctx
	}
	lambda := func(ctx context.Context) context.Context {
		ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "req-1"})
		return context.WithValue(ctx, "x-amzn-trace-id", "Root=1-abc-def;Parent=12;Sampled=1") //nolint:staticcheck // aws-lambda-go's key
	}
	summary := []slog.Attr{slog.String("route", "GET /rest/tasks/2eb51973"), slog.Int("status", 200)}
	for name, tc := range map[string]struct {
		ctx   func(context.Context) context.Context
		with  []slog.Attr
		level slog.Level
		msg   string
		parts [][]slog.Attr
	}{
		"plain path": {parts: [][]slog.Attr{summary, {slog.Float64(logfields.FieldDurationMS, 0.085)},
			{slog.String(logfields.FieldFunction, "local"), slog.Bool(logfields.FieldColdStart, true)}}},
		"field bag": {ctx: bag, parts: [][]slog.Attr{summary, {slog.Float64(logfields.FieldDurationMS, 12.5)}}},
		"lambda":    {ctx: func(ctx context.Context) context.Context { return lambda(bag(ctx)) }, parts: [][]slog.Attr{summary}},
		"with attrs": {ctx: bag, with: []slog.Attr{slog.String("shared", "with"), slog.String("api_key", "k-123456")},
			parts: [][]slog.Attr{summary}},
		"failure and secrets": {ctx: bag, level: slog.LevelError, msg: "invocation failed sk-abcdefghijkl",
			parts: [][]slog.Attr{{slog.String("route", "POST /bearer\tsecret-token/x"), slog.Int("status", 502)},
				{slog.String("error", "upstream said: Bearer zzz.yyy and the-configured-secret")},
				{slog.Any("err", errors.New("Bearer from-an-error")), slog.Group("g", slog.String("password", "p"), slog.String("s", "Bearer in-a-group")),
					slog.Any("struct", struct{ Text string }{"Bearer in-a-struct"}), slog.Any("lazy", lazy{"Bearer later"}), slog.Duration("took", time.Second),
					slog.Time("at", when), slog.Uint64("u", 7), slog.Any("nil", nil), {}, slog.String("", "no key")}}},
		"handed over": {ctx: bag, parts: [][]slog.Attr{summary, {slog.Float64(logfields.FieldDurationMS, math.NaN())}}},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			if tc.ctx != nil {
				ctx = tc.ctx(ctx)
			}
			msg := tc.msg
			if msg == "" {
				msg = "invocation"
			}
			line := func(direct bool) string {
				var buf bytes.Buffer
				var next slog.Handler = newJSONHandler(&buf, slog.LevelInfo)
				if !direct {
					next = notJSON{next}
				}
				h := NewHandler(next, "the-configured-secret")
				if tc.with != nil {
					h = h.WithAttrs(tc.with).(*Handler)
				}
				require.NoError(t, h.handleParts(ctx, when, tc.level, msg, tc.parts...))
				return buf.String()
			}
			direct := line(true)
			assert.Equal(t, line(false), direct)
			assert.NotContains(t, direct, "secret")
			assert.NotContains(t, direct, "zzz")
		})
	}
}
