package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, err := Load(env(nil))
	require.NoError(t, err)
	assert.Equal(t, Config{
		Host: "127.0.0.1", Port: 8000, PublicURL: "http://127.0.0.1:8000", Tokens: map[string]string{},
		MaxRequestBodyBytes: 5 << 20, GzipMinimumSize: 8192, BlockingDefault: false, BlockingTimeout: 25 * time.Second,
		Agent: "demo", LogLevel: slog.LevelInfo, InterruptTTL: 3 * time.Hour, InterruptTombstoneTTL: 10 * time.Minute,
		TaskStore: TaskStore{Backend: BackendMemory, TTL: 7 * 24 * time.Hour, MaxTasks: 10000, MaxBytes: 256 << 20},
		Execution: Execution{Mode: ExecutionInline}, Auth: AuthBearer,
		Push: Push{Enabled: true, MaxAttempts: 10}, ProtocolVersions: []a2a.Version{a2a.V03, a2a.V10},
		LeaseDuration: time.Minute, MaxTakeovers: 2, IdempotencyWindow: 24 * time.Hour, Console: true,
		Files:    Files{Dir: filepath.Join(os.TempDir(), "a2a-lambda-files"), InlineLimit: 32 << 10, URLTTL: 15 * time.Minute, MaxUploadBytes: 100 << 20},
		MaxParts: 100,
	}, c)
	assert.True(t, c.Loopback())
	h, err := LoadHTTP(env(nil))
	require.NoError(t, err)
	assert.Equal(t, HTTP{ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxConnections: 256}, h)
}

func TestFiles(t *testing.T) {
	c, err := Load(env(map[string]string{"A2A_FILES_BUCKET": "my-files.example", "A2A_FILES_DIR": "/var/a2a", "A2A_FILES_INLINE_LIMIT_BYTES": "4096",
		"A2A_FILES_URL_TTL_SECONDS": "60", "A2A_FILES_MAX_UPLOAD_BYTES": "1000", "A2A_MAX_PARTS": "5"}))
	require.NoError(t, err)
	assert.Equal(t, Files{Bucket: "my-files.example", Dir: "/var/a2a", InlineLimit: 4096, URLTTL: time.Minute, MaxUploadBytes: 1000}, c.Files)
	_, err = Load(env(map[string]string{"A2A_TASK_TTL_SECONDS": "691200", "A2A_FILES_EXPIRATION_DAYS": "8"}))
	assert.NoError(t, err, "8 days hold an 8-day TTL")
	_, err = Load(env(map[string]string{"A2A_TASK_TTL_SECONDS": "691201", "A2A_FILES_EXPIRATION_DAYS": "8"}))
	assert.ErrorContains(t, err, `A2A_FILES_EXPIRATION_DAYS="8": must be at least A2A_TASK_TTL_SECONDS (691201) in days`)
	assert.Equal(t, 5, c.MaxParts)
	for name, bad := range map[string]string{
		"A2A_FILES_BUCKET": "My_Bucket", "A2A_FILES_INLINE_LIMIT_BYTES": "100", "A2A_FILES_URL_TTL_SECONDS": "604801",
		"A2A_FILES_MAX_UPLOAD_BYTES": "0", "A2A_MAX_PARTS": "0",
	} {
		_, err := Load(env(map[string]string{name: bad}))
		assert.ErrorContains(t, err, name+"=", "%s=%s is refused naming the variable", name, bad)
	}
}

func TestProtocolVersions(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  []a2a.Version
		err   string
	}{
		{"", []a2a.Version{a2a.V03, a2a.V10}, ""},
		{"1.0", []a2a.Version{a2a.V10}, ""},
		{"0.3", []a2a.Version{a2a.V03}, ""},
		{" 1.0 , 0.3 ", []a2a.Version{a2a.V03, a2a.V10}, ""},
		{"0.3,0.3", []a2a.Version{a2a.V03}, ""},
		{"2.0", nil, `A2A_PROTOCOL_VERSIONS="2.0": must list 0.3, 1.0 or both (0.3,1.0)`},
		{"1.0,", nil, `A2A_PROTOCOL_VERSIONS="1.0,": must list`},
	} {
		c, err := Load(env(map[string]string{"A2A_PROTOCOL_VERSIONS": tt.value}))
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err, tt.value)
			continue
		}
		require.NoError(t, err, tt.value)
		assert.Equal(t, tt.want, c.ProtocolVersions, tt.value)
	}
}

func TestValues(t *testing.T) {
	c, err := Load(env(map[string]string{
		"A2A_HOST": "0.0.0.0", "A2A_PORT": "9000", "A2A_PUBLIC_URL": "https://agent.example.com/",
		"A2A_BEARER_TOKEN": "token-0-of-16-ch", "A2A_BEARER_TOKENS": "alice:token-1-of-16-ch, bob : token-2-of-16-ch",
		"A2A_MAX_REQUEST_BODY_BYTES": "2048", "A2A_BLOCKING_DEFAULT": "true", "A2A_BLOCKING_TIMEOUT_SECONDS": "5",
		"A2A_AGENT": "echo", "A2A_LOG_LEVEL": "debug", "A2A_HTTP_GZIP_MINIMUM_SIZE": "0",
		"A2A_TASK_LEASE_SECONDS": "5", "A2A_TASK_MAX_TAKEOVERS": "7",
		"A2A_CORS_ALLOWED_ORIGINS": " https://App.Example.com, http://localhost:3000 ,https://app.example.com",
	}))
	require.NoError(t, err)
	assert.Equal(t, "https://agent.example.com", c.PublicURL, "trailing slash dropped")
	assert.Equal(t, map[string]string{"default": "token-0-of-16-ch", "alice": "token-1-of-16-ch", "bob": "token-2-of-16-ch"}, c.Tokens)
	assert.EqualValues(t, 2048, c.MaxRequestBodyBytes)
	assert.Zero(t, c.GzipMinimumSize, "0 compresses every response a client accepts gzip for")
	assert.True(t, c.BlockingDefault)
	assert.Equal(t, 5*time.Second, c.BlockingTimeout)
	assert.Equal(t, slog.LevelDebug, c.LogLevel)
	assert.Equal(t, 5*time.Second, c.LeaseDuration)
	assert.Equal(t, 7, c.MaxTakeovers)
	assert.False(t, c.Loopback())
	h, err := LoadHTTP(env(map[string]string{
		"A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS": "2", "A2A_HTTP_READ_TIMEOUT_SECONDS": "3", "A2A_HTTP_IDLE_TIMEOUT_SECONDS": "4", "A2A_HTTP_MAX_CONNECTIONS": "5",
	}))
	require.NoError(t, err)
	assert.Equal(t, HTTP{ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 3 * time.Second, IdleTimeout: 4 * time.Second, MaxConnections: 5}, h)
	assert.Equal(t, []string{"https://app.example.com", "http://localhost:3000"}, c.CORSAllowedOrigins, "lower case, once each")
	c, err = Load(env(map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "*"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"*"}, c.CORSAllowedOrigins)

	// A read timeout shorter than the default header timeout bounds both.
	h, err = LoadHTTP(env(map[string]string{"A2A_HTTP_READ_TIMEOUT_SECONDS": "5"}))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, h.ReadHeaderTimeout)
}

func TestAuthMode(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{nil, AuthBearer},
		{map[string]string{"A2A_AUTH": "JWT"}, AuthJWT},
		{map[string]string{"A2A_AUTH": "bearer", "A2A_BEARER_TOKEN": "a-token-of-16-ch"}, AuthBearer},
	} {
		c, err := Load(env(tt.env))
		require.NoError(t, err, tt.env)
		assert.Equal(t, tt.want, c.Auth, tt.env)
	}
}

func TestExecutionMode(t *testing.T) {
	arn := "arn:aws:states:us-east-1:123456789012:stateMachine:tasks"
	for _, tt := range []struct {
		env  map[string]string
		want Execution
	}{
		{nil, Execution{Mode: ExecutionInline}},
		{map[string]string{"A2A_STATE_MACHINE_ARN": arn}, Execution{Mode: ExecutionAuto, StateMachineARN: arn}},
		{map[string]string{"A2A_STATE_MACHINE_ARN": arn, "A2A_EXECUTION": "StepFunctions"}, Execution{Mode: ExecutionStepFunctions, StateMachineARN: arn}},
		{map[string]string{"A2A_STATE_MACHINE_ARN": arn, "A2A_EXECUTION": "inline"}, Execution{Mode: ExecutionInline, StateMachineARN: arn}},
	} {
		c, err := Load(env(tt.env))
		require.NoError(t, err, tt.env)
		assert.Equal(t, tt.want, c.Execution, tt.env)
	}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"A2A_PORT": "http"}, `A2A_PORT="http": must be an integer from 1 to 65535`},
		{map[string]string{"A2A_PORT": "0"}, `A2A_PORT="0"`},
		{map[string]string{"A2A_MAX_REQUEST_BODY_BYTES": "10"}, `A2A_MAX_REQUEST_BODY_BYTES="10": must be an integer from 1024`},
		{map[string]string{"A2A_BLOCKING_DEFAULT": "maybe"}, `A2A_BLOCKING_DEFAULT="maybe": must be true or false`},
		{map[string]string{"A2A_BLOCKING_TIMEOUT_SECONDS": "-1"}, `A2A_BLOCKING_TIMEOUT_SECONDS="-1"`},
		{map[string]string{"A2A_LOG_LEVEL": "loud"}, `A2A_LOG_LEVEL="loud": must be debug, info, warn or error`},
		{map[string]string{"A2A_INTERRUPT_REQUEST_TTL_SECONDS": "0"}, `A2A_INTERRUPT_REQUEST_TTL_SECONDS="0": must be an integer from 1`},
		{map[string]string{"A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS": "-1"}, `A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS="-1"`},
		{map[string]string{"A2A_EXECUTION": "lambda"}, `A2A_EXECUTION="lambda": must be auto, inline or stepfunctions`},
		{map[string]string{"A2A_EXECUTION": "stepfunctions"}, `A2A_EXECUTION=stepfunctions needs A2A_STATE_MACHINE_ARN`},
		{map[string]string{"A2A_STATE_MACHINE_ARN": "my-machine"}, `A2A_STATE_MACHINE_ARN="my-machine": must be a state machine ARN`},
		{map[string]string{"A2A_PUBLIC_URL": "agent.example.com"}, `A2A_PUBLIC_URL="agent.example.com": must be an absolute http(s) URL`},
		{map[string]string{"A2A_PUBLIC_URL": "https://x/?a=1"}, `A2A_PUBLIC_URL`},
		{map[string]string{"A2A_BEARER_TOKENS": "alice"}, `A2A_BEARER_TOKENS: entry "***" must be name:token`},
		{map[string]string{"A2A_BEARER_TOKENS": "alice:secret,bob:"}, `entry "bob:***" must be name:token`},
		{map[string]string{"A2A_BEARER_TOKENS": "alice:a,alice:b"}, `caller "alice" or its token is given twice`},
		{map[string]string{"A2A_BEARER_TOKENS": "alice:same,bob:same"}, `caller "bob" or its token is given twice`},
		{map[string]string{"A2A_BEARER_TOKEN": "same", "A2A_BEARER_TOKENS": "bob:same"}, `caller "bob" or its token is given twice`},
		{map[string]string{"A2A_AUTH": "oauth"}, `A2A_AUTH="oauth": must be bearer or jwt`},
		{map[string]string{"A2A_BEARER_TOKEN": "pass word"}, `A2A_BEARER_TOKEN: the token of caller "default" has characters a bearer token cannot carry`},
		{map[string]string{"A2A_BEARER_TOKENS": "bob:s3cret!"}, `A2A_BEARER_TOKENS: the token of caller "bob" has characters`},
		{map[string]string{"A2A_BEARER_TOKEN": "t"}, `A2A_BEARER_TOKEN: the token of caller "default" is too short (1 characters, at least 16)`},
		{map[string]string{"A2A_BEARER_TOKENS": "bob:fifteen-chars15"}, `A2A_BEARER_TOKENS: the token of caller "bob" is too short (15 characters, at least 16)`},
		{map[string]string{"A2A_BEARER_TOKENS": "anonymous:a-token-of-16-ch"}, `A2A_BEARER_TOKENS: the caller name "anonymous" is reserved`},
		{map[string]string{"A2A_MEMORY_MAX_TASKS": "0"}, `A2A_MEMORY_MAX_TASKS="0": must be an integer from 1`},
		{map[string]string{"A2A_MEMORY_MAX_BYTES": "1000"}, `A2A_MEMORY_MAX_BYTES="1000": must be an integer from 1048576`},
		{map[string]string{"A2A_TASK_LEASE_SECONDS": "0"}, `A2A_TASK_LEASE_SECONDS="0": must be an integer from 1 to 3600`},
		{map[string]string{"A2A_TASK_MAX_TAKEOVERS": "none"}, `A2A_TASK_MAX_TAKEOVERS="none": must be an integer from 1 to 100`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "https://app.example.com/"}, `"https://app.example.com/" is not a web origin`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "app.example.com"}, `"app.example.com" is not a web origin`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "https://app.example.com/path"}, `is not a web origin`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "ftp://app.example.com"}, `is not a web origin`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "https://u@app.example.com"}, `is not a web origin`},
		{map[string]string{"A2A_CORS_ALLOWED_ORIGINS": "https://a.example.com,*"}, `"*" allows every origin: give it alone`},
		{map[string]string{"A2A_AUTH": "jwt", "A2A_BEARER_TOKEN": "secret"}, `A2A_AUTH=jwt identifies callers by API Gateway's JWT authorizer: unset A2A_BEARER_TOKEN`},
		{map[string]string{"A2A_CALLER_RATE_LIMIT": "-1"}, `A2A_CALLER_RATE_LIMIT="-1": must be an integer from 0`},
		{map[string]string{"A2A_CALLER_RATE_LIMIT": "5", "A2A_CALLER_BURST_LIMIT": "0"}, `A2A_CALLER_BURST_LIMIT="0": must be an integer from 1`},
	}
	for _, tt := range tests {
		_, err := Load(env(tt.env))
		require.Error(t, err, tt.env)
		assert.Contains(t, err.Error(), tt.want)
		assert.NotContains(t, err.Error(), "secret", "tokens never appear in errors")
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"A2A_HTTP_READ_TIMEOUT_SECONDS": "0"}, `A2A_HTTP_READ_TIMEOUT_SECONDS="0": must be an integer from 1 to 3600`},
		{map[string]string{"A2A_HTTP_MAX_CONNECTIONS": "none"}, `A2A_HTTP_MAX_CONNECTIONS="none"`},
		{map[string]string{"A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS": "20", "A2A_HTTP_READ_TIMEOUT_SECONDS": "10"}, `A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS="20": must be at most A2A_HTTP_READ_TIMEOUT_SECONDS (10)`},
	} {
		_, err := LoadHTTP(env(tt.env))
		assert.ErrorContains(t, err, tt.want)
	}
	_, err := Load(env(map[string]string{"A2A_PORT": "x", "A2A_LOG_LEVEL": "y"}))
	assert.ErrorContains(t, err, "A2A_PORT")
	assert.ErrorContains(t, err, "A2A_LOG_LEVEL", "every bad variable is reported at once")
}

// A stack whose interrupts outlive its tasks deploys (CloudFormation Rules
// cannot compare two parameters): it starts, with the interrupt TTL clamped
// to the task's and one warning naming both, instead of refusing to start.
func TestInterruptTTLClampedToTaskTTL(t *testing.T) {
	for _, tt := range []struct {
		name     string
		env      map[string]string
		want     time.Duration
		warnings int
	}{
		{"both set, interrupt above task", map[string]string{"A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "10800"}, time.Hour, 1},
		{"default interrupt TTL above a short task TTL", map[string]string{"A2A_TASK_TTL_SECONDS": "3600"}, time.Hour, 0},
		{"interrupt within the task TTL", map[string]string{"A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "600"}, 10 * time.Minute, 0},
		{"equal", map[string]string{"A2A_TASK_TTL_SECONDS": "3600", "A2A_INTERRUPT_REQUEST_TTL_SECONDS": "3600"}, time.Hour, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(tt.env))
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.InterruptTTL)
			require.Len(t, c.Warnings, tt.warnings)
			if tt.warnings > 0 {
				assert.Contains(t, c.Warnings[0], "A2A_INTERRUPT_REQUEST_TTL_SECONDS=10800")
				assert.Contains(t, c.Warnings[0], "A2A_TASK_TTL_SECONDS=3600")
			}
		})
	}
}

func TestCallerRateLimit(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want RateLimit
	}{
		{map[string]string{"A2A_CALLER_RATE_LIMIT": "10"}, RateLimit{PerSecond: 10, Burst: 20}},
		{map[string]string{"A2A_CALLER_RATE_LIMIT": "10", "A2A_CALLER_BURST_LIMIT": "15"}, RateLimit{PerSecond: 10, Burst: 15}},
		{map[string]string{"A2A_CALLER_RATE_LIMIT": "0", "A2A_CALLER_BURST_LIMIT": "20"}, RateLimit{}},
	} {
		c, err := Load(env(tt.env))
		require.NoError(t, err, tt.env)
		assert.Equal(t, tt.want, c.CallerRateLimit, tt.env)
	}
}
