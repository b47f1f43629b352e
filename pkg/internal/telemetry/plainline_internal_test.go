package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// plainFunction is a function named name whose lines go to out through
// the logger of NewLogger (with the handler's secrets and the logger's
// attributes with), at a clock stopped at when.
func plainFunction(out io.Writer, name string, when time.Time, secrets []string, with []any) *Function {
	log := slog.New(NewHandler(newJSONHandler(out, slog.LevelInfo), secrets...)).With(with...)
	return NewFunction(name, log, nil, clocktest.New(when))
}

// TestPlainLineIsTheGeneralLine: a plain path's line written from its
// parts encoded once is, byte for byte, the line endRequest writes for the
// same request: names and routes that need escaping or hold secrets,
// logger attributes, statuses, durations, the cold start and then not.
func TestPlainLineIsTheGeneralLine(t *testing.T) {
	when := time.Date(2026, 11, 28, 4, 50, 7, 123456789, time.UTC)
	for _, tc := range []struct {
		name, route string
		secrets     []string
		with        []any
	}{
		{name: "local", route: "GET /.well-known/agent-card.json"},
		{name: "local", route: "GET /.well-known/jwks.json", with: []any{"service", "a2a", "api_key", "k-123456"}},
		{name: "fn \"quoted\"\n<é>", route: "GET /odd\"path\\x\u2028"},
		{name: "Bearer abcdefghijkl-token", route: "GET /sk-abcdefghijklmnop", secrets: []string{"the-local-secret"}},
		{name: "has the-local-secret inside", route: "GET /the-local-secret", secrets: []string{"the-local-secret"}},
	} {
		for _, status := range []int{0, http.StatusOK, http.StatusNotModified, http.StatusNotFound} {
			for _, took := range []time.Duration{0, 85 * time.Microsecond, 12500 * time.Microsecond, 3 * time.Second} {
				t.Run(fmt.Sprintf("%s/%d/%s", tc.route, status, took), func(t *testing.T) {
					var general, plain bytes.Buffer
					fg := plainFunction(&general, tc.name, when, tc.secrets, tc.with)
					fp := plainFunction(&plain, tc.name, when, tc.secrets, tc.with)
					line := fp.plainLine(tc.route)
					require.NotNil(t, line)
					r := httptest.NewRequest(http.MethodGet, "/", nil)
					for range 2 { // the cold start, then a warm one
						fg.endRequest(r.Context(), when.Add(-took), r, tc.route, status, true)
						require.True(t, line.write(r.Context(), when.Add(-took), status))
					}
					require.NotEmpty(t, general.String())
					assert.Equal(t, general.String(), plain.String())
				})
			}
		}
	}
}

// A plain line goes the general way (write reports false, writes nothing
// and leaves the cold start) for what it does not write itself; with
// metrics on or another logger there is none; below Info it writes
// nothing and the next request is warm, as endRequest does.
func TestPlainLineFallsBack(t *testing.T) {
	when := time.Date(2026, 11, 28, 4, 50, 7, 0, time.UTC)
	route := "GET /.well-known/agent-card.json"
	ctxs := map[string]context.Context{
		"field bag": logfields.WithFields(context.Background()),
		"lambda":    lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1"}),
		"trace":     context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-abc-def;Sampled=1"), //nolint:staticcheck // aws-lambda-go's key
	}
	for name, ctx := range ctxs {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			f := plainFunction(&out, "local", when, nil, nil)
			assert.False(t, f.plainLine(route).write(ctx, when, http.StatusOK))
			assert.Empty(t, out.String())
			assert.False(t, f.warm.Load(), "the general way tells the cold start")
		})
	}
	t.Run("a time JSON's slog writes", func(t *testing.T) {
		var out bytes.Buffer
		f := plainFunction(&out, "local", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), nil, nil)
		assert.False(t, f.plainLine(route).write(context.Background(), when, http.StatusOK))
		assert.Empty(t, out.String())
		assert.False(t, f.warm.Load())
	})

	var out bytes.Buffer
	metered := plainFunction(&out, "local", when, nil, nil)
	metered.Metrics = metrics.New(metrics.Config{Namespace: "A2A", Out: io.Discard})
	assert.Nil(t, metered.plainLine(route), "metrics are written the general way")
	other := NewFunction("local", slog.New(slog.NewJSONHandler(&out, nil)), nil, clocktest.New(when))
	assert.Nil(t, other.plainLine(route), "another logger")
	var none *plainLine
	assert.False(t, none.write(context.Background(), when, http.StatusOK))

	quiet := NewFunction("local", NewLogger(&out, slog.LevelWarn), nil, clocktest.New(when))
	assert.True(t, quiet.plainLine(route).write(context.Background(), when, http.StatusOK))
	assert.Empty(t, out.String())
	assert.True(t, quiet.warm.Load(), "the request was the cold start, logged or not")
}
