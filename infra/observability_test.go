package infra_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// The alarms the template declares, by what they watch: every function's
// errors and throttles, the dead-letter and stream failure queues, the
// delivery queue's oldest message, the stream's iterator age, failed,
// timed-out and throttled executions, the table's throttling, the API's
// 5xx rate, the rate of JSON-RPC internal errors (HTTP 200), each
// function's routes' p99 latency, and the rate of failed tasks. Each
// notifies the optional AlarmTopicArn, in alarm and back to OK.
func TestAlarms(t *testing.T) {
	tpl := load(t)
	alarms := map[string]*samtemplate.Resource{}
	for _, a := range tpl.OfType("AWS::CloudWatch::Alarm") {
		alarms[a.Name] = a
	}
	want := []string{"DeliveryDeadLetterAlarm", "DeliveryQueueAgeAlarm", "StreamFailureAlarm", "StreamIteratorAgeAlarm", "WorkerFailureAlarm",
		"StateMachineExecutionsFailedAlarm", "StateMachineExecutionsTimedOutAlarm", "StateMachineThrottlesAlarm", "TableThrottlesAlarm",
		"Api5xxRateAlarm", "InternalErrorsAlarm", "CardLatencyP99Alarm", "SendLatencyP99Alarm", "TasksLatencyP99Alarm", "TasksFailedRateAlarm"}
	for _, fn := range tpl.OfType("AWS::Serverless::Function") {
		want = append(want, fn.Name+"ErrorsAlarm", fn.Name+"ThrottlesAlarm")
	}
	fnTracing, _ := samtemplate.RefTarget(samtemplate.Get(tpl.Globals, "Function", "Tracing"))
	assert.Equal(t, "Tracing", fnTracing, "functions are traced as the Tracing parameter says")
	for _, name := range want {
		a, ok := alarms[name]
		if !assert.True(t, ok, "alarm %s is declared", name) {
			continue
		}
		assert.Equal(t, "HasAlarms", a.Condition, "%s is created with CreateAlarms", name)
		for _, prop := range []string{"AlarmActions", "OKActions"} {
			fn, arg, ok := samtemplate.Intrinsic(a.Prop(prop))
			if assert.True(t, ok, "%s.%s", name, prop) {
				assert.Equal(t, "Fn::If", fn)
				cond, _ := samtemplate.Scalar(arg.Content[0])
				assert.Equal(t, "HasAlarmTopic", cond, name)
			}
		}
		desc, _ := samtemplate.Scalar(a.Prop("AlarmDescription"))
		assert.NotEmpty(t, desc, "%s says what it means", name)
	}
	var ids []string
	for n := range alarms {
		ids = append(ids, n)
	}
	assert.ElementsMatch(t, want, ids, "the alarms, no more, no less")
	ns, _ := samtemplate.RefTarget(samtemplate.Get(alarms["TasksFailedRateAlarm"].Prop("Metrics").Content[0], "MetricStat", "Metric", "Namespace"))
	assert.Equal(t, "MetricsNamespace", ns, "the task alarm watches the EMF namespace")
	fn, arg, ok := samtemplate.Intrinsic(tpl.Resources["TaskStateMachine"].Prop("Tracing", "Enabled"))
	require.True(t, ok, "the state machine is traced as the Tracing parameter says")
	assert.Equal(t, "Fn::If", fn)
	cond, _ := samtemplate.Scalar(arg.Content[0])
	assert.Equal(t, "TracingOn", cond)
}

// The dashboard shows every metric pkg/metrics emits, in the namespace of
// the MetricsNamespace parameter.
func TestDashboard(t *testing.T) {
	tpl := load(t)
	ds := tpl.OfType("AWS::CloudWatch::Dashboard")
	require.Len(t, ds, 1)
	fn, arg, ok := samtemplate.Intrinsic(ds[0].Prop("DashboardBody"))
	require.True(t, ok)
	require.Equal(t, "Fn::Sub", fn)
	body := arg.Value // the short form: the tagged scalar itself
	// Substitute the variables so that the body parses as JSON.
	body = regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(body, "X")
	var doc struct {
		Widgets []struct {
			Properties struct {
				Title   string `json:"title"`
				Metrics []any  `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &doc), body)
	var shown []string
	for _, w := range doc.Widgets {
		assert.NotEmpty(t, w.Properties.Title)
		for _, m := range w.Properties.Metrics {
			b, _ := json.Marshal(m)
			shown = append(shown, string(b))
		}
	}
	all := strings.Join(shown, "\n")
	for _, name := range []string{metrics.TasksCreated, metrics.TasksCompleted, metrics.TasksFailed, metrics.TasksCanceled,
		metrics.TasksRejected, metrics.TasksInputRequired, metrics.StepDuration, metrics.RequestLatency, metrics.RouteLatency,
		metrics.InterruptsAsked, metrics.InterruptsAnswered, metrics.InterruptsExpired,
		metrics.WebhookDelivered, metrics.WebhookRetried, metrics.WebhookDeadLetter,
		metrics.DynamoDBReadUnits, metrics.DynamoDBWriteUnits, metrics.Errors} {
		assert.True(t, strings.Contains(all, `"`+name+`"`) || strings.Contains(all, `\"`+name+`\"`), "the dashboard shows %s", name)
	}
	params := samtemplate.Get(tpl.Root, "Parameters")
	for _, p := range []string{"Metrics", "MetricsNamespace", "AlarmTopicArn"} {
		assert.True(t, slices.Contains(samtemplate.Keys(params), p), "parameter %s", p)
	}
}

// Each latency alarm watches the routes of one function, every route of the
// template is watched by the alarm of the function it reaches, and the
// alarms watch RouteLatency (which leaves blocking sends out), never the
// API's own Latency (which a 25 s blocking send sets off).
func TestLatencyAlarmsWatchEveryRoute(t *testing.T) {
	tpl := load(t)
	integration := map[string]string{"CardIntegration": "CardLatencyP99Alarm", "SendIntegration": "SendLatencyP99Alarm", "TasksIntegration": "TasksLatencyP99Alarm"}
	want := map[string]string{}
	for _, r := range tpl.OfType("AWS::ApiGatewayV2::Route") {
		key, _ := samtemplate.Scalar(r.Prop("RouteKey"))
		_, arg, ok := samtemplate.Intrinsic(r.Prop("Target"))
		require.True(t, ok, "%s: Target is !Sub 'integrations/${...}'", r.Name)
		target := arg.Value
		ig := strings.TrimSuffix(strings.TrimPrefix(target, "integrations/${"), "}")
		require.Contains(t, integration, ig, "%s: a route to a function without a latency alarm", r.Name)
		want[key] = integration[ig]
	}
	got := map[string]string{}
	for _, a := range tpl.OfType("AWS::CloudWatch::Alarm") {
		if ns, _ := samtemplate.Scalar(a.Prop("Namespace")); ns == "AWS/ApiGateway" {
			name, _ := samtemplate.Scalar(a.Prop("MetricName"))
			assert.NotEqual(t, "Latency", name, "%s watches the API's latency, blocking sends included", a.Name)
		}
		ms := a.Prop("Metrics")
		if ms == nil {
			continue
		}
		for _, m := range ms.Content {
			if name, _ := samtemplate.Scalar(samtemplate.Get(m, "MetricStat", "Metric", "MetricName")); name != metrics.RouteLatency {
				continue
			}
			stat, _ := samtemplate.Scalar(samtemplate.Get(m, "MetricStat", "Stat"))
			assert.Equal(t, "p99", stat, a.Name)
			for _, d := range samtemplate.Get(m, "MetricStat", "Metric", "Dimensions").Content {
				if k, _ := samtemplate.Scalar(samtemplate.Get(d, "Name")); k == metrics.DimRoute {
					route, _ := samtemplate.Scalar(samtemplate.Get(d, "Value"))
					assert.NotContains(t, got, route, "%s and %s both watch %s", a.Name, got[route], route)
					got[route] = a.Name
				}
			}
		}
	}
	assert.Equal(t, want, got)
}
