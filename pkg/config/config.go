// Package config reads the server's settings from the environment. Every
// setting has a default that suits `make run`, declared here and nowhere
// else (the Default* constants: a component whose option is left zero
// takes the constant, and the configuration passes every value it
// accepts unchanged); a bad value stops start-up with a message that
// names the variable.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
)

// Config is every setting of the server.
type Config struct {
	// Host and Port are the local server's bind address (A2A_HOST, A2A_PORT).
	Host string
	Port int
	// PublicURL is the base URL advertised by the agent card (A2A_PUBLIC_URL).
	PublicURL string
	// Tokens maps caller names to bearer tokens (A2A_BEARER_TOKEN is the
	// caller "default"; A2A_BEARER_TOKENS=name:token,...). Empty: no auth.
	Tokens map[string]string
	// MaxRequestBodyBytes bounds request bodies (A2A_MAX_REQUEST_BODY_BYTES).
	MaxRequestBodyBytes int64
	// CORSAllowedOrigins are the web origins whose pages may call the
	// agent (A2A_CORS_ALLOWED_ORIGINS): scheme://host[:port] in lower
	// case, or "*" alone for any. Empty: none.
	CORSAllowedOrigins []string
	// GzipMinimumSize is the smallest non-streaming response body sent
	// gzip-compressed to clients that accept it (A2A_HTTP_GZIP_MINIMUM_SIZE).
	GzipMinimumSize int
	// BlockingDefault applies to message/send without configuration.blocking
	// (A2A_BLOCKING_DEFAULT).
	BlockingDefault bool
	// BlockingTimeout bounds a blocking send's wait
	// (A2A_BLOCKING_TIMEOUT_SECONDS).
	BlockingTimeout time.Duration
	// Agent names the registered agent to serve (A2A_AGENT).
	Agent string
	// LogLevel is the minimum level of the JSON logs (A2A_LOG_LEVEL).
	LogLevel slog.Level
	// InterruptTTL is how long an interrupt accepts replies
	// (A2A_INTERRUPT_REQUEST_TTL_SECONDS).
	InterruptTTL time.Duration
	// InterruptTombstoneTTL is how long, after that, a late reply is told
	// the interrupt expired rather than not found
	// (A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS); 0 keeps no tombstone:
	// a late reply is told the interrupt was not found.
	InterruptTombstoneTTL time.Duration
	// ConfiguredPublicURL is A2A_PUBLIC_URL as set, or empty: the Lambda
	// functions then derive the URL from each request, while PublicURL
	// defaults to the local bind address.
	ConfiguredPublicURL string
	// TaskStore says where tasks are kept.
	TaskStore TaskStore
	// AWS says how to reach AWS when a setting needs it.
	AWS AWS
	// Execution says where the Lambda functions run tasks' steps
	// (A2A_EXECUTION; the local server always runs them in goroutines).
	Execution Execution
	// Auth says how callers are identified (A2A_AUTH): AuthBearer or
	// AuthJWT.
	Auth string
	// Push holds the push notification settings.
	Push Push
	// ProtocolVersions are the A2A versions served (A2A_PROTOCOL_VERSIONS):
	// a2a.V03, a2a.V10 or both, in that order.
	ProtocolVersions []a2a.Version
	// LeaseDuration is how long a runner holds a task without renewing its
	// lease (A2A_TASK_LEASE_SECONDS); MaxTakeovers is how many times a task
	// whose runner died is started again before it is failed
	// (A2A_TASK_MAX_TAKEOVERS).
	LeaseDuration time.Duration
	MaxTakeovers  int
	// IdempotencyWindow is how long a message id stays its message's
	// (A2A_IDEMPOTENCY_WINDOW_SECONDS): a send of the same id and message
	// within it is a retry, of another message refused; 0 turns the rule
	// off (every send is a new message).
	IdempotencyWindow time.Duration
	// Console serves the web console at /console/ on the local server
	// (A2A_CONSOLE; the Lambda functions have none).
	Console bool
	// Files says where large content parts are kept.
	Files Files
	// MaxParts bounds the parts of a message (A2A_MAX_PARTS).
	MaxParts int
	// CallerRateLimit is each caller's request budget on the A2A routes
	// (A2A_CALLER_RATE_LIMIT requests a second, A2A_CALLER_BURST_LIMIT at
	// once); PerSecond 0 sets none.
	CallerRateLimit RateLimit
	// Warnings are the settings Load corrected rather than refused, each
	// naming the variables and what was used instead: every binary logs
	// them at start (a stack that deploys must start).
	Warnings []string
}

// RateLimit is a request budget: a bucket of Burst requests refilled at
// PerSecond.
type RateLimit struct {
	PerSecond int
	Burst     int
}

// HTTP is how long the local server waits for a client, and how many it
// serves at once: a client that promises a body and never sends it holds
// a connection until ReadTimeout, and no more than MaxConnections are held.
type HTTP struct {
	// ReadHeaderTimeout bounds reading a request's headers
	// (A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, headers and body
	// (A2A_HTTP_READ_TIMEOUT_SECONDS); the answer may take longer (a
	// blocking send waits up to BlockingTimeout).
	ReadTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection waits for its next
	// request (A2A_HTTP_IDLE_TIMEOUT_SECONDS).
	IdleTimeout time.Duration
	// MaxConnections bounds the connections served at once
	// (A2A_HTTP_MAX_CONNECTIONS); more wait to be accepted.
	MaxConnections int
}

// DefaultProtocolVersions serves both versions, with the union card.
const DefaultProtocolVersions = string(a2a.V03) + "," + string(a2a.V10)

// Authentication modes (A2A_AUTH).
const (
	// AuthBearer identifies callers by the bearer tokens of
	// A2A_BEARER_TOKEN and A2A_BEARER_TOKENS.
	AuthBearer = "bearer"
	// AuthJWT identifies callers by the sub claim of the JWT that API
	// Gateway's JWT authorizer verified (deployed stacks only).
	AuthJWT = "jwt"
)

// SecretVariables are the variables that hold secrets, or may: the agent
// settings (A2A_AGENT_SETTINGS, agent.EnvSettings) are a JSON object that
// may hold some. Each of them may name where its value is kept instead of
// holding it: ssm:<parameter name> (an SSM SecureString) or
// secretsmanager:<secret name or ARN>. The Lambda functions resolve such
// references once, at cold start, before Load reads the configuration (see
// pkg/internal/secrets).
func SecretVariables() []string {
	return []string{"A2A_BEARER_TOKEN", "A2A_BEARER_TOKENS", "A2A_PUSH_SIGNING_KEYS", "A2A_LLM_API_KEY", "A2A_PROXY_TOKEN", "A2A_AGENT_SETTINGS"}
}

// Execution modes of the Lambda functions.
const (
	// ExecutionAuto runs a blocking send's first steps in the request, a
	// non-blocking send's first step in the worker (an asynchronous
	// invocation), and hands what continues or waits to Step Functions.
	ExecutionAuto = "auto"
	// ExecutionInline runs steps in requests only (sam local): a
	// non-blocking send's task awaits execution.
	ExecutionInline = "inline"
	// ExecutionStepFunctions runs no step in a request: a task's first
	// step runs in the worker (an asynchronous invocation), and what
	// continues or waits on Step Functions.
	ExecutionStepFunctions = "stepfunctions"
)

// Execution is the execution mode and its state machine.
type Execution struct {
	// Mode is auto, inline or stepfunctions.
	Mode string
	// StateMachineARN is the state machine (A2A_STATE_MACHINE_ARN), needed
	// by auto and stepfunctions.
	StateMachineARN string
	// WorkerFunction is the worker function's name or ARN
	// (A2A_WORKER_FUNCTION), which runs the steps no request runs: the
	// functions that start tasks (send, sweep) need it in auto and
	// stepfunctions modes.
	WorkerFunction string
}

// TaskStore is where tasks are kept.
type TaskStore struct {
	// Backend is memory or dynamodb (A2A_TASK_STORE_BACKEND).
	Backend string
	// Table is the DynamoDB table (A2A_TASK_STORE_TABLE).
	Table string
	// CreateTable creates the table at start-up when it is missing
	// (A2A_TASK_STORE_CREATE_TABLE).
	CreateTable bool
	// TTL is how long a task lives after its last update
	// (A2A_TASK_TTL_SECONDS).
	TTL time.Duration
	// MaxTasks bounds the tasks the memory backend keeps
	// (A2A_MEMORY_MAX_TASKS).
	MaxTasks int
	// MaxBytes bounds the bytes the memory backend's tasks take
	// (A2A_MEMORY_MAX_BYTES).
	MaxBytes int64
}

// AWS holds the standard AWS settings the server reads itself.
type AWS struct {
	// Region is AWS_REGION (or AWS_DEFAULT_REGION).
	Region string
	// EndpointURL is AWS_ENDPOINT_URL: a local stand-in such as moto.
	EndpointURL string
	// LambdaEndpointURL is AWS_ENDPOINT_URL_LAMBDA: Lambda's API (the
	// asynchronous path's invocations) somewhere else than EndpointURL.
	LambdaEndpointURL string
}

// Task store backends.
const (
	BackendMemory   = "memory"
	BackendDynamoDB = "dynamodb"
)

// Defaults.
const (
	DefaultHost                = "127.0.0.1"
	DefaultPort                = 8000
	DefaultMaxRequestBodyBytes = 5 << 20 // Lambda takes 6 MB: room for the event around the body
	DefaultGzipMinimumSize     = 8192
	DefaultBlockingTimeout     = 25 * time.Second
	DefaultAgent               = "demo"
	DefaultTokenName           = "default"
	DefaultInterruptTTL        = 10800 * time.Second
	DefaultInterruptTombstone  = 600 * time.Second
	DefaultTaskTTL             = 7 * 24 * time.Hour
	DefaultLeaseDuration       = 60 * time.Second
	DefaultIdempotencyWindow   = 24 * time.Hour
	DefaultMaxTakeovers        = 2
	DefaultMemoryMaxTasks      = 10000
	DefaultMemoryMaxBytes      = 256 << 20
	DefaultReadHeaderTimeout   = 10 * time.Second
	DefaultReadTimeout         = 30 * time.Second
	DefaultIdleTimeout         = 120 * time.Second
	DefaultMaxConnections      = 256
	maxTaskTTLSeconds          = 366 * 24 * 3600
)

// Load reads the configuration through getenv (os.Getenv in binaries, a map
// in tests). It reports every bad variable at once.
func Load(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	c := Config{
		Host:                r.str("A2A_HOST", DefaultHost),
		Port:                r.intRange("A2A_PORT", DefaultPort, 1, 65535),
		MaxRequestBodyBytes: int64(r.intRange("A2A_MAX_REQUEST_BODY_BYTES", DefaultMaxRequestBodyBytes, 1024, 64<<20)),
		GzipMinimumSize:     r.intRange("A2A_HTTP_GZIP_MINIMUM_SIZE", DefaultGzipMinimumSize, 0, 1<<30),
		BlockingDefault:     r.boolean("A2A_BLOCKING_DEFAULT", false),
		BlockingTimeout:     r.seconds("A2A_BLOCKING_TIMEOUT_SECONDS", DefaultBlockingTimeout, 1, 900),
		Agent:               r.str("A2A_AGENT", DefaultAgent),
		LogLevel:            r.level("A2A_LOG_LEVEL", slog.LevelInfo),
		// Step Functions' task timeout is at most a year; a day of tombstone is plenty.
		InterruptTTL:          r.seconds("A2A_INTERRUPT_REQUEST_TTL_SECONDS", DefaultInterruptTTL, 1, 365*24*3600),
		InterruptTombstoneTTL: r.seconds("A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS", DefaultInterruptTombstone, 0, 24*3600),
		LeaseDuration:         r.seconds("A2A_TASK_LEASE_SECONDS", DefaultLeaseDuration, 1, 3600),
		MaxTakeovers:          r.intRange("A2A_TASK_MAX_TAKEOVERS", DefaultMaxTakeovers, 1, 100),
		IdempotencyWindow:     r.seconds("A2A_IDEMPOTENCY_WINDOW_SECONDS", DefaultIdempotencyWindow, 0, 366*24*3600),
	}
	c.ConfiguredPublicURL = r.publicURL("A2A_PUBLIC_URL", "")
	c.PublicURL = cmp.Or(c.ConfiguredPublicURL, "http://"+net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	c.Tokens = r.tokens()
	c.TaskStore, c.AWS = r.taskStore()
	if c.InterruptTTL > c.TaskStore.TTL {
		// CloudFormation Rules cannot compare two numbers, so a stack
		// whose interrupts outlive its tasks deploys: refusing it here
		// would be an outage. The task's TTL wins (a task must not expire
		// while its interrupt waits); the default says nothing.
		if strings.TrimSpace(getenv("A2A_INTERRUPT_REQUEST_TTL_SECONDS")) != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("A2A_INTERRUPT_REQUEST_TTL_SECONDS=%d is above A2A_TASK_TTL_SECONDS=%d: interrupts accept replies for %d s, so that no task expires while its interrupt waits (lower A2A_INTERRUPT_REQUEST_TTL_SECONDS, or raise A2A_TASK_TTL_SECONDS)",
				int(c.InterruptTTL/time.Second), int(c.TaskStore.TTL/time.Second), int(c.TaskStore.TTL/time.Second)))
		}
		c.InterruptTTL = c.TaskStore.TTL
	}
	c.CORSAllowedOrigins = r.origins("A2A_CORS_ALLOWED_ORIGINS")
	c.CallerRateLimit = r.callerRateLimit()
	c.Execution = r.execution()
	c.Auth = r.auth(c.Tokens)
	c.Push = r.push()
	c.ProtocolVersions = r.protocolVersions()
	c.Console = r.boolean("A2A_CONSOLE", true)
	c.Files = r.files(c.TaskStore.TTL)
	c.MaxParts = r.intRange("A2A_MAX_PARTS", DefaultMaxParts, 1, 10_000)
	return c, errors.Join(r.errs...)
}

// callerRateLimit reads A2A_CALLER_RATE_LIMIT and A2A_CALLER_BURST_LIMIT
// (twice the rate when unset). With no rate there is no limit, whatever
// the burst (the template passes both: CallerRateLimit=0 turns it off).
func (r *reader) callerRateLimit() RateLimit {
	rate := r.intRange("A2A_CALLER_RATE_LIMIT", 0, 0, 1_000_000)
	burst := r.intRange("A2A_CALLER_BURST_LIMIT", 2*max(rate, 1), 1, 10_000_000)
	if rate == 0 {
		return RateLimit{}
	}
	return RateLimit{PerSecond: rate, Burst: burst}
}

// LoadHTTP reads the local server's connection limits (the Lambda
// functions have none: API Gateway holds the connections), reporting every
// bad variable at once.
func LoadHTTP(getenv func(string) string) (HTTP, error) {
	r := reader{getenv: getenv}
	h := r.http()
	return h, errors.Join(r.errs...)
}

// http reads the local server's connection limits.
func (r *reader) http() HTTP {
	h := HTTP{
		ReadHeaderTimeout: r.seconds("A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS", DefaultReadHeaderTimeout, 1, 3600),
		ReadTimeout:       r.seconds("A2A_HTTP_READ_TIMEOUT_SECONDS", DefaultReadTimeout, 1, 3600),
		IdleTimeout:       r.seconds("A2A_HTTP_IDLE_TIMEOUT_SECONDS", DefaultIdleTimeout, 1, 3600),
		MaxConnections:    r.intRange("A2A_HTTP_MAX_CONNECTIONS", DefaultMaxConnections, 1, 100_000),
	}
	if h.ReadHeaderTimeout > h.ReadTimeout {
		if strings.TrimSpace(r.getenv("A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS")) != "" {
			r.fail("A2A_HTTP_READ_HEADER_TIMEOUT_SECONDS", strconv.Itoa(int(h.ReadHeaderTimeout/time.Second)),
				fmt.Sprintf("must be at most A2A_HTTP_READ_TIMEOUT_SECONDS (%d): the headers are part of the request", int(h.ReadTimeout/time.Second)))
		}
		h.ReadHeaderTimeout = h.ReadTimeout // the default, within a short read timeout
	}
	return h
}

// origins reads a comma-separated list of web origins, as a browser's
// Origin header names them (scheme://host[:port], no path), or "*" alone;
// it returns them in lower case, without repeats.
func (r *reader) origins(name string) []string {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return nil
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		o := strings.ToLower(strings.TrimSpace(item))
		if o == "*" {
			if v != "*" {
				r.fail(name, v, `"*" allows every origin: give it alone, or list the origins`)
				return nil
			}
			return []string{"*"}
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
			r.fail(name, v, fmt.Sprintf("%q is not a web origin: write it as a browser sends it, scheme://host[:port] with no path (https://app.example.com), or * for any", strings.TrimSpace(item)))
			return nil
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// protocolVersions reads A2A_PROTOCOL_VERSIONS: a comma-separated list of
// 0.3 and 1.0, returned in that order without repeats.
func (r *reader) protocolVersions() []a2a.Version {
	v := r.str("A2A_PROTOCOL_VERSIONS", DefaultProtocolVersions)
	var has03, has10 bool
	for _, item := range strings.Split(v, ",") {
		switch a2a.Version(strings.TrimSpace(item)) {
		case a2a.V03:
			has03 = true
		case a2a.V10:
			has10 = true
		default:
			r.fail("A2A_PROTOCOL_VERSIONS", v, "must list 0.3, 1.0 or both (0.3,1.0)")
			return []a2a.Version{a2a.V03, a2a.V10}
		}
	}
	var out []a2a.Version
	if has03 {
		out = append(out, a2a.V03)
	}
	if has10 {
		out = append(out, a2a.V10)
	}
	return out
}

// auth reads A2A_AUTH. With jwt, API Gateway identifies callers, so bearer
// tokens would be ignored: setting both is a mistake worth stopping for.
func (r *reader) auth(tokens map[string]string) string {
	mode := strings.ToLower(r.str("A2A_AUTH", AuthBearer))
	switch mode {
	case AuthBearer:
	case AuthJWT:
		if len(tokens) > 0 {
			r.errs = append(r.errs, errors.New("A2A_AUTH=jwt identifies callers by API Gateway's JWT authorizer: unset A2A_BEARER_TOKEN and A2A_BEARER_TOKENS, or set A2A_AUTH=bearer"))
		}
	default:
		r.fail("A2A_AUTH", mode, "must be bearer or jwt")
	}
	return mode
}

// taskStore reads the task store and the AWS settings it needs: DynamoDB
// needs a table and a region; a table setting without DynamoDB is a
// mistake worth stopping for.
func (r *reader) taskStore() (TaskStore, AWS) {
	ts := TaskStore{
		Backend:     strings.ToLower(r.str("A2A_TASK_STORE_BACKEND", BackendMemory)),
		Table:       strings.TrimSpace(r.getenv("A2A_TASK_STORE_TABLE")),
		CreateTable: r.boolean("A2A_TASK_STORE_CREATE_TABLE", false),
		TTL:         r.seconds("A2A_TASK_TTL_SECONDS", DefaultTaskTTL, 60, maxTaskTTLSeconds),
		MaxTasks:    r.intRange("A2A_MEMORY_MAX_TASKS", DefaultMemoryMaxTasks, 1, 10_000_000),
		MaxBytes:    int64(r.intRange("A2A_MEMORY_MAX_BYTES", DefaultMemoryMaxBytes, 1<<20, 1<<40)),
	}
	aws := AWS{
		Region:            r.str("AWS_REGION", strings.TrimSpace(r.getenv("AWS_DEFAULT_REGION"))),
		EndpointURL:       r.absoluteURL("AWS_ENDPOINT_URL"),
		LambdaEndpointURL: r.absoluteURL("AWS_ENDPOINT_URL_LAMBDA"),
	}
	switch ts.Backend {
	case BackendMemory:
		if ts.Table != "" {
			r.fail("A2A_TASK_STORE_TABLE", ts.Table, "is set, but A2A_TASK_STORE_BACKEND is memory: set A2A_TASK_STORE_BACKEND=dynamodb to use the table, or unset it")
		}
		if ts.CreateTable {
			r.fail("A2A_TASK_STORE_CREATE_TABLE", "true", "needs A2A_TASK_STORE_BACKEND=dynamodb")
		}
	case BackendDynamoDB:
		switch {
		case ts.Table == "":
			r.errs = append(r.errs, errors.New("A2A_TASK_STORE_TABLE is required when A2A_TASK_STORE_BACKEND=dynamodb: name the DynamoDB table that keeps the tasks"))
		case !validTableName(ts.Table):
			r.fail("A2A_TASK_STORE_TABLE", ts.Table, "must be 3 to 255 letters, digits, '_', '-' or '.'")
		}
		if aws.Region == "" {
			r.errs = append(r.errs, errors.New("AWS_REGION is required when A2A_TASK_STORE_BACKEND=dynamodb (Lambda sets it; locally set e.g. AWS_REGION=us-east-1)"))
		}
	default:
		r.fail("A2A_TASK_STORE_BACKEND", ts.Backend, "must be memory or dynamodb")
	}
	return ts, aws
}

// execution reads A2A_EXECUTION and A2A_STATE_MACHINE_ARN. Unset, the mode
// is auto when a state machine is named, inline otherwise.
func (r *reader) execution() Execution {
	e := Execution{
		Mode:            strings.ToLower(strings.TrimSpace(r.getenv("A2A_EXECUTION"))),
		StateMachineARN: strings.TrimSpace(r.getenv("A2A_STATE_MACHINE_ARN")),
		WorkerFunction:  strings.TrimSpace(r.getenv("A2A_WORKER_FUNCTION")),
	}
	if arn := e.StateMachineARN; arn != "" && (!strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":stateMachine:")) {
		r.fail("A2A_STATE_MACHINE_ARN", e.StateMachineARN, "must be a state machine ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)")
	}
	switch e.Mode {
	case "":
		e.Mode = ExecutionInline
		if e.StateMachineARN != "" {
			e.Mode = ExecutionAuto
		}
	case ExecutionAuto, ExecutionStepFunctions:
		if e.StateMachineARN == "" {
			r.errs = append(r.errs, fmt.Errorf("A2A_EXECUTION=%s needs A2A_STATE_MACHINE_ARN: name the state machine that runs the tasks", e.Mode))
		}
	case ExecutionInline:
	default:
		r.fail("A2A_EXECUTION", e.Mode, "must be auto, inline or stepfunctions")
	}
	return e
}

// Loopback reports whether the bind host only accepts local connections.
func (c Config) Loopback() bool {
	if c.Host == "localhost" {
		return true
	}
	ip := net.ParseIP(c.Host)
	return ip != nil && ip.IsLoopback()
}

// tokens reads A2A_BEARER_TOKEN and A2A_BEARER_TOKENS.
func (r *reader) tokens() map[string]string {
	tokens := map[string]string{}
	if t := strings.TrimSpace(r.getenv("A2A_BEARER_TOKEN")); t != "" {
		tokens[DefaultTokenName] = t
		r.checkToken("A2A_BEARER_TOKEN", DefaultTokenName, t)
	}
	list := strings.TrimSpace(r.getenv("A2A_BEARER_TOKENS"))
	if list == "" {
		return tokens
	}
	seen := map[string]bool{tokens[DefaultTokenName]: true}
	for _, item := range strings.Split(list, ",") {
		name, tok, ok := strings.Cut(strings.TrimSpace(item), ":")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case !ok || name == "" || tok == "":
			r.errs = append(r.errs, fmt.Errorf("A2A_BEARER_TOKENS: entry %q must be name:token", redact(item)))
			continue
		case seen[tok] || tokens[name] != "":
			r.errs = append(r.errs, fmt.Errorf("A2A_BEARER_TOKENS: caller %q or its token is given twice (A2A_BEARER_TOKEN is the caller %q)", name, DefaultTokenName))
			continue
		}
		if name == auth.AnonymousOwner {
			r.errs = append(r.errs, errReservedCaller)
			continue
		}
		seen[tok] = true
		tokens[name] = tok
		r.checkToken("A2A_BEARER_TOKENS", name, tok)
	}
	return tokens
}

// errReservedCaller refuses a token's caller named auth.AnonymousOwner.
var errReservedCaller = errors.New(`A2A_BEARER_TOKENS: the caller name "` + auth.AnonymousOwner + `" is reserved: it names every caller of a server without tokens, whose tasks a caller of that name would own on a shared table; choose another`)

// MinTokenLength is the shortest bearer token accepted: 16 characters
// (openssl rand -hex 32 makes 64). A token is the caller's only proof.
const MinTokenLength = 16

// checkToken refuses a token that no client can send (an Authorization
// header carries a bearer token as an RFC 6750 b64token, the very check
// auth.BearerToken makes of each request), and one too short to keep a
// guesser out.
func (r *reader) checkToken(variable, name, tok string) {
	switch {
	case !auth.IsB64Token(tok):
		r.errs = append(r.errs, fmt.Errorf("%s: the token of caller %q has characters a bearer token cannot carry: use letters, digits and -._~+/ (e.g. openssl rand -hex 32)", variable, name))
	case len(tok) < MinTokenLength:
		r.errs = append(r.errs, fmt.Errorf("%s: the token of caller %q is too short (%d characters, at least 16): a short token can be guessed (e.g. openssl rand -hex 32)", variable, name, len(tok)))
	}
}

// redact keeps a token out of error messages.
func redact(item string) string {
	name, _, ok := strings.Cut(item, ":")
	if ok {
		return strings.TrimSpace(name) + ":***"
	}
	return "***"
}
