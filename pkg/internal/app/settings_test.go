package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
)

// components are what the binaries build from one configuration, each by
// the function the binaries call: the local server's HTTP server, the
// service, the executor, the files, the task stores, the handlers of the
// local server and of the Lambda functions, the push retry policy.
type components struct {
	// getenv is the environment as boot.ResolveSecrets leaves it for the
	// agent (A2A_AGENT_SETTINGS and the agents' secrets).
	getenv   func(string) string
	cfg      config.Config
	server   *http.Server
	service  service.Config
	executor engine.Options
	files    *files.Files
	memory   memory.Options
	dynamo   dynamo.Options
	local    httpapi.Options
	lambda   httpapi.Options
	retry    push.RetryPolicy
	// telemetry is a Lambda function's (A2A_METRICS*, A2A_TRACING), its
	// metrics written to metrics.
	telemetry *telemetry.Function
	metrics   *bytes.Buffer
}

var settingsAgent = agent.Info{Name: "settings", Version: "1.0.0"}

// build loads env as the binaries do and builds the components from it.
func build(t *testing.T, getenv func(string) string) components {
	t.Helper()
	resolved, err := boot.ResolveSecrets(context.Background(), getenv)
	require.NoError(t, err)
	cfg, err := config.Load(resolved)
	require.NoError(t, err)
	hc, err := config.LoadHTTP(getenv)
	require.NoError(t, err)
	var out bytes.Buffer
	return components{
		getenv:   resolved,
		cfg:      cfg,
		server:   httpServer(hc, http.NotFoundHandler()),
		service:  setup.Service(cfg),
		executor: setup.Executor(cfg, nil, nil, nil),
		files:    setup.Files(cfg, nil, nil, nil),
		memory:   memoryOptions(cfg, nil),
		dynamo:   setup.DynamoOptions(cfg, setup.StoreOptions{}),
		local:    boot.HandlerOptions(cfg, settingsAgent, boot.Edge{Local: true, FilesKept: true, ExecutionMode: ExecutionLocal}),
		lambda:   boot.HandlerOptions(cfg, settingsAgent, boot.Edge{FilesKept: true}),
		retry:    setup.PushRetry(cfg),
		// X-Ray's daemon address is where Lambda's active tracing listens.
		telemetry: telemetry.ForLambda("settings", withXRay(getenv), &out, io.Discard),
		metrics:   &out,
	}
}

// settingRow sets one setting to a value other than its default (with
// the settings it needs, also), and checks that its component sees it.
type settingRow struct {
	value string
	also  map[string]string
	check func(t *testing.T, c components)
}

// dynamoEnv is what a DynamoDB store needs.
var dynamoEnv = map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks", "AWS_REGION": "us-east-1"}

const stateMachine = "arn:aws:states:us-east-1:123456789012:stateMachine:tasks"

func settingRows(t *testing.T) map[string]settingRow {
	const kid = "settings-key"
	pem := keystest.PEM(t, kid)
	return map[string]settingRow{
		"A2A_HOST": {value: "0.0.0.0", also: map[string]string{"A2A_BEARER_TOKEN": "token-of-sixteen-chars"}, check: func(t *testing.T, c components) {
			assert.Equal(t, "http://0.0.0.0:8000", c.local.PublicURL, "the local server's cards name its bind address")
		}},
		"A2A_PORT": {value: "9123", check: func(t *testing.T, c components) {
			assert.Equal(t, "http://127.0.0.1:9123", c.local.PublicURL)
		}},
		"A2A_PUBLIC_URL": {value: "https://agent.example.com", check: func(t *testing.T, c components) {
			assert.Equal(t, "https://agent.example.com", c.local.PublicURL)
			assert.Equal(t, "https://agent.example.com", c.lambda.PublicURL)
		}},
		"A2A_BEARER_TOKEN": {value: "token-of-sixteen-chars", check: func(t *testing.T, c components) {
			assertAdmits(t, c.cfg, "token-of-sixteen-chars", config.DefaultTokenName)
		}},
		"A2A_BEARER_TOKENS": {value: "alice:alice-token-16-chars", check: func(t *testing.T, c components) {
			assertAdmits(t, c.cfg, "alice-token-16-chars", "alice")
		}},
		"A2A_AUTH": {value: "jwt", check: func(t *testing.T, c components) {
			assert.Equal(t, config.AuthJWT, c.cfg.Auth)
			_, err := LocalAuthenticator(c.cfg)
			assert.ErrorContains(t, err, "A2A_AUTH=jwt", "the local server cannot verify JWTs, and says so")
		}},
		"A2A_MAX_REQUEST_BODY_BYTES": {value: "4096", check: func(t *testing.T, c components) {
			assert.EqualValues(t, 4096, c.local.MaxBodyBytes)
			assert.EqualValues(t, 4096, c.lambda.MaxBodyBytes)
		}},
		"A2A_CORS_ALLOWED_ORIGINS": {value: "https://app.example.com", check: func(t *testing.T, c components) {
			assert.Equal(t, []string{"https://app.example.com"}, c.local.CORSAllowedOrigins)
			assert.Equal(t, []string{"https://app.example.com"}, c.lambda.CORSAllowedOrigins)
		}},
		"A2A_HTTP_GZIP_MINIMUM_SIZE": {value: "0", check: func(t *testing.T, c components) {
			// httpapi's zero is its default: the configured 0 (compress
			// every body) reaches it as 1.
			assert.Equal(t, 1, c.local.GzipMinimumSize)
			assert.Equal(t, 1, c.lambda.GzipMinimumSize)
		}},
		"A2A_BLOCKING_DEFAULT": {value: "true", check: func(t *testing.T, c components) {
			assert.True(t, c.service.BlockingDefault)
		}},
		"A2A_BLOCKING_TIMEOUT_SECONDS": {value: "7", check: func(t *testing.T, c components) {
			assert.Equal(t, 7*time.Second, c.service.BlockingTimeout)
		}},
		"A2A_AGENT": {value: "second", check: func(t *testing.T, c components) {
			reg := agent.NewRegistry()
			for _, name := range []string{config.DefaultAgent, "second"} {
				reg.Register(name, func(agent.Settings) (agent.Agent, error) { return namedAgent(name), nil })
			}
			ag, err := boot.Env{Config: c.cfg, Getenv: func(string) string { return "" }}.Agent(reg)
			require.NoError(t, err)
			assert.Equal(t, "second", ag.Info().Name)
		}},
		"A2A_LOG_LEVEL": {value: "debug", check: func(t *testing.T, c components) {
			assert.True(t, boot.NewLogger(&bytes.Buffer{}, c.cfg.LogLevel).Enabled(context.Background(), slog.LevelDebug))
			assert.True(t, c.telemetry.Log.Enabled(context.Background(), slog.LevelDebug), "the summary lines' logger too")
		}},
		"A2A_METRICS": {value: "emf", check: func(t *testing.T, c components) {
			assert.NotNil(t, c.telemetry.Metrics, "outside Lambda metrics are off unless set")
		}},
		"A2A_METRICS_NAMESPACE": {value: "Custom", also: map[string]string{"A2A_METRICS": "emf"}, check: func(t *testing.T, c components) {
			assert.Contains(t, flushed(t, c), `"Namespace":"Custom"`)
		}},
		"A2A_METRICS_SERVICE": {value: "my-stack", also: map[string]string{"A2A_METRICS": "emf"}, check: func(t *testing.T, c components) {
			assert.Contains(t, flushed(t, c), `"Service":"my-stack"`)
		}},
		"A2A_METRICS_DYNAMODB": {value: "true", also: map[string]string{"A2A_METRICS": "emf"}, check: func(t *testing.T, c components) {
			assert.True(t, c.telemetry.Metrics.RecordsCapacity())
		}},
		"A2A_TRACING": {value: "off", check: func(t *testing.T, c components) {
			assert.Nil(t, c.telemetry.Tracer, "no spans, though X-Ray's daemon listens")
		}},
		"A2A_AGENT_SETTINGS": {value: `{"GREETING_MAX": 512}`, check: func(t *testing.T, c components) {
			s, err := agent.SettingsFrom(c.getenv)
			require.NoError(t, err)
			v, ok := s.Lookup("GREETING_MAX")
			assert.True(t, ok, "the agent reads the settings object")
			assert.Equal(t, "512", v)
		}},
		"A2A_LLM_API_KEY": {value: "sk-settings", check: func(t *testing.T, c components) {
			assert.Equal(t, "sk-settings", c.getenv("A2A_LLM_API_KEY"), "a value, not a reference, reaches the agent as set")
		}},
		"A2A_PROXY_TOKEN": {value: "proxy-settings", check: func(t *testing.T, c components) {
			assert.Equal(t, "proxy-settings", c.getenv("A2A_PROXY_TOKEN"), "a value, not a reference, reaches the agent as set")
		}},
		"A2A_INTERRUPT_REQUEST_TTL_SECONDS": {value: "60", check: func(t *testing.T, c components) {
			assert.Equal(t, time.Minute, c.executor.InterruptTTL)
		}},
		"A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS": {value: "0", check: func(t *testing.T, c components) {
			assert.Zero(t, c.executor.InterruptTombstoneTTL)
			assert.Equal(t, a2a.CodeInterruptRequestNotFound, lateReply(t, c), "no tombstone window: a late reply finds no interrupt")
		}},
		"A2A_TASK_LEASE_SECONDS": {value: "5", check: func(t *testing.T, c components) {
			assert.Equal(t, 5*time.Second, c.executor.LeaseDuration)
			assert.Equal(t, 5*time.Second, c.service.LeaseDuration)
		}},
		"A2A_TASK_MAX_TAKEOVERS": {value: "9", check: func(t *testing.T, c components) {
			assert.Equal(t, 9, c.executor.MaxTakeovers)
		}},
		"A2A_IDEMPOTENCY_WINDOW_SECONDS": {value: "0", check: func(t *testing.T, c components) {
			assert.True(t, c.service.NoIdempotency, "0 turns the rule off")
			assert.Zero(t, c.service.IdempotencyWindow)
		}},
		"A2A_TASK_STORE_BACKEND": {value: "dynamodb", also: dynamoEnv, check: func(t *testing.T, c components) {
			assert.Equal(t, config.BackendDynamoDB, c.lambda.Profile.StoreBackend)
		}},
		"A2A_TASK_STORE_TABLE": {value: "my-tasks", also: dynamoEnv, check: func(t *testing.T, c components) {
			assert.Equal(t, "my-tasks", c.dynamo.Table)
		}},
		"A2A_TASK_STORE_CREATE_TABLE": {value: "true", also: dynamoEnv, check: func(t *testing.T, c components) {
			assert.True(t, c.cfg.TaskStore.CreateTable, "setup.OpenDynamo reads it from the configuration")
		}},
		"A2A_TASK_TTL_SECONDS": {value: "86400", check: func(t *testing.T, c components) {
			assert.Equal(t, 24*time.Hour, c.memory.TaskTTL)
			assert.Equal(t, 24*time.Hour, c.dynamo.TaskTTL)
		}},
		"A2A_MEMORY_MAX_TASKS": {value: "12", check: func(t *testing.T, c components) {
			assert.Equal(t, 12, c.memory.MaxTasks)
		}},
		"A2A_MEMORY_MAX_BYTES": {value: "2097152", check: func(t *testing.T, c components) {
			assert.EqualValues(t, 2<<20, c.memory.MaxBytes)
		}},
		"A2A_EXECUTION": {value: "stepfunctions", also: map[string]string{"A2A_STATE_MACHINE_ARN": stateMachine}, check: func(t *testing.T, c components) {
			assert.Equal(t, config.ExecutionStepFunctions, c.lambda.Profile.ExecutionMode)
		}},
		"A2A_STATE_MACHINE_ARN": {value: stateMachine, check: func(t *testing.T, c components) {
			assert.Equal(t, config.ExecutionAuto, c.lambda.Profile.ExecutionMode, "a state machine alone means auto")
			assert.Equal(t, stateMachine, c.cfg.Execution.StateMachineARN, "httpfn's runners start its executions")
		}},
		"A2A_WORKER_FUNCTION": {value: "worker", check: func(t *testing.T, c components) {
			assert.Equal(t, "worker", c.cfg.Execution.WorkerFunction, "httpfn's asynchronous runner invokes it")
		}},
		"A2A_PUSH_NOTIFICATIONS": {value: "false", check: func(t *testing.T, c components) {
			assert.False(t, c.service.PushNotifications)
			pub, _ := c.lambda.Cards("https://agent.example.com")
			assert.False(t, pub.Capabilities.PushNotifications)
		}},
		"A2A_PUSH_ALLOW_INSECURE": {value: "true", check: func(t *testing.T, c components) {
			err := setup.PushChecker(c.cfg)(a2a.PushNotificationConfig{URL: "http://127.0.0.1:9/hook"})
			assert.NoError(t, err, "a loopback webhook is registered")
		}},
		"A2A_PUSH_SIGNING_KEYS": {value: pem, check: func(t *testing.T, c components) {
			ks, err := boot.PushKeys(c.cfg, false, nil)
			require.NoError(t, err)
			assert.Equal(t, kid, ks.KeyID())
		}},
		"A2A_PUSH_ISSUER": {value: "https://issuer.example.com", check: func(t *testing.T, c components) {
			assert.Equal(t, "https://issuer.example.com", setup.PushIssuer(c.cfg, true))
			assert.Equal(t, "https://issuer.example.com", setup.PushIssuer(c.cfg, false))
		}},
		"A2A_PUSH_MAX_ATTEMPTS": {value: "3", check: func(t *testing.T, c components) {
			assert.Equal(t, 3, c.retry.MaxAttemptsOrDefault())
		}},
		"A2A_PUSH_DELIVERY_QUEUE_URL": {value: "https://sqs.us-east-1.amazonaws.com/1/delivery", check: func(t *testing.T, c components) {
			assert.Equal(t, "https://sqs.us-east-1.amazonaws.com/1/delivery", c.cfg.Push.DeliveryQueueURL, "pushfn sends to it")
		}},
		"A2A_PUSH_DEAD_LETTER_QUEUE_URL": {value: "https://sqs.us-east-1.amazonaws.com/1/dead", check: func(t *testing.T, c components) {
			assert.Equal(t, "https://sqs.us-east-1.amazonaws.com/1/dead", c.cfg.Push.DeadLetterQueueURL, "deliverfn sends to it")
		}},
		"A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL": {value: "https://sqs.us-east-1.amazonaws.com/1/stream", check: func(t *testing.T, c components) {
			assert.Equal(t, "https://sqs.us-east-1.amazonaws.com/1/stream", c.cfg.Push.StreamDeadLetterQueueURL, "pushfn sends to it")
		}},
		"A2A_PROTOCOL_VERSIONS": {value: "1.0", check: func(t *testing.T, c components) {
			assert.Equal(t, []a2a.Version{a2a.V10}, c.local.Versions)
			assert.Equal(t, []a2a.Version{a2a.V10}, c.lambda.Versions)
		}},
		"A2A_CONSOLE": {value: "false", check: func(t *testing.T, c components) {
			assert.False(t, c.cfg.Console, "NewLocal serves the console only with it")
		}},
		"A2A_FILES_BUCKET": {value: "my-files", check: func(t *testing.T, c components) {
			assert.Equal(t, "my-files", c.cfg.Files.Bucket, "setup.Bucket opens it")
		}},
		"A2A_FILES_DIR": {value: "/var/a2a-files", check: func(t *testing.T, c components) {
			assert.Equal(t, "/var/a2a-files", c.cfg.Files.Dir, "NewLocal keeps the files there")
		}},
		"A2A_FILES_INLINE_LIMIT_BYTES": {value: "2048", check: func(t *testing.T, c components) {
			assert.Equal(t, 2048, c.files.InlineLimit())
		}},
		"A2A_FILES_URL_TTL_SECONDS": {value: "60", check: func(t *testing.T, c components) {
			assert.Equal(t, time.Minute, c.files.URLTTL())
		}},
		"A2A_FILES_MAX_UPLOAD_BYTES": {value: "1000", check: func(t *testing.T, c components) {
			assert.EqualValues(t, 1000, c.files.MaxUploadBytes())
		}},
		"A2A_FILES_EXPIRATION_DAYS": {value: "30", check: func(t *testing.T, c components) {
			assert.Equal(t, 30, c.cfg.Files.ExpirationDays, "checked against A2A_TASK_TTL_SECONDS at start")
		}},
		"A2A_MAX_PARTS": {value: "3", check: func(t *testing.T, c components) {
			assert.Equal(t, 3, c.service.MaxParts)
		}},
		"A2A_CALLER_RATE_LIMIT": {value: "5", check: func(t *testing.T, c components) {
			assert.Equal(t, 5, c.local.RateLimit.PerSecond)
			assert.Equal(t, 10, c.lambda.RateLimit.Burst, "twice the rate unless set")
		}},
		"A2A_CALLER_BURST_LIMIT": {value: "50", also: map[string]string{"A2A_CALLER_RATE_LIMIT": "5"}, check: func(t *testing.T, c components) {
			assert.Equal(t, 50, c.local.RateLimit.Burst)
			assert.Equal(t, 50, c.lambda.RateLimit.Burst)
		}},
		"A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS": {value: "2", check: func(t *testing.T, c components) {
			assert.Equal(t, 2*time.Second, c.server.ReadHeaderTimeout)
		}},
		"A2A_HTTP_READ_TIMEOUT_SECONDS": {value: "20", check: func(t *testing.T, c components) {
			assert.Equal(t, 20*time.Second, c.server.ReadTimeout)
		}},
		"A2A_HTTP_IDLE_TIMEOUT_SECONDS": {value: "4", check: func(t *testing.T, c components) {
			assert.Equal(t, 4*time.Second, c.server.IdleTimeout)
		}},
		"A2A_HTTP_MAX_CONNECTIONS": {value: "5", check: func(t *testing.T, c components) {
			hc, err := config.LoadHTTP(env(map[string]string{"A2A_HTTP_MAX_CONNECTIONS": "5"}))
			require.NoError(t, err)
			assert.Equal(t, 5, hc.MaxConnections, "RunLocal limits its listener to it")
		}},
	}
}

// Every A2A_* setting the start-up reads (boot.ResolveSecrets, config.Load,
// config.LoadHTTP and telemetry.ForLambda, as the binaries call them) has
// a row here: set to a value other than its default, it reaches the
// component that uses it unchanged, built by the functions the binaries
// build it with. An agent's own settings (agent.Settings: A2A_LLM_*,
// A2A_PROXY_*, A2A_DEMO_*, ...) are read, with their defaults, by that
// agent alone, and tested in its package.
func TestEverySettingReachesItsComponent(t *testing.T) {
	rows := settingRows(t)
	read := map[string]bool{}
	spy := func(values map[string]string) func(string) string {
		return func(name string) string {
			if strings.HasPrefix(name, "A2A_") {
				read[name] = true
			}
			return values[name]
		}
	}
	build(t, spy(nil))

	names := make([]string, 0, len(rows))
	for name := range rows {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		row := rows[name]
		t.Run(name, func(t *testing.T) {
			values := map[string]string{name: row.value}
			for k, v := range row.also {
				if k != name {
					values[k] = v
				}
			}
			row.check(t, build(t, spy(values)))
		})
	}
	for name := range read {
		_, ok := rows[name]
		assert.True(t, ok, "the configuration reads %s, but no row checks that it reaches its component", name)
	}
	for _, name := range names {
		assert.True(t, read[name], "a row checks %s, which the configuration no longer reads", name)
	}
	// Unset, the components see the configuration's defaults: the
	// tombstone window is config.DefaultInterruptTombstone.
	c := build(t, spy(nil))
	assert.NotNil(t, c.telemetry.Tracer, "spans go to X-Ray's daemon unless A2A_TRACING=off")
	assert.Equal(t, config.DefaultInterruptTombstone, c.executor.InterruptTombstoneTTL)
	assert.Equal(t, a2a.CodeInterruptRequestExpired, lateReply(t, c), "within the tombstone window, a late reply is told the interrupt expired")
}

// withXRay is getenv with X-Ray's daemon address set, as Lambda sets it
// when the function's tracing is active.
func withXRay(getenv func(string) string) func(string) string {
	return func(name string) string {
		if name == "AWS_XRAY_DAEMON_ADDRESS" {
			return "127.0.0.1:2000"
		}
		return getenv(name)
	}
}

// flushed is the EMF line of one metric written through c's telemetry.
func flushed(t *testing.T, c components) string {
	t.Helper()
	require.NotNil(t, c.telemetry.Metrics)
	c.telemetry.Metrics.Count("Settings")
	require.NoError(t, c.telemetry.Metrics.Flush())
	return c.metrics.String()
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// lateReply asks a question on an executor and service built from c, and
// returns the code of the reply a second after the interrupt's window.
func lateReply(t *testing.T, c components) a2a.Code {
	t.Helper()
	clk := clocktest.New(clocktest.Start(t))
	st := memory.New(memoryOptions(c.cfg, clk))
	o := setup.Executor(c.cfg, clk, nil, nil)
	exec := engine.NewExecutor(st, asking{}, o)
	runner := local.New(exec, local.Options{Clock: clk})
	svc := service.New(st, runner, asking{}.Info(), setup.Service(c.cfg), service.Options{Clock: clk})
	blocking := true
	task, err := svc.SendMessage(context.Background(), "alice", a2a.MessageSendParams{
		Message:       a2a.Message{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("ask me")}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateInputRequired, task.Status.State)
	id, _ := task.Status.Message.Metadata.Object("shared").Object("interrupt")["request_id"].(string)
	require.NotEmpty(t, id)
	// The local runner would fail the task when the clock passes the
	// window: stop it, so that only the interrupt's binding answers.
	runner.Close()
	clk.Advance(o.InterruptTTL + time.Second)
	_, err = svc.ReplyQuestion(context.Background(), "alice", a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"red"}}})
	var ae *a2a.Error
	require.True(t, errors.As(err, &ae), "a late reply is refused with an A2A error, got %v", err)
	return ae.Code
}

// asking asks a question, and completes with the reply.
type asking struct{}

func (asking) Info() agent.Info {
	return agent.Info{Name: "asking", OutputModes: []string{"text/plain"}}
}

func (asking) Step(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	if in.Reply != nil {
		return agent.Complete(agent.Text("answer: " + in.Reply.Text)), nil
	}
	return agent.AskQuestion(agent.Text("Which colour?"), map[string]any{"questions": []string{"Which colour?"}}), nil
}

// namedAgent is an agent that only has a name.
type namedAgent string

func (n namedAgent) Info() agent.Info { return agent.Info{Name: string(n)} }

func (namedAgent) Step(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
	return agent.Complete(agent.Text("done")), nil
}

// assertAdmits checks that the local server's authenticator admits a
// request bearing token as the caller owner.
func assertAdmits(t *testing.T, cfg config.Config, token, owner string) {
	t.Helper()
	authn, err := LocalAuthenticator(cfg)
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	id, err := authn.Authenticate(r)
	require.NoError(t, err)
	assert.Equal(t, owner, id.Owner)
}
