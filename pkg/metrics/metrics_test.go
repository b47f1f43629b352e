package metrics_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
)

func TestEMFShape(t *testing.T) {
	var buf bytes.Buffer
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	s := metrics.New(metrics.Config{Namespace: "A2A", Dimensions: map[string]string{"Service": "prod"}, Out: &buf, Clock: clk, Capacity: true})
	ctx := metrics.NewContext(context.Background(), s)
	metrics.TaskState(ctx, "echo", a2a.TaskStateCompleted)
	metrics.TaskState(ctx, "echo", a2a.TaskStateFailed)
	metrics.TaskState(ctx, "echo", a2a.TaskStateWorking) // not counted
	s.Capacity("GetItem", 0.5, 0, 0)
	s.Capacity("TransactWriteItems", 4, 0, 0)
	s.Capacity("Query", 3, 1, 2)
	for range 150 {
		s.Add(metrics.StepDuration, metrics.UnitMilliseconds, 2, metrics.DimAgent, "echo")
	}
	s.Count(metrics.Errors, metrics.DimCode, "-32001")
	s.Count(metrics.WebhookDelivered)
	require.NoError(t, s.Flush())
	ds := emftest.Documents(t, buf.Bytes())
	// echo (two lines: 150 step durations exceed EMF's 100 values), GetItem,
	// TransactWriteItems, Query, the error code, the dimensionless webhook.
	require.Len(t, ds, 7)
	for _, d := range ds {
		meta := d["_aws"].(map[string]any)
		assert.Equal(t, float64(clk.Now().UnixMilli()), meta["Timestamp"])
		dir := meta["CloudWatchMetrics"].([]any)[0].(map[string]any)
		assert.Equal(t, "A2A", dir["Namespace"])
		for _, set := range dir["Dimensions"].([]any) {
			for _, dn := range set.([]any) {
				assert.IsType(t, "", d[dn.(string)], "dimension %s has a string value", dn)
			}
		}
		for _, m := range dir["Metrics"].([]any) {
			md := m.(map[string]any)
			assert.Contains(t, d, md["Name"])
			assert.Contains(t, []any{"Count", "Milliseconds"}, md["Unit"])
			if vs, ok := d[md["Name"].(string)].([]any); ok {
				assert.LessOrEqual(t, len(vs), 100)
			}
		}
	}
	assert.Equal(t, 1.0, ds[0][metrics.TasksCompleted])
	assert.Equal(t, 1.0, ds[0][metrics.TasksFailed])
	assert.Len(t, ds[0][metrics.StepDuration], 100)
	assert.Len(t, ds[1][metrics.StepDuration], 50)
	assert.NotContains(t, ds[1], metrics.TasksCompleted, "the overflow line carries only what overflowed")
	assert.Equal(t, 0.5, ds[2][metrics.DynamoDBReadUnits])
	assert.Equal(t, 4.0, ds[3][metrics.DynamoDBWriteUnits])
	assert.Equal(t, 1.0, ds[4][metrics.DynamoDBReadUnits])
	assert.Equal(t, 2.0, ds[4][metrics.DynamoDBWriteUnits])
	assert.Equal(t, "-32001", ds[5]["Code"])
	assert.Equal(t, []any{[]any{"Service", "Code"}, []any{"Service"}}, ds[5]["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)["Dimensions"], "by code, and rolled up")
	assert.Equal(t, []any{[]any{"Service"}}, ds[6]["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)["Dimensions"])

	buf.Reset()
	require.NoError(t, s.Flush())
	assert.Empty(t, buf.String(), "a flush forgets what it wrote")
}

func TestDisabledSinkCostsNothing(t *testing.T) {
	var s *metrics.Sink
	ctx := metrics.NewContext(context.Background(), s)
	assert.Nil(t, metrics.From(ctx))
	allocs := testing.AllocsPerRun(100, func() {
		metrics.From(ctx).Count(metrics.TasksCreated, metrics.DimAgent, "echo")
		metrics.TaskState(ctx, "echo", a2a.TaskStateCompleted)
		_ = metrics.From(ctx).Flush()
	})
	assert.Zero(t, allocs)
}

func TestFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	var buf bytes.Buffer
	s, err := metrics.FromEnv(env(nil), &buf, nil)
	require.NoError(t, err)
	assert.Nil(t, s, "off by default outside Lambda")
	s, err = metrics.FromEnv(env(map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "f"}), &buf, nil)
	require.NoError(t, err)
	assert.NotNil(t, s, "EMF by default in Lambda")
	s, err = metrics.FromEnv(env(map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "f", "A2A_METRICS": "off"}), &buf, nil)
	require.NoError(t, err)
	assert.Nil(t, s)
	_, err = metrics.FromEnv(env(map[string]string{"A2A_METRICS": "statsd"}), &buf, nil)
	assert.ErrorContains(t, err, "A2A_METRICS")
	s, err = metrics.FromEnv(env(map[string]string{"A2A_METRICS": "emf", "A2A_METRICS_NAMESPACE": "Mine", "A2A_METRICS_SERVICE": "stack"}), &buf, nil)
	require.NoError(t, err)
	s.Count(metrics.TasksCreated)
	require.NoError(t, s.Flush())
	assert.Contains(t, buf.String(), `"Namespace":"Mine"`)
	assert.Contains(t, buf.String(), `"Service":"stack"`)
	assert.False(t, s.RecordsCapacity(), "DynamoDB capacity by operation is off by default")
	buf.Reset()
	s.Capacity("Query", 1, 0, 0)
	require.NoError(t, s.Flush())
	assert.Empty(t, buf.String())

	s, err = metrics.FromEnv(env(map[string]string{"A2A_METRICS": "emf", "A2A_METRICS_DYNAMODB": "true"}), &buf, nil)
	require.NoError(t, err)
	assert.True(t, s.RecordsCapacity())
	s.Capacity("Query", 1, 0, 0)
	require.NoError(t, s.Flush())
	assert.Contains(t, buf.String(), `"DynamoDBReadUnits":1`)
	_, err = metrics.FromEnv(env(map[string]string{"A2A_METRICS": "emf", "A2A_METRICS_DYNAMODB": "yes"}), &buf, nil)
	assert.ErrorContains(t, err, `A2A_METRICS_DYNAMODB="yes": use true or false`)
}

// Dimension values are JSON-escaped: quotes, backslashes, control
// characters, non-ASCII text and invalid UTF-8 parse back.
func TestEMFEscapes(t *testing.T) {
	var buf bytes.Buffer
	s := metrics.New(metrics.Config{Dimensions: map[string]string{"Service": `a"b\c`}, Out: &buf})
	s.Count(metrics.TasksCreated, metrics.DimAgent, "Agent \"Zoë\"\n\x01 🤖 \xff")
	s.Add(metrics.StepDuration, metrics.UnitMilliseconds, 1.25, metrics.DimAgent, "")
	require.NoError(t, s.Flush())
	ds := emftest.Documents(t, buf.Bytes())
	require.Len(t, ds, 2)
	assert.Equal(t, `a"b\c`, ds[0]["Service"])
	assert.Equal(t, "Agent \"Zoë\"\n\x01 🤖 \ufffd", ds[0]["Agent"])
	assert.Equal(t, 1.25, ds[1][metrics.StepDuration])
	assert.NotContains(t, ds[1], "Agent", "an empty dimension value is dropped")
}

// Once warm, an invocation's metrics allocate nothing.
func TestWarmSinkAllocatesNothing(t *testing.T) {
	s := metrics.New(metrics.Config{Dimensions: map[string]string{"Service": "s"}, Out: io.Discard, Capacity: true})
	run := func() {
		s.Add(metrics.RequestLatency, metrics.UnitMilliseconds, 3, metrics.DimMethod, "tasks/get")
		s.Capacity("Query", 1, 0, 0)
		_ = s.Flush()
	}
	run()
	assert.Zero(t, testing.AllocsPerRun(100, run))
}
