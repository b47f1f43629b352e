// Package boot is the start-up every Lambda function shares, kept light:
// secret references resolved, the configuration loaded and checked, the
// JSON logger, the AWS configuration built from what Lambda puts in the
// environment, the HTTP API adapter, reporting a failed cold start, the
// push signing keys and the edge options (cards, health profile). The card
// function needs nothing more, so it is assembled here too (card.go);
// every other function is assembled by a package of its own under pkg/app/
// (httpfn, workerfn, sweepfn, pushfn, deliverfn), which links only the
// clients that function calls.
//
// It must not import the AWS SDK's service clients, nor its default
// configuration loader (github.com/aws/aws-sdk-go-v2/config): Go runs every
// linked package's initialization at cold start, and those packages are
// costly to initialize (GODEBUG=inittrace=1 shows ssm/schemas,
// dynamodb/schemas, ...). A test in functions/ holds the card binary to
// that.
package boot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runtimeapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// Env is what a function starts from: the environment with its secret
// references resolved, the configuration read from it, and the logger at
// the configured level.
type Env struct {
	Getenv func(string) string
	Config config.Config
	Log    *slog.Logger
}

// Start reads a function's environment through getenv: secret references
// resolved (see ResolveSecrets; without references no request is made),
// the configuration loaded, then each check run on it (their errors
// joined), and a JSON logger on logOut, on which the configuration's
// warnings are logged. Call it once per cold start.
func Start(ctx context.Context, getenv func(string) string, logOut io.Writer, checks ...func(config.Config) error) (Env, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return Env{}, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return Env{}, fmt.Errorf("configuration: %w", err)
	}
	for _, check := range checks {
		if err := check(cfg); err != nil {
			return Env{}, err
		}
	}
	log := NewLogger(logOut, cfg.LogLevel)
	LogWarnings(ctx, log, cfg)
	return Env{Getenv: getenv, Config: cfg, Log: log}, nil
}

// LogWarnings logs, once at start, each setting the configuration corrected
// rather than refused (config.Config.Warnings).
func LogWarnings(ctx context.Context, log *slog.Logger, cfg config.Config) {
	for _, w := range cfg.Warnings {
		log.WarnContext(ctx, "configuration corrected", "warning", w)
	}
}

// Agent builds the agent A2A_AGENT names from reg.
func (e Env) Agent(reg *agent.Registry) (agent.Agent, error) {
	return reg.New(e.Config.Agent, e.Getenv)
}

// Builder builds a function's Lambda handler (a handler lambda.Start
// accepts) from the environment read through getenv, logging to logOut.
type Builder func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error)

// Main is a Lambda function's main: it builds the handler once (the cold
// start) and hands it to the Lambda runtime, each invocation inside the
// function's telemetry (Instrument); when build fails it reports the
// failure (InitFailed) and exits 1. build gets the process's environment,
// stderr for its logs, and a context carrying the telemetry's metrics sink
// and tracer (for the clients it makes).
func Main(function string, build Builder) {
	ctx := context.Background()
	tel := telemetry.ForLambda(function, os.Getenv, os.Stdout, os.Stderr)
	h, err := build(tel.Context(ctx), os.Getenv, os.Stderr)
	if err != nil {
		InitFailed(ctx, os.Getenv, os.Stderr, function, err)
		os.Exit(1)
	}
	lambda.Start(Instrument(tel, h))
}

// Instrument runs each invocation of the Lambda handler h inside tel: the
// invocation's log fields, its summary line and its metrics. An HTTP API
// function's summary also names its route and status.
func Instrument(tel *telemetry.Function, h any) lambda.Handler {
	if f, ok := h.(HTTPFunc); ok {
		return lambda.NewHandler(telemetry.HTTP(tel, f))
	}
	return invokeFunc(telemetry.Wrap(tel, lambda.NewHandler(h).Invoke, nil))
}

// invokeFunc is a lambda.Handler made of its Invoke.
type invokeFunc func(ctx context.Context, payload []byte) ([]byte, error)

func (f invokeFunc) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	return f(ctx, payload)
}

// NewLogger returns the JSON logger every binary uses (telemetry.NewLogger,
// which the function's summary lines use too).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return telemetry.NewLogger(w, level)
}

// InitFailed reports that a function could not start: as a JSON log line on
// stderr and, inside Lambda (AWS_LAMBDA_RUNTIME_API is set), to the Runtime
// API's init error endpoint, so that Lambda records the reason as the error
// of the invocation that caused the cold start. The caller exits afterwards.
func InitFailed(ctx context.Context, getenv func(string) string, stderr io.Writer, function string, err error) {
	log := NewLogger(stderr, slog.LevelInfo).With("function", function)
	log.ErrorContext(ctx, "cold start failed", "error", err.Error())
	if api := getenv(runtimeapi.EnvAPI); api != "" {
		if rerr := runtimeapi.ReportInitError(ctx, http.DefaultClient, api, fmt.Errorf("%s: %w", function, err)); rerr != nil {
			log.ErrorContext(ctx, "could not report the failed cold start", "error", rerr.Error())
		}
	}
}
