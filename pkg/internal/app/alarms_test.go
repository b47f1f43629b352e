package app_test

import (
	"bytes"
	"context"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
)

// watchedMetrics is every metric of the MetricsNamespace parameter the
// template's alarms watch, as emftest.Series names them, for the Service
// value service.
func watchedMetrics(t *testing.T, service string) map[string]string {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join("..", "..", "..", "template.yaml"))
	require.NoError(t, err)
	watched := map[string]string{}
	for _, a := range tpl.OfType("AWS::CloudWatch::Alarm") {
		ms := a.Prop("Metrics")
		if ms == nil {
			continue
		}
		for _, m := range ms.Content {
			metric := samtemplate.Get(m, "MetricStat", "Metric")
			if metric == nil {
				continue
			}
			if ns, _ := samtemplate.RefTarget(samtemplate.Get(metric, "Namespace")); ns != "MetricsNamespace" {
				continue
			}
			name, _ := samtemplate.Scalar(samtemplate.Get(metric, "MetricName"))
			var dims []string
			for _, d := range samtemplate.Get(metric, "Dimensions").Content {
				k, _ := samtemplate.Scalar(samtemplate.Get(d, "Name"))
				v, ok := samtemplate.Scalar(samtemplate.Get(d, "Value"))
				if !ok {
					ref, _ := samtemplate.RefTarget(samtemplate.Get(d, "Value"))
					require.Equal(t, "AWS::StackName", ref, "%s: the Service dimension is the stack's name, as A2A_METRICS_SERVICE", a.Name)
					v = service
				}
				dims = append(dims, k+"="+v)
			}
			slices.Sort(dims)
			watched[name+"{"+strings.Join(dims, ",")+"}"] = a.Name
		}
	}
	return watched
}

// The alarms watch what the functions emit, under the same dimensions: a
// JSON-RPC internal error (HTTP 200, which the API's 5xx alarm never
// sees) counts Errors under Code=-32603, which InternalErrorsAlarm
// watches; the route latency the latency alarms watch leaves blocking
// sends out (they last as long as the agent), while the latency by method
// keeps them; the totals the rate alarms divide by are rolled up under
// Service alone.
func TestAlarmsSeeWhatTheFunctionsEmit(t *testing.T) {
	env := lambdaEnv(t)
	env["A2A_METRICS"] = "emf"
	env["A2A_METRICS_NAMESPACE"] = "A2ATest"
	env["A2A_METRICS_SERVICE"] = "unit"
	var emf bytes.Buffer
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), clocktest.WithTick(time.Millisecond))
	sink, err := metrics.FromEnv(getenv(env), &emf, clk)
	require.NoError(t, err)
	tel := telemetry.NewFunction("send", boot.NewLogger(io.Discard, 0), sink, clk)
	h, err := httpfn.New(tel.Context(context.Background()), getenv(env), builtin.Registry(), httpapi.RoutesRPC, io.Discard)
	require.NoError(t, err)
	send := telemetry.HTTP(tel, boot.LambdaHTTP(h, boot.NewLogger(io.Discard, 0)))
	call := func(body string) events.APIGatewayV2HTTPResponse {
		ev := loadEvent(t, "send/jsonrpc-message-send.json")
		require.Equal(t, "POST /", ev.RouteKey)
		ev.Body = body
		resp, err := send(context.Background(), ev)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode, resp.Body)
		return resp
	}
	msg := func(id string, blocking bool) string {
		b := "false"
		if blocking {
			b = "true"
		}
		return `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"` + id + `","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":` + b + `}}}`
	}
	assert.Contains(t, call(msg("m-alarm-1", true)).Body, `"completed"`)
	assert.NotContains(t, call(msg("m-alarm-2", false)).Body, `"error"`)
	get := `{"jsonrpc":"2.0","id":"2","method":"tasks/get","params":{"id":"no-such-task"}}`
	assert.Contains(t, call(get).Body, `-32001`)

	// The table goes away under the running function: its next request
	// fails inside the service, answered -32603 with HTTP 200.
	db := awstest.DynamoDB(t)
	_, err = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(env["A2A_TASK_STORE_TABLE"])})
	require.NoError(t, err)
	assert.Contains(t, call(get).Body, `-32603`)

	got := emftest.Series(emftest.Documents(t, emf.Bytes()))
	assert.Len(t, got["RouteLatency{Route=POST /,Service=unit}"], 3, "the non-blocking send and the two gets, not the blocking send: %v", slices.Sorted(maps.Keys(got)))
	assert.Len(t, got["RequestLatency{Method=message/send,Service=unit}"], 2, "the latency by method keeps blocking sends")
	assert.Len(t, got["Errors{Code=-32603,Service=unit}"], 1)

	watched := watchedMetrics(t, "unit")
	for key, alarm := range map[string]string{
		"Errors{Code=-32603,Service=unit}":        "InternalErrorsAlarm",
		"RequestLatency{Service=unit}":            "InternalErrorsAlarm",
		"RouteLatency{Route=POST /,Service=unit}": "SendLatencyP99Alarm",
		"TasksCompleted{Service=unit}":            "TasksFailedRateAlarm",
	} {
		assert.Equal(t, alarm, watched[key], "%s watches %s", alarm, key)
		assert.NotEmpty(t, got[key], "the function emits %s, which %s watches", key, alarm)
	}
	for key, alarm := range watched {
		name, _, _ := strings.Cut(key, "{")
		assert.Contains(t, []string{metrics.RouteLatency, metrics.RequestLatency, metrics.Errors, metrics.TasksFailed, metrics.TasksCompleted, metrics.InterruptsExpired}, name, "%s watches %s, a metric pkg/metrics emits", alarm, key)
	}
}
