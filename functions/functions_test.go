// Package functions_test drives every Lambda function the way Lambda does:
// each functions/<name> is built into a real binary (for the host, with the
// same tags as the deployed one) and run against a Runtime API emulator
// (pkg/testkit/lambdaemu), on moto where it needs AWS. Each must start, answer
// its sample event from events/, report a bad event through the Runtime
// API's error endpoint and a failed cold start through its init error
// endpoint. The test logs each binary's size and cold start time;
// BenchmarkColdStart measures the cold start (`make bench`).
package functions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/lambdaemu"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "a2a-functions-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := awstest.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// The sample events' bearer token and task ids (see pkg/internal/app's tests).
const (
	token      = "events-sample-token"
	getTask    = "0b8e5d4a-6f1c-4e2b-9a37-5c1d2e3f4a50"
	workerTask = "5f0c6a1e-8b2d-4e3f-9a4b-1c2d3e4f5a01"
	sweptTask  = "5f0c6a1e-8b2d-4e3f-9a4b-1c2d3e4f5a09"
)

var (
	buildOnce sync.Once
	buildErr  error
	built     []string
)

// functions builds every functions/<name> (one go build for all) and
// returns their names.
func functions(tb testing.TB) []string {
	tb.Helper()
	buildOnce.Do(func() {
		dirs, err := filepath.Glob("*/main.go")
		if err != nil || len(dirs) == 0 {
			buildErr = fmt.Errorf("no functions/*/main.go (%v)", err)
			return
		}
		for _, d := range dirs {
			built = append(built, filepath.Dir(d))
		}
		sort.Strings(built)
		cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags=-s -w", "-o", binDir+string(filepath.Separator), "./...")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./functions/...: %v\n%s", err, out)
		}
	})
	require.NoError(tb, buildErr)
	return built
}

// environ turns a map into an exec environment.
func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// fixture is the AWS the functions run against: a table (and a queue) in
// moto, with the tasks the sample events name.
type fixture struct {
	env   map[string]string
	store store.Store
	// queue and dlq are the push delivery queues.
	queue, dlq string
}

func newFixture(t *testing.T) *fixture {
	env := awstest.SDKEnv(t)
	for k, v := range map[string]string{
		"A2A_TASK_STORE_BACKEND": "dynamodb",
		"A2A_TASK_STORE_TABLE":   awstest.UniqueName(t, "functions"),
		"A2A_BEARER_TOKEN":       token,
		"A2A_AGENT":              "demo",
		"A2A_DEMO_WORK_MS":       "0",
		"A2A_LOG_LEVEL":          "warn",
		"A2A_PUSH_SIGNING_KEYS":  keystest.PEM(t, ""),
		// Lambda states the memory size; the functions size their runtime to it.
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
	} {
		env[k] = v
	}
	cfg, err := config.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	client := awstest.DynamoDB(t)
	require.NoError(t, dynamo.CreateTable(context.Background(), client, cfg.TaskStore.Table))
	store, err := dynamo.New(client, dynamo.Options{Table: cfg.TaskStore.Table, TaskTTL: cfg.TaskStore.TTL})
	require.NoError(t, err)
	f := &fixture{env: env, store: store}
	// The template's redrive: above the deliver function's 10 attempts.
	f.queue, f.dlq = awstest.Queues(t, awstest.SQS(t), 12)
	return f
}

// task stores a submitted task of the events' caller.
func (f *fixture) task(t *testing.T, id, text string) {
	t.Helper()
	f.create(t, id, text, store.Lease{})
}

// stuckTask stores a task left working by a runner that died: its lease
// lapsed a minute ago.
func (f *fixture) stuckTask(t *testing.T, id, text string) {
	t.Helper()
	f.create(t, id, text, store.Lease{Owner: "crashed-step", Until: time.Now().Add(-time.Minute), Trigger: store.TriggerMessage})
}

func (f *fixture) create(t *testing.T, id, text string, lease store.Lease) {
	t.Helper()
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + id, TaskID: id, ContextID: "ctx-functions", Parts: []a2a.Part{a2a.TextPart(text)}}
	require.NoError(t, f.store.CreateTask(context.Background(), store.NewTask{Owner: config.DefaultTokenName, Task: a2a.Task{
		ID: id, ContextID: "ctx-functions", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
	}, Lease: lease}))
}

// httpResponse decodes an HTTP API function's result.
func httpResponse(t *testing.T, out []byte) (events.APIGatewayV2HTTPResponse, string) {
	t.Helper()
	var r events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(out, &r), string(out))
	require.False(t, r.IsBase64Encoded)
	return r, r.Body
}

// fnCase is what a function is fed and must answer.
type fnCase struct {
	// event is the sample event under events/.
	event   string
	env     func(f *fixture) map[string]string
	arrange func(t *testing.T, f *fixture)
	check   func(t *testing.T, f *fixture, out []byte)
	// bad is an event the function must refuse through /error.
	bad string
}

var cases = map[string]fnCase{
	"card": {event: "card-get.json", bad: `"not an API Gateway event"`, check: func(t *testing.T, _ *fixture, out []byte) {
		r, body := httpResponse(t, out)
		assert.Equal(t, 200, r.StatusCode, body)
		var card a2a.AgentCard
		require.NoError(t, json.Unmarshal([]byte(body), &card))
		assert.Equal(t, "https://abc123def4.execute-api.us-east-1.amazonaws.com", card.URL)
	}},
	"send": {event: "send/jsonrpc-message-send.json", bad: `"not an API Gateway event"`, check: func(t *testing.T, _ *fixture, out []byte) {
		r, body := httpResponse(t, out)
		require.Equal(t, 200, r.StatusCode, body)
		var rpc struct {
			ID     string   `json:"id"`
			Result a2a.Task `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &rpc), body)
		assert.Equal(t, "req-1", rpc.ID)
		assert.Equal(t, a2a.TaskStateCompleted, rpc.Result.Status.State, body)
		require.Len(t, rpc.Result.Artifacts, 1, body)
		assert.Equal(t, "echo: hello from API Gateway", a2a.PartsText(rpc.Result.Artifacts[0].Parts))
	}},
	"tasks": {event: "tasks/rest-tasks-get.json", bad: `"not an API Gateway event"`,
		arrange: func(t *testing.T, f *fixture) { f.task(t, getTask, "hi") },
		check: func(t *testing.T, _ *fixture, out []byte) {
			r, body := httpResponse(t, out)
			require.Equal(t, 200, r.StatusCode, body)
			var task a2a.Task
			require.NoError(t, json.Unmarshal([]byte(body), &task))
			assert.Equal(t, getTask, task.ID)
			assert.Equal(t, a2a.TaskStateSubmitted, task.Status.State)
		}},
	"worker": {event: "worker-step.json", bad: `{"action":"dance","taskId":"` + workerTask + `"}`,
		arrange: func(t *testing.T, f *fixture) { f.task(t, workerTask, "hello") },
		check: func(t *testing.T, _ *fixture, out []byte) {
			assert.JSONEq(t, `{"next":"done","afterSeconds":0,"requestId":"","trigger":"","state":"completed",
				"carry":{"taskId":"`+workerTask+`","interruptTtlSeconds":600,"steps":1,"maxSteps":500}}`, string(out), "the step's outcome, and the execution's carry as it came")
		}},
	"sweep": {event: "sweep-schedule.json", bad: `"not a scheduled event"`,
		arrange: func(t *testing.T, f *fixture) { f.stuckTask(t, sweptTask, "hello") },
		check: func(t *testing.T, f *fixture, out []byte) {
			assert.JSONEq(t, `{"takenOver":1,"failed":0}`, string(out))
			rec, err := f.store.GetTask(context.Background(), sweptTask, store.AllHistory)
			require.NoError(t, err)
			assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State, "the sweep ran the task's step in inline mode")
		}},
	"push": {event: "push/stream-batch.json", bad: `"not a stream batch"`,
		env: func(f *fixture) map[string]string {
			return map[string]string{"A2A_PUSH_DELIVERY_QUEUE_URL": f.queue, "A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL": f.dlq}
		},
		check: func(t *testing.T, f *fixture, out []byte) {
			var r events.DynamoDBEventResponse
			require.NoError(t, json.Unmarshal(out, &r), string(out))
			assert.Empty(t, r.BatchItemFailures)
			jobs := awstest.Receive(t, awstest.SQS(t), f.queue, 1)
			require.NotEmpty(t, jobs, "the task changes of the batch become delivery jobs on the queue")
			assert.Contains(t, jobs[0].Body, "4f6c1a52-7d2e-4a47-9b1e-2f9d3c8e5a10")
		}},
	"deliver": {event: "deliver/sqs-batch.json", bad: `"not an SQS batch"`,
		env: func(f *fixture) map[string]string {
			return map[string]string{"A2A_PUSH_DELIVERY_QUEUE_URL": f.queue, "A2A_PUSH_DEAD_LETTER_QUEUE_URL": f.dlq, "A2A_PUSH_ISSUER": "https://agent.example.com"}
		},
		check: func(t *testing.T, _ *fixture, out []byte) {
			var r events.SQSEventResponse
			require.NoError(t, json.Unmarshal(out, &r), string(out))
			assert.Empty(t, r.BatchItemFailures, "jobs whose task or config is gone are dropped, not retried")
		}},
}

// Every function binary starts, answers its sample event, refuses a bad
// one through /error, and reports a failed cold start through /init/error.
func TestFunctionBinaries(t *testing.T) {
	names := functions(t)
	f := newFixture(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tc, ok := cases[name]
			require.True(t, ok, "functions/%s has no case in this test: add its sample event under events/ and what it must answer", name)
			event, err := os.ReadFile(filepath.Join("..", "events", tc.event))
			require.NoError(t, err)
			env := map[string]string{}
			for k, v := range f.env {
				env[k] = v
			}
			if tc.env != nil {
				for k, v := range tc.env(f) {
					env[k] = v
				}
			}
			if tc.arrange != nil {
				tc.arrange(t, f)
			}
			bin := filepath.Join(binDir, name)
			info, err := os.Stat(bin)
			require.NoError(t, err)

			p, err := lambdaemu.Start(bin, environ(env), lambdaemu.Options{})
			require.NoError(t, err)
			defer p.Stop()
			initTime, rep, err := p.Ready(20 * time.Second)
			require.NoError(t, err, "init error report: %s", rep.Body)
			t.Logf("%s: binary %.1f MB (host build, -s -w), cold start %s (exec to first /next)", name, float64(info.Size())/1e6, initTime.Round(100*time.Microsecond))

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rep, err = p.Emulator.Invoke(ctx, event)
			require.NoError(t, err)
			require.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s\nlog: %s", rep.Body, p.Stderr())
			tc.check(t, f, rep.Body)

			rep, err = p.Emulator.Invoke(ctx, []byte(tc.bad))
			require.NoError(t, err)
			assert.Equal(t, lambdaemu.KindError, rep.Kind, "a bad event is an invocation error: %s", rep.Body)
			var lerr struct{ ErrorMessage, ErrorType string }
			require.NoError(t, json.Unmarshal(rep.Body, &lerr))
			assert.NotEmpty(t, lerr.ErrorMessage)
			assert.NotEmpty(t, lerr.ErrorType)

			// The environment survives a bad event: it serves the next one.
			rep, err = p.Emulator.Invoke(ctx, event)
			require.NoError(t, err)
			assert.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s", rep.Body)

			// A bad configuration stops the cold start, reported to Lambda
			// naming the variable, and the process exits.
			env["A2A_LOG_LEVEL"] = "loud"
			bad, err := lambdaemu.Start(bin, environ(env), lambdaemu.Options{})
			require.NoError(t, err)
			defer bad.Stop()
			_, rep, err = bad.Ready(20 * time.Second)
			require.ErrorIs(t, err, lambdaemu.ErrInitFailed, "log: %s", bad.Stderr())
			assert.Equal(t, "Runtime.InitError", rep.ErrorType)
			var ierr struct{ ErrorMessage, ErrorType string }
			require.NoError(t, json.Unmarshal(rep.Body, &ierr))
			assert.Contains(t, ierr.ErrorMessage, `A2A_LOG_LEVEL="loud"`)
			assert.Equal(t, "Runtime.InitError", ierr.ErrorType)
			code, err := bad.Exit(10 * time.Second)
			require.NoError(t, err)
			assert.Equal(t, 1, code)
		})
	}
}

// BenchmarkColdStart measures each function's cold start: exec of the
// binary to its first request for an event (configuration, AWS clients,
// handler; no network: nothing is invoked), next to a minimal aws-lambda-go
// binary (testdata/minimal) built with the same flags. The x-minimal metric
// is the function's median cold start over the minimal one's, the two
// started in turn in the same loop, so that the machine's load, which
// drifts during a run, weighs on both alike. MB is the host binary's size.
func BenchmarkColdStart(b *testing.B) {
	env := environ(map[string]string{
		"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "bench", "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "A2A_BEARER_TOKEN": token,
		"A2A_PUSH_DELIVERY_QUEUE_URL": "http://127.0.0.1:1/queue/bench", "A2A_PUSH_DEAD_LETTER_QUEUE_URL": "http://127.0.0.1:1/queue/dlq",
		"A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL": "http://127.0.0.1:1/queue/stream-dlq",
		"A2A_PUSH_ISSUER":                       "https://agent.example.com", "A2A_PUSH_SIGNING_KEYS": keystest.PEM(b, ""),
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", // as Lambda states it: a function sizes its runtime at start
	})
	names := functions(b)
	minimal := buildMinimal(b)
	for _, name := range names {
		bin := filepath.Join(binDir, name)
		info, err := os.Stat(bin)
		require.NoError(b, err)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				coldStart(b, bin, env)
			}
			b.StopTimer()
			fn, yardstick := medianColdStarts(b, bin, minimal, env, 21)
			b.ReportMetric(float64(fn)/float64(yardstick), "x-minimal")
			b.ReportMetric(float64(info.Size())/1e6, "MB")
		})
	}
}

// buildMinimal builds testdata/minimal as the functions are built.
func buildMinimal(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(binDir, "minimal")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags=-s -w", "-o", bin, "./testdata/minimal")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return bin
}

// coldStart starts bin and waits for its first request for an event.
func coldStart(tb testing.TB, bin string, env []string) time.Duration {
	tb.Helper()
	start := time.Now()
	p, err := lambdaemu.Start(bin, env, lambdaemu.Options{})
	require.NoError(tb, err)
	defer p.Stop()
	_, rep, err := p.Ready(20 * time.Second)
	require.NoError(tb, err, "%s", rep.Body)
	return time.Since(start)
}

// medianColdStarts starts bin and then the yardstick in turn, runs times
// each, and returns their median cold starts.
func medianColdStarts(tb testing.TB, bin, yardstick string, env []string, runs int) (time.Duration, time.Duration) {
	d, y := make([]time.Duration, runs), make([]time.Duration, runs)
	for i := range d {
		d[i] = coldStart(tb, bin, env)
		y[i] = coldStart(tb, yardstick, env)
	}
	slices.Sort(d)
	slices.Sort(y)
	return d[runs/2], y[runs/2]
}

// The card function's only AWS access is reading its signing keys' secret,
// which pkg/internal/secrets does without the SDK's clients, so it must link no AWS
// SDK service client and not the SDK's configuration loader: their
// packages' initialization would cost its every cold start (see
// pkg/boot).
func TestCardLinksNoAWSServiceClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./card").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, dep := range strings.Fields(string(out)) {
		assert.False(t, strings.HasPrefix(dep, "github.com/aws/aws-sdk-go-v2/service/"), "functions/card links %s", dep)
		assert.NotEqual(t, "github.com/aws/aws-sdk-go-v2/config", dep, "functions/card links the SDK's configuration loader")
	}
	assert.Contains(t, strings.Fields(string(out)), "github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets", "the card resolves a reference to its signing keys")
}
