// Package httpfn assembles the HTTP Lambda functions, send and tasks: the
// A2A service on the DynamoDB task store, behind an API Gateway HTTP API.
// It links the DynamoDB and Step Functions clients (the runner of the auto
// and stepfunctions execution modes starts and stops executions) and no
// other AWS service client; a test in functions/ holds both binaries to
// that.
package httpfn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/pushsetup"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/serviceopts"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/taskstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// settleGrace is how long a Lambda function's blocking send waits for its
// task to settle after the inline runner returned.
const settleGrace = 50 * time.Millisecond

// Store is what the HTTP Lambda functions need of a task store: the
// tasks, and a place for the work a request cannot run (the DynamoDB store
// is both).
type Store interface {
	service.Store
	inline.Backlog
}

// Options configure the handler of an HTTP Lambda function.
type Options struct {
	// Routes are the route groups the function serves.
	Routes httpapi.Routes
	// StepFunctions is the client of the state machine of the auto and
	// stepfunctions execution modes.
	StepFunctions stepfunctions.API
	Clock         clock.Clock
	Log           *slog.Logger
}

// Send builds the send function's Lambda handler: JSON-RPC (every method,
// POST /), the REST message:send routes and /orchestrate, on the DynamoDB
// store, with the agent named by A2A_AGENT from reg (see New).
func Send(reg *agent.Registry) boot.Builder {
	return function("send", reg, httpapi.RoutesRPC)
}

// Tasks builds the tasks function's Lambda handler: the REST task routes
// (get, list, cancel, push configs) and the extended card, on the DynamoDB
// store (see New).
func Tasks(reg *agent.Registry) boot.Builder {
	return function("tasks", reg, httpapi.RoutesTasks)
}

// function builds an HTTP function's Lambda handler: New behind the HTTP
// API adapter, which logs its own failures as function.
func function(name string, reg *agent.Registry, routes httpapi.Routes) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := New(ctx, getenv, reg, routes, logOut)
		if err != nil {
			return nil, err
		}
		return boot.LambdaHTTP(h, boot.NewLogger(logOut, slog.LevelError).With("function", name)), nil
	}
}

// New builds an HTTP Lambda function's handler from the environment read
// through getenv (see boot.Start): the DynamoDB store, the agent named by
// A2A_AGENT from reg, and the routes of the function. Call it once per cold
// start. The functions keep tasks in DynamoDB and never serve anonymous
// callers: they need bearer tokens, or A2A_AUTH=jwt behind API Gateway's
// JWT authorizer.
func New(ctx context.Context, getenv func(string) string, reg *agent.Registry, routes httpapi.Routes, logOut io.Writer) (http.Handler, error) {
	fn, err := taskstore.StartFunction(ctx, getenv, logOut, reg, checkConfig)
	if err != nil {
		return nil, err
	}
	o := Options{Routes: routes, Log: fn.Log}
	if fn.Config.Execution.Mode != config.ExecutionInline {
		o.StepFunctions = sfn.NewFromConfig(fn.AWS)
	}
	return NewHandler(fn.Config, fn.Agent, fn.Store, o)
}

// runner returns the runner of the execution mode for exec (the Step
// Functions client of the auto and stepfunctions modes is o's).
func runner(cfg config.Config, exec *service.Executor, store Store, o Options) (service.Runner, error) {
	budget := inline.Options{Budget: cfg.BlockingTimeout, Clock: o.Clock, Logger: o.Log}
	if cfg.Execution.Mode == config.ExecutionInline {
		return inline.New(exec, store, budget), nil
	}
	if o.StepFunctions == nil {
		return nil, fmt.Errorf("A2A_EXECUTION=%s needs a Step Functions client", cfg.Execution.Mode)
	}
	machine, err := stepfunctions.New(o.StepFunctions, stepfunctions.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: o.Log})
	if err != nil {
		return nil, err
	}
	if cfg.Execution.Mode == config.ExecutionStepFunctions {
		return machine, nil
	}
	budget.HandOffInterrupts = true
	return auto.New(inline.New(exec, machine, budget), machine), nil
}

// checkConfig refuses what cannot work in Lambda.
func checkConfig(cfg config.Config) error {
	_, err := authenticator(cfg)
	return errors.Join(boot.CheckLambdaStore(cfg), err)
}

// authenticator identifies the callers of an HTTP function: by the JWT API
// Gateway verified (A2A_AUTH=jwt), or by bearer token, which are then
// required.
func authenticator(cfg config.Config) (httpapi.Authenticator, error) {
	if cfg.Auth == config.AuthJWT {
		return auth.NewJWT(APIGatewayJWTClaims), nil
	}
	if len(cfg.Tokens) == 0 {
		return nil, errors.New("A2A_BEARER_TOKEN (or A2A_BEARER_TOKENS) is required: the Lambda functions do not serve anonymous callers (or set A2A_AUTH=jwt behind API Gateway's JWT authorizer)")
	}
	return auth.NewBearer(cfg.Tokens), nil
}

// APIGatewayJWTClaims returns the claims API Gateway's JWT authorizer
// verified for a request that reached the function through an HTTP API
// (aws-lambda-go-api-proxy keeps the request context), and false when the
// route had no JWT authorizer.
func APIGatewayJWTClaims(r *http.Request) (map[string]string, bool) {
	rc, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok || rc.Authorizer == nil || rc.Authorizer.JWT == nil || len(rc.Authorizer.JWT.Claims) == 0 {
		return nil, false
	}
	return rc.Authorizer.JWT.Claims, true
}

// NewHandler assembles an HTTP Lambda function around store: the agent's
// executor, the runner of the execution mode, the service and the HTTP
// edge with bearer or JWT authentication. Card URLs come from
// A2A_PUBLIC_URL, or from each request when it is unset.
func NewHandler(cfg config.Config, ag agent.Agent, store Store, o Options) (http.Handler, error) {
	authn, err := authenticator(cfg)
	if err != nil {
		return nil, err
	}
	o.Log = logger.Or(o.Log)
	exec := service.NewExecutor(store, ag, serviceopts.Executor(cfg, o.Clock, o.Log))
	r, err := runner(cfg, exec, store, o)
	if err != nil {
		return nil, err
	}
	svcCfg := serviceopts.Service(cfg)
	if in, ok := r.(service.InlineRunner); ok && in.StartsInline() {
		// A blocking send spends its time in the inline runner. When the
		// runner returns, the task is settled or waits for a runner outside
		// this request, so the service must not wait again: a second
		// blocking timeout would outlast API Gateway's 30 s.
		svcCfg.BlockingTimeout = settleGrace
	}
	svc := service.New(store, r, ag.Info(), svcCfg, service.Options{Clock: o.Clock, Logger: o.Log, CheckPushConfig: pushsetup.Checker(cfg)})
	return httpapi.New(httpapi.Options{
		Service:         svc,
		Auth:            authn,
		Cards:           boot.Cards(ag.Info(), true, cfg.Push.Enabled, cfg.ProtocolVersions),
		Versions:        cfg.ProtocolVersions,
		PublicURL:       cfg.ConfiguredPublicURL,
		MaxBodyBytes:    cfg.MaxRequestBodyBytes,
		GzipMinimumSize: boot.GzipMinimumSize(cfg),
		Profile:         boot.Profile(cfg, ag.Info(), cfg.TaskStore.Backend, cfg.Execution.Mode),
		Routes:          o.Routes,
		Logger:          o.Log,
		// A result above Lambda's response limit gets a typed error that
		// says how to ask for less, rather than a failed invocation.
		MaxResponseBytes: boot.MaxResponseBytes,
		ResponseSize:     boot.ResponseSize,
		RateLimit:        boot.RateLimit(cfg, o.Clock),
	})
}
