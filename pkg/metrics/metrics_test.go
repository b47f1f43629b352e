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
	// One line for all the batches whose dimension values agree (echo, the
	// GetItem units, the error code, the dimensionless webhook), one for the
	// 50 step durations beyond EMF's 100 values a metric, and one for each
	// operation whose units would need a second value of Operation.
	require.Len(t, ds, 4)
	for _, d := range ds {
		meta := d["_aws"].(map[string]any)
		assert.Equal(t, float64(clk.Now().UnixMilli()), meta["Timestamp"])
		for _, dir := range meta["CloudWatchMetrics"].([]any) {
			dir := dir.(map[string]any)
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
	}
	assert.Len(t, ds[0][metrics.StepDuration], 100)
	assert.Len(t, ds[1][metrics.StepDuration], 50)
	assert.NotContains(t, ds[1], metrics.TasksCompleted, "the overflow line carries only what overflowed")
	assert.Len(t, ds[1]["_aws"].(map[string]any)["CloudWatchMetrics"], 1, "nor their directives")
	assert.Equal(t, "TransactWriteItems", ds[2]["Operation"])
	assert.Equal(t, "Query", ds[3]["Operation"])

	// What CloudWatch makes of the lines: each metric by its dimensions and
	// rolled up under Service alone, exactly as recorded.
	steps := make([]float64, 150)
	for i := range steps {
		steps[i] = 2
	}
	assert.Equal(t, map[string][]float64{
		"TasksCompleted{Agent=echo,Service=prod}":                       {1},
		"TasksCompleted{Service=prod}":                                  {1},
		"TasksFailed{Agent=echo,Service=prod}":                          {1},
		"TasksFailed{Service=prod}":                                     {1},
		"StepDuration{Agent=echo,Service=prod}":                         steps,
		"StepDuration{Service=prod}":                                    steps,
		"DynamoDBReadUnits{Operation=GetItem,Service=prod}":             {0.5},
		"DynamoDBReadUnits{Operation=Query,Service=prod}":               {1},
		"DynamoDBReadUnits{Service=prod}":                               {0.5, 1},
		"DynamoDBWriteUnits{Operation=TransactWriteItems,Service=prod}": {4},
		"DynamoDBWriteUnits{Operation=Query,Service=prod}":              {2},
		"DynamoDBWriteUnits{Service=prod}":                              {4, 2},
		"Errors{Code=-32001,Service=prod}":                              {1},
		"Errors{Service=prod}":                                          {1},
		"WebhookDelivered{Service=prod}":                                {1},
	}, emftest.Series(ds))

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

// An invocation's metrics share a line (its bytes are billed, and each line
// repeats the metadata) unless EMF's one value per member forbids it: two
// values of one dimension, a metric in two batches, a metric named like a
// dimension of another batch.
func TestLinesShareWhenDimensionsAgree(t *testing.T) {
	tests := []struct {
		name   string
		add    func(s *metrics.Sink)
		lines  int
		series map[string][]float64
	}{
		{"a request: tasks by agent, latency by method and by route", func(s *metrics.Sink) {
			s.Count(metrics.TasksCreated, metrics.DimAgent, "echo")
			s.Add(metrics.RequestLatency, metrics.UnitMilliseconds, 3, metrics.DimMethod, "message/send")
			s.Add(metrics.RouteLatency, metrics.UnitMilliseconds, 3, metrics.DimRoute, "POST /")
		}, 1, map[string][]float64{
			"TasksCreated{Agent=echo,Service=s}":            {1},
			"TasksCreated{Service=s}":                       {1},
			"RequestLatency{Method=message/send,Service=s}": {3},
			"RequestLatency{Service=s}":                     {3},
			"RouteLatency{Route=POST /,Service=s}":          {3},
			"RouteLatency{Service=s}":                       {3},
		}},
		{"one metric under two agents", func(s *metrics.Sink) {
			s.Count(metrics.TasksCreated, metrics.DimAgent, "a")
			s.Count(metrics.TasksCreated, metrics.DimAgent, "b")
		}, 2, map[string][]float64{
			"TasksCreated{Agent=a,Service=s}": {1},
			"TasksCreated{Agent=b,Service=s}": {1},
			"TasksCreated{Service=s}":         {1, 1},
		}},
		{"two values of one dimension, a third batch joins the first line", func(s *metrics.Sink) {
			s.Capacity("Query", 1, 0, 0)
			s.Capacity("PutItem", 2, 0, 0)
			s.Count(metrics.Errors, metrics.DimCode, "-32001")
		}, 2, map[string][]float64{
			"DynamoDBReadUnits{Operation=Query,Service=s}":    {1},
			"DynamoDBReadUnits{Service=s}":                    {1},
			"DynamoDBWriteUnits{Operation=PutItem,Service=s}": {2},
			"DynamoDBWriteUnits{Service=s}":                   {2},
			"Errors{Code=-32001,Service=s}":                   {1},
			"Errors{Service=s}":                               {1},
		}},
		{"a metric named like another batch's dimension", func(s *metrics.Sink) {
			s.Add(metrics.RequestLatency, metrics.UnitMilliseconds, 3, metrics.DimMethod, "tasks/get")
			s.Count(metrics.DimMethod)
		}, 2, map[string][]float64{
			"RequestLatency{Method=tasks/get,Service=s}": {3},
			"RequestLatency{Service=s}":                  {3},
			"Method{Service=s}":                          {1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			s := metrics.New(metrics.Config{Namespace: "A2A", Dimensions: map[string]string{"Service": "s"}, Out: &buf, Capacity: true})
			tt.add(s)
			require.NoError(t, s.Flush())
			ds := emftest.Documents(t, buf.Bytes())
			assert.Len(t, ds, tt.lines, "%s", buf.String())
			assert.Equal(t, tt.series, emftest.Series(ds))
		})
	}
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
	require.Len(t, ds, 1)
	assert.Equal(t, `a"b\c`, ds[0]["Service"])
	assert.Equal(t, "Agent \"Zoë\"\n\x01 🤖 \ufffd", ds[0]["Agent"])
	assert.Equal(t, map[string][]float64{
		"TasksCreated{Agent=Agent \"Zoë\"\n\x01 🤖 \ufffd,Service=a\"b\\c}": {1},
		"TasksCreated{Service=a\"b\\c}":                                    {1},
		"StepDuration{Service=a\"b\\c}":                                    {1.25}, // an empty dimension value is dropped
	}, emftest.Series(ds))
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
