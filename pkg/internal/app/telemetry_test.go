package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
)

// The secrets of the telemetry test: none may reach a log line.
const (
	secretBearer = "bearer-secret-4f9c2a"
	secretLLM    = "sk-llm-secret-7d1e0b3a55"
	secretPush   = "push-secret-token-9a8b7c"
	secretProxy  = "proxy-secret-61c0"
)

// logLines decodes JSON lines.
func logLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "a log line is JSON: %s", sc.Text())
		out = append(out, m)
	}
	return out
}

// Every line the send and tasks functions log, at debug level, carries the
// invocation's ids; the summary line names the method, version, caller
// (hashed), task, context and duration; no secret appears anywhere, not
// even those a request sends (a wrong bearer token, a push token); the
// metrics are EMF lines.
func TestTelemetryJoinsUpAndRedacts(t *testing.T) {
	key := keystest.PEM(t, "")
	env := lambdaEnv(t)
	env["A2A_LOG_LEVEL"] = "debug"
	env["A2A_BEARER_TOKEN"] = secretBearer
	env["A2A_LLM_API_KEY"] = secretLLM
	env["A2A_PROXY_TOKEN"] = secretProxy
	env["A2A_PUSH_SIGNING_KEYS"] = key
	env["A2A_METRICS"] = "emf"
	env["A2A_METRICS_NAMESPACE"] = "A2ATest"
	env["A2A_METRICS_SERVICE"] = "unit"
	env["A2A_METRICS_DYNAMODB"] = "true"

	var logs, emf bytes.Buffer
	spans := &tracing.Memory{}
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), clocktest.WithTick(time.Millisecond))
	start := func(name string, routes httpapi.Routes) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		sink, err := metrics.FromEnv(getenv(env), &emf, clk)
		require.NoError(t, err)
		tel := telemetry.NewFunction(name, boot.NewLogger(&logs, slog.LevelDebug), sink, clk)
		tel.Tracer = tracing.New(spans, clk)
		h, err := httpfn.New(tel.Context(context.Background()), getenv(env), builtin.Registry(), routes, &logs)
		require.NoError(t, err)
		return telemetry.HTTP(tel, boot.LambdaHTTP(h, boot.NewLogger(&logs, slog.LevelDebug)))
	}
	send := start("send", httpapi.RoutesRPC)
	invoke := func(fn func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error), reqID string, ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
		ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: reqID})
		ctx = context.WithValue(ctx, "x-amzn-trace-id", "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1") //nolint:staticcheck // aws-lambda-go's key
		resp, err := fn(ctx, ev)
		require.NoError(t, err)
		return resp
	}

	ev := loadEvent(t, "send/jsonrpc-message-send.json")
	ev.Headers["authorization"] = "Bearer " + secretBearer
	ev.Body = `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-tel-1","parts":[{"kind":"text","text":"hello"}]},` +
		`"configuration":{"blocking":true,"pushNotificationConfig":{"url":"https://hooks.example.com/a2a","token":"` + secretPush + `"}}}}`
	resp := invoke(send, "lambda-req-1", ev)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	var task struct {
		Result struct {
			ID        string `json:"id"`
			ContextID string `json:"contextId"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &task), resp.Body)
	require.NotEmpty(t, task.Result.ID, resp.Body)

	// A caller with a wrong token, and one whose token appears in a bad body.
	bad := loadEvent(t, "send/jsonrpc-tasks-get.json")
	bad.Headers["authorization"] = "Bearer wrong-" + secretBearer
	assert.Equal(t, 401, invoke(send, "lambda-req-2", bad).StatusCode)
	get := loadEvent(t, "send/jsonrpc-tasks-get.json")
	get.Headers["authorization"] = "Bearer " + secretBearer
	get.Body = `{"jsonrpc":"2.0","id":"2","method":"tasks/get","params":{"id":"` + task.Result.ID + `"}}`
	assert.Equal(t, 200, invoke(send, "lambda-req-3", get).StatusCode)

	out := logs.String() + emf.String()
	for _, s := range []string{secretBearer, secretLLM, secretPush, secretProxy, strings.Split(key, "\n")[1]} {
		assert.NotContains(t, out, s, "a secret reached the logs")
	}

	lines := logLines(t, logs.Bytes())
	require.NotEmpty(t, lines)
	var summaries []map[string]any
	for _, l := range lines {
		if l["function"] == nil {
			continue // the cold start's own lines come before any invocation
		}
		assert.NotEmpty(t, l["aws_request_id"], "every invocation's line has the Lambda request id: %v", l)
		assert.Equal(t, "1-6740d2a0-3f1e2d3c4b5a69788796a5b1", l["trace_id"], "%v", l)
		assert.NotEmpty(t, l["apigw_request_id"], "%v", l)
		assert.Contains(t, l, "cold_start")
		if l["msg"] == "invocation" {
			summaries = append(summaries, l)
		}
	}
	require.Len(t, summaries, 3)
	first := summaries[0]
	assert.Equal(t, "send", first["function"])
	assert.Equal(t, true, first["cold_start"])
	assert.Equal(t, false, summaries[1]["cold_start"])
	assert.Equal(t, "message/send", first["method"])
	assert.Equal(t, "0.3", first["protocol_version"])
	assert.Equal(t, logfields.CallerHash(config.DefaultTokenName), first["caller"])
	assert.Equal(t, task.Result.ID, first["task_id"])
	assert.Equal(t, task.Result.ContextID, first["context_id"])
	assert.Contains(t, first, "duration_ms")
	assert.Equal(t, float64(200), first["status"])
	assert.Equal(t, "tasks/get", summaries[2]["method"])
	assert.Equal(t, task.Result.ID, summaries[2]["task_id"])
	assert.Nil(t, summaries[1]["caller"], "an unauthenticated caller has no identity")

	// Spans: the send's agent step and its DynamoDB calls, all in the
	// invocation's trace, the step under the invocation's segment.
	var step *tracing.Span
	ops := map[string]bool{}
	for _, sp := range spans.Spans() {
		assert.Equal(t, "1-6740d2a0-3f1e2d3c4b5a69788796a5b1", sp.TraceID, "%+v", sp)
		if sp.Name == "agent step" {
			step = &sp
		}
		if sp.Namespace == "aws" {
			assert.Equal(t, "DynamoDB", sp.Name)
			ops[sp.Operation] = true
		}
	}
	require.NotNil(t, step, "the agent step is a span")
	assert.Equal(t, "53995c3f42cd8ad8", step.ParentID)
	assert.True(t, ops["TransactWriteItems"] || ops["PutItem"] || ops["UpdateItem"], "DynamoDB writes are spans: %v", ops)
	assert.True(t, ops["Query"] || ops["GetItem"], "DynamoDB reads are spans: %v", ops)

	// moto reports no consumed capacity for TransactWriteItems (DynamoDB
	// does), and a blocking one-step send now writes only transactions: a
	// non-blocking send records that its task awaits a runner with an
	// UpdateItem, whose write units moto reports.
	later := loadEvent(t, "send/jsonrpc-message-send.json")
	later.Headers["authorization"] = "Bearer " + secretBearer
	later.Body = `{"jsonrpc":"2.0","id":"3","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-tel-2","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":false}}}`
	assert.Equal(t, 200, invoke(send, "lambda-req-4", later).StatusCode)

	// EMF: every line is a valid document of the namespace, with the
	// Service dimension and a value for every metric it declares.
	names := map[string]bool{}
	for _, d := range emftest.Documents(t, emf.Bytes()) {
		checkEMF(t, d, "A2ATest", names)
	}
	for _, n := range []string{metrics.TasksCreated, metrics.TasksCompleted, metrics.RequestLatency, metrics.DynamoDBWriteUnits, metrics.DynamoDBReadUnits} {
		assert.True(t, names[n], "metric %s was emitted (got %v)", n, names)
	}
}

// checkEMF checks one EMF document and records its metric names.
func checkEMF(t *testing.T, d map[string]any, namespace string, names map[string]bool) {
	t.Helper()
	aws, ok := d["_aws"].(map[string]any)
	require.True(t, ok, "_aws: %v", d)
	assert.NotZero(t, aws["Timestamp"])
	dirs := aws["CloudWatchMetrics"].([]any)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		dir := dir.(map[string]any)
		assert.Equal(t, namespace, dir["Namespace"])
		require.NotEmpty(t, dir["Dimensions"])
		for _, set := range dir["Dimensions"].([]any) {
			dims := set.([]any)
			assert.Equal(t, "Service", dims[0])
			for _, dn := range dims {
				v, ok := d[dn.(string)].(string)
				assert.True(t, ok && v != "", "dimension %v has a value", dn)
				assert.NotEqual(t, "task_id", dn)
			}
		}
		for _, m := range dir["Metrics"].([]any) {
			md := m.(map[string]any)
			name := md["Name"].(string)
			assert.Contains(t, []any{"Count", "Milliseconds"}, md["Unit"])
			assert.Contains(t, d, name, "metric %s has a value", name)
			names[name] = true
		}
	}
}
