package app

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
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/lambdafn"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/worker"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc = lambdafn.HTTPFunc

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler, logging
// adapter failures on log (see lambdafn.LambdaHTTP).
func LambdaHTTP(h http.Handler, log *slog.Logger) HTTPFunc { return lambdafn.LambdaHTTP(h, log) }

// NewCardFunction builds the card function's handler (see
// lambdafn.NewCardFunction, which functions/card calls so as not to link
// the AWS SDK's table, state machine and queue clients).
func NewCardFunction(getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	return lambdafn.NewCardFunction(context.Background(), getenv, reg, logOut)
}

// settleGrace is how long a Lambda function's blocking send waits for its
// task to settle after the inline runner returned.
const settleGrace = 50 * time.Millisecond

// LambdaStore is what the HTTP Lambda functions need of a task store: the
// tasks, and a place for the work a request cannot run (the DynamoDB store
// is both).
type LambdaStore interface {
	service.Store
	inline.Backlog
}

// LambdaOptions configure the handler of an HTTP Lambda function.
type LambdaOptions struct {
	// Routes are the route groups the function serves.
	Routes httpapi.Routes
	// StepFunctions is the client of the state machine of the auto and
	// stepfunctions execution modes.
	StepFunctions stepfunctions.API
	Clock         clock.Clock
	Log           *slog.Logger
}

// NewLambdaHTTP builds an HTTP Lambda function's handler from the
// environment read through getenv: secret references resolved (see
// ResolveSecrets), configuration, the DynamoDB store, the agent named by
// A2A_AGENT from reg, and the routes of the function. Call it once per cold
// start. The functions keep tasks in DynamoDB and never serve anonymous
// callers: they need bearer tokens, or A2A_AUTH=jwt behind API Gateway's
// JWT authorizer.
func NewLambdaHTTP(ctx context.Context, getenv func(string) string, reg *agent.Registry, routes httpapi.Routes, logOut io.Writer) (http.Handler, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if err := checkLambdaConfig(cfg); err != nil {
		return nil, err
	}
	log := NewLogger(logOut, cfg.LogLevel)
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := AWSConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	store, err := OpenDynamoStore(ctx, cfg, StoreOptions{Log: log, AWS: &awsCfg})
	if err != nil {
		return nil, err
	}
	o := LambdaOptions{Routes: routes, Log: log}
	if cfg.Execution.Mode != config.ExecutionInline {
		o.StepFunctions = sfn.NewFromConfig(awsCfg)
	}
	return NewLambdaHandler(cfg, ag, store, o)
}

// lambdaRunner returns the runner of the execution mode, and whether it
// runs blocking sends' steps in the request (the service then need not wait
// for them).
func lambdaRunner(cfg config.Config, exec *service.Executor, store LambdaStore, o LambdaOptions) (service.Runner, bool, error) {
	budget := inline.Options{Budget: cfg.BlockingTimeout, Clock: o.Clock, Logger: o.Log}
	if cfg.Execution.Mode == config.ExecutionInline {
		return inline.New(exec, store, budget), true, nil
	}
	if o.StepFunctions == nil {
		return nil, false, fmt.Errorf("A2A_EXECUTION=%s needs a Step Functions client", cfg.Execution.Mode)
	}
	machine, err := stepfunctions.New(o.StepFunctions, stepfunctions.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: o.Log})
	if err != nil {
		return nil, false, err
	}
	if cfg.Execution.Mode == config.ExecutionStepFunctions {
		return machine, false, nil
	}
	budget.HandOffInterrupts = true
	return auto.New(inline.New(exec, machine, budget), machine), true, nil
}

// NewWorkerFunction builds the worker function's handler (the Step
// Functions task of infra/statemachine.asl.json) from the environment read
// through getenv: secret references resolved (the agent's keys),
// configuration, the DynamoDB store and the agent named by A2A_AGENT from
// reg. Call it once per cold start.
func NewWorkerFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (*worker.Handler, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		return nil, fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: the worker reads tasks from DynamoDB; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend)
	}
	log := NewLogger(logOut, cfg.LogLevel)
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	store, err := OpenDynamoStore(ctx, cfg, StoreOptions{Log: log})
	if err != nil {
		return nil, err
	}
	return NewWorker(cfg, ag, store, nil, log), nil
}

// NewWorker assembles the worker around store; clk tells the time (nil:
// the system clock).
func NewWorker(cfg config.Config, ag agent.Agent, store service.Store, clk clock.Clock, log *slog.Logger) *worker.Handler {
	return worker.New(service.NewExecutor(store, ag, ExecutorOptions(cfg, clk, log)), log)
}

// checkLambdaConfig refuses what cannot work in Lambda.
func checkLambdaConfig(cfg config.Config) error {
	_, err := lambdaAuthenticator(cfg)
	return errors.Join(checkLambdaStore(cfg), err)
}

// checkLambdaStore refuses what no Lambda function that keeps tasks or
// sends webhooks can work with: a store that forgets, and the local
// development switch for webhooks.
func checkLambdaStore(cfg config.Config) error {
	var errs []error
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		errs = append(errs, fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: a Lambda function forgets everything between invocations; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend))
	}
	if cfg.Push.AllowInsecure {
		errs = append(errs, errors.New("A2A_PUSH_ALLOW_INSECURE=true is for local development: in Lambda, loopback reaches the Lambda Runtime API"))
	}
	return errors.Join(errs...)
}

// lambdaAuthenticator identifies the callers of an HTTP function: by the
// JWT API Gateway verified (A2A_AUTH=jwt), or by bearer token, which are
// then required.
func lambdaAuthenticator(cfg config.Config) (httpapi.Authenticator, error) {
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

// NewLambdaHandler assembles an HTTP Lambda function around store: the
// agent's executor, the runner of the execution mode, the service and the
// HTTP edge with bearer or JWT authentication. Card URLs come from
// A2A_PUBLIC_URL, or from each request when it is unset.
func NewLambdaHandler(cfg config.Config, ag agent.Agent, store LambdaStore, o LambdaOptions) (http.Handler, error) {
	authn, err := lambdaAuthenticator(cfg)
	if err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	exec := service.NewExecutor(store, ag, ExecutorOptions(cfg, o.Clock, o.Log))
	runner, inRequest, err := lambdaRunner(cfg, exec, store, o)
	if err != nil {
		return nil, err
	}
	svcCfg := ServiceConfig(cfg)
	if inRequest {
		// A blocking send spends its time in the inline runner. When the
		// runner returns, the task is settled or waits for a runner outside
		// this request, so the service must not wait again: a second
		// blocking timeout would outlast API Gateway's 30 s.
		svcCfg.BlockingTimeout = settleGrace
	}
	svc := service.New(store, runner, ag.Info(), svcCfg, service.Options{Clock: o.Clock, Logger: o.Log, CheckPushConfig: PushChecker(cfg)})
	return httpapi.New(httpapi.Options{
		Service:         svc,
		Auth:            authn,
		Cards:           Cards(ag.Info(), true, cfg.Push.Enabled, cfg.ProtocolVersions),
		Versions:        cfg.ProtocolVersions,
		PublicURL:       cfg.ConfiguredPublicURL,
		MaxBodyBytes:    cfg.MaxRequestBodyBytes,
		GzipMinimumSize: GzipMinimumSize(cfg),
		Profile:         Profile(cfg, ag.Info(), cfg.TaskStore.Backend, cfg.Execution.Mode),
		Routes:          o.Routes,
		Logger:          o.Log,
		// A result above Lambda's response limit gets a typed error that
		// says how to ask for less, rather than a failed invocation.
		MaxResponseBytes: lambdafn.MaxResponseBytes,
		ResponseSize:     lambdafn.ResponseSize,
	})
}
