// Package boot is the start-up every Lambda function shares, kept light:
// secret references resolved, the configuration loaded and checked, the
// JSON logger, the AWS configuration built from what Lambda puts in the
// environment, the HTTP API adapter, the Lambda runtime (Main), reporting
// a failed cold start, the push signing keys and the edge options (cards,
// health profile). The card function needs nothing more, so it is
// assembled here too (card.go); every other function is assembled by a
// package of its own under pkg/app/ (httpfn, workerfn, sweepfn, pushfn,
// deliverfn), which links only the clients that function calls.
//
// What the local server shares with the functions (Env, Start, the
// logger, AWSConfig, PushKeys, Edge and HandlerOptions, the response
// limits) lives in pkg/internal/startup, which does not link the Lambda
// runtime client (aws-lambda-go's lambda package, with net/rpc and
// encoding/gob); boot gives it the same names (startup.go).
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

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/apigw"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runtimeapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
)

// Builder builds a function's Lambda handler (a handler lambda.Start
// accepts) from the environment read through getenv, logging to logOut.
type Builder func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error)

// Main is a Lambda function's main: it builds the handler once (the cold
// start) and hands it to the Lambda runtime, each invocation inside the
// function's telemetry (Instrument); when build fails it reports the
// failure (InitFailed) and exits 1. build gets the process's environment,
// stderr for its logs, and a context carrying the telemetry's metrics sink
// and tracer (for the clients it makes). The Go runtime is first sized to
// the function's memory size (LambdaResources).
func Main(function string, build Builder) {
	LambdaResources(os.Getenv).Apply()
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
// function's summary also names its route and status, and its event and
// response are read and written without reflection (package apigw).
func Instrument(tel *telemetry.Function, h any) lambda.Handler {
	if f, ok := h.(HTTPFunc); ok {
		return apigw.Handler(telemetry.HTTP(tel, f))
	}
	return invokeFunc(telemetry.Wrap(tel, lambda.NewHandler(h).Invoke, nil))
}

// invokeFunc is a lambda.Handler made of its Invoke.
type invokeFunc func(ctx context.Context, payload []byte) ([]byte, error)

func (f invokeFunc) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	return f(ctx, payload)
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
