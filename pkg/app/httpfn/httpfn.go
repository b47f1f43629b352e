// Package httpfn assembles the HTTP Lambda functions, send and tasks: the
// A2A service on the DynamoDB task store, behind an API Gateway HTTP API.
// It links no package of an AWS SDK service client: the store calls
// DynamoDB through pkg/dynamodb, the runner of the auto and stepfunctions
// execution modes resumes, starts and stops executions through
// pkg/internal/sfncall, and the worker's asynchronous invocations go
// through pkg/internal/lambdainvoke. A test in functions/ holds both
// binaries to that.
package httpfn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/lambdainvoke"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/async"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Store is what the HTTP Lambda functions need of a task store: the
// tasks, and a place to record the work a request cannot run in the
// inline execution mode (the DynamoDB store is both).
type Store interface {
	store.Store
	inline.Recorder
}

// Options configure the handler of an HTTP Lambda function.
type Options struct {
	// Routes are the route groups the function serves.
	Routes httpapi.Routes
	// StepFunctions is the client of the state machine of the auto and
	// stepfunctions execution modes.
	StepFunctions stepfunctions.API
	// Invoker invokes the worker function (A2A_WORKER_FUNCTION) for the
	// steps no request runs, in the auto and stepfunctions modes.
	Invoker async.Invoker
	// Files keeps the parts too large for a task item (in
	// A2A_FILES_BUCKET); nil keeps none.
	Files *files.Files
	Clock clock.Clock
	Log   *slog.Logger
}

// Send builds the send function's Lambda handler: JSON-RPC (every method,
// POST /), the REST message:send routes and /orchestrate, on the DynamoDB
// store, with the agent named by A2A_AGENT from reg (see New).
func Send(reg *agent.Registry) boot.Builder {
	return function("send", reg, httpapi.RoutesRPC, checkSend)
}

// Tasks builds the tasks function's Lambda handler: the REST task routes
// (get, list, cancel, push configs) and the extended card, on the DynamoDB
// store (see New).
func Tasks(reg *agent.Registry) boot.Builder {
	return function("tasks", reg, httpapi.RoutesTasks, checkConfig)
}

// function builds an HTTP function's Lambda handler: New behind the HTTP
// API adapter, which logs its own failures as function.
func function(name string, reg *agent.Registry, routes httpapi.Routes, check func(config.Config) error) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := newFunction(ctx, getenv, reg, routes, logOut, check)
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
	return newFunction(ctx, getenv, reg, routes, logOut, checkConfig)
}

func newFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, routes httpapi.Routes, logOut io.Writer, check func(config.Config) error) (http.Handler, error) {
	fn, err := setup.StartFunction(ctx, getenv, logOut, reg, check)
	if err != nil {
		return nil, err
	}
	o := Options{Routes: routes, Log: fn.Log, Files: fn.Files}
	if e := fn.Config.Execution; e.Mode != config.ExecutionInline {
		if o.StepFunctions, err = sfncall.New(fn.AWS, sfncall.Options{}); err != nil {
			return nil, err
		}
		if e.WorkerFunction != "" {
			if o.Invoker, err = lambdainvoke.New(fn.AWS, lambdainvoke.Options{Endpoint: fn.Config.AWS.LambdaEndpointURL}); err != nil {
				return nil, err
			}
		}
	}
	return NewHandler(fn.Config, fn.Agent, fn.Store, o)
}

// runners returns the runner of the execution mode for exec, and the
// inline runner that runs blocking sends' steps in their requests (nil in
// stepfunctions mode): in inline mode the inline runner alone, recording
// what it cannot run on the task; in the auto and stepfunctions modes the
// router of pkg/internal/runner/auto over the asynchronous path (o's Invoker) and
// the state machine (o's Step Functions client), with the inline runner
// for blocking sends in auto mode.
func runners(cfg config.Config, exec *engine.Executor, store Store, o Options) (engine.Runner, service.InlineRunner, error) {
	budget := inline.Options{Budget: cfg.BlockingTimeout, Clock: o.Clock, Logger: o.Log}
	if cfg.Execution.Mode == config.ExecutionInline {
		in := inline.New(exec, inline.Record(store), budget)
		return in, in, nil
	}
	if o.StepFunctions == nil {
		return nil, nil, fmt.Errorf("A2A_EXECUTION=%s needs a Step Functions client", cfg.Execution.Mode)
	}
	machine, err := stepfunctions.New(o.StepFunctions, stepfunctions.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: o.Log})
	if err != nil {
		return nil, nil, err
	}
	var steps engine.Runner // nil: this function starts no step (tasks)
	if o.Invoker != nil {
		if steps, err = async.New(o.Invoker, cfg.Execution.WorkerFunction, o.Log); err != nil {
			return nil, nil, err
		}
	}
	router := auto.New(steps, machine)
	if cfg.Execution.Mode != config.ExecutionAuto {
		return router, nil, nil
	}
	budget.HandOffInterrupts = true
	in := inline.New(exec, router, budget)
	router.RunInline(in)
	return router, in, nil
}

// checkConfig refuses what cannot work in Lambda.
func checkConfig(cfg config.Config) error {
	_, err := authenticator(cfg)
	return errors.Join(boot.CheckLambdaStore(cfg), err)
}

// checkSend refuses what cannot work in the send function, which starts
// tasks: in the auto and stepfunctions modes the steps no request runs go
// to the worker function.
func checkSend(cfg config.Config) error {
	err := checkConfig(cfg)
	if cfg.Execution.Mode != config.ExecutionInline && cfg.Execution.WorkerFunction == "" {
		err = errors.Join(err, fmt.Errorf("A2A_EXECUTION=%s needs A2A_WORKER_FUNCTION: name the worker function that runs the steps no request runs (a non-blocking send's first step)", cfg.Execution.Mode))
	}
	return err
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
// (boot.LambdaHTTP keeps the request context), and false when the route
// had no JWT authorizer.
func APIGatewayJWTClaims(r *http.Request) (map[string]string, bool) {
	rc, ok := boot.APIGatewayRequestContext(r.Context())
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
	o.Log = cmp.Or(o.Log, slog.New(slog.DiscardHandler))
	if o.Files == nil {
		o.Files = setup.Files(cfg, nil, o.Clock, o.Log)
	}
	exec := engine.NewExecutor(store, ag, setup.Executor(cfg, o.Clock, o.Log, o.Files))
	r, in, err := runners(cfg, exec, store, o)
	if err != nil {
		return nil, err
	}
	// A blocking send waits at most A2A_BLOCKING_TIMEOUT_SECONDS from its
	// start, however that time went: in the inline runner's steps, then
	// for work handed over (an interrupt the state machine shows, a step
	// that goes on in the worker).
	svc := service.New(store, r, ag.Info(), setup.Service(cfg), service.Options{Clock: o.Clock, Logger: o.Log, CheckPushConfig: setup.PushChecker(cfg), Files: o.Files, Inline: in})
	return httpapi.New(boot.HandlerOptions(cfg, ag.Info(), boot.Edge{Routes: o.Routes, Service: svc, Auth: authn, FilesKept: o.Files.Enabled(), Clock: o.Clock, Log: o.Log}))
}
