package boot_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// summaries returns the "invocation" lines of a JSON log.
func summaries(t *testing.T, logs *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(logs.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if m["msg"] == "invocation" {
			out = append(out, m)
		}
	}
	return out
}

// Instrument gives every kind of handler a function builds the same
// invocation telemetry: an HTTP API function's summary names its route
// and status, an event function's (a typed handler, invoked with its JSON
// payload as Lambda does) its request id and cold start once.
func TestInstrumentEveryHandler(t *testing.T) {
	var logs bytes.Buffer
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), clocktest.WithTick(time.Millisecond))
	tel := telemetry.NewFunction("unit", boot.NewLogger(&logs, slog.LevelInfo), nil, clk)
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1"})

	httpFn := boot.HTTPFunc(func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 202}, nil
	})
	ev, err := json.Marshal(events.APIGatewayV2HTTPRequest{RouteKey: "POST /", RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "api-1"}})
	require.NoError(t, err)
	out, err := boot.Instrument(tel, httpFn).Invoke(ctx, ev)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"statusCode":202`)

	type job struct{ TaskID string }
	eventFn := func(_ context.Context, j job) (string, error) { return "did " + j.TaskID, nil }
	out, err = boot.Instrument(tel, eventFn).Invoke(ctx, []byte(`{"TaskID":"t-1"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `"did t-1"`, string(out))

	lines := summaries(t, &logs)
	require.Len(t, lines, 2)
	assert.Equal(t, "POST /", lines[0]["route"])
	assert.EqualValues(t, 202, lines[0]["status"])
	assert.Equal(t, "api-1", lines[0]["apigw_request_id"])
	assert.Equal(t, true, lines[0]["cold_start"])
	assert.Equal(t, false, lines[1]["cold_start"])
	for _, l := range lines {
		assert.Equal(t, "unit", l["function"])
		assert.Equal(t, "req-1", l["aws_request_id"])
		assert.Positive(t, l["duration_ms"], "the duration comes from the clock")
	}
}
