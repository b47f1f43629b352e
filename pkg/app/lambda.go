package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/sfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/worker"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler.
func LambdaHTTP(h http.Handler) HTTPFunc { return httpadapter.NewV2(h).ProxyWithContext }

// NewCardFunction builds the card function's handler: the public cards and
// the push notification JWKS, nothing else, and no AWS access. A deployed agent always requires
// authentication, so its card declares the bearer scheme. Without
// A2A_PUBLIC_URL the card's URLs are those the request was addressed to (the
// API's own domain, or its custom domain).
func NewCardFunction(getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	log := NewLogger(logOut, cfg.LogLevel)
	o := httpapi.Options{
		Routes:    httpapi.RoutesCard,
		Cards:     Cards(ag.Info(), true, cfg.Push.Enabled),
		PublicURL: cfg.ConfiguredPublicURL,
		Logger:    log,
	}
	if cfg.Push.Enabled {
		ks, err := PushKeys(cfg, false, log)
		if err != nil {
			return nil, err
		}
		o.JWKS = ks
	}
	return httpapi.New(o)
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
	StepFunctions sfn.API
	Clock         service.Clock
	Log           *slog.Logger
}

// NewLambdaHTTP builds an HTTP Lambda function's handler from the
// environment read through getenv: configuration, the DynamoDB store, the
// agent named by A2A_AGENT from reg, and the routes of the function. Call
// it once per cold start. The functions keep tasks in DynamoDB and admit
// only bearer tokens: a configuration without them is refused.
func NewLambdaHTTP(ctx context.Context, getenv func(string) string, reg *agent.Registry, routes httpapi.Routes, logOut io.Writer) (http.Handler, error) {
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
	store, err := OpenDynamoStore(ctx, cfg, StoreOptions{Log: log})
	if err != nil {
		return nil, err
	}
	o := LambdaOptions{Routes: routes, Log: log}
	if cfg.Execution.Mode != config.ExecutionInline {
		awsCfg, err := AWSConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		o.StepFunctions = awssfn.NewFromConfig(awsCfg)
	}
	return NewLambdaHandler(cfg, ag, store, o)
}

// lambdaRunner returns the runner of the execution mode, and whether it
// runs blocking sends' steps in the request (the service then need not wait
// for them).
func lambdaRunner(cfg config.Config, exec *service.Executor, store LambdaStore, o LambdaOptions) (service.Runner, bool, error) {
	budget := inline.Options{Budget: cfg.BlockingTimeout, Logger: o.Log}
	if cfg.Execution.Mode == config.ExecutionInline {
		return inline.New(exec, store, budget), true, nil
	}
	if o.StepFunctions == nil {
		return nil, false, fmt.Errorf("A2A_EXECUTION=%s needs a Step Functions client", cfg.Execution.Mode)
	}
	machine, err := sfn.New(o.StepFunctions, sfn.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: o.Log})
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
// through getenv: configuration, the DynamoDB store and the agent named by
// A2A_AGENT from reg. Call it once per cold start.
func NewWorkerFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (*worker.Handler, error) {
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
	return NewWorker(cfg, ag, store, log), nil
}

// NewWorker assembles the worker around store.
func NewWorker(cfg config.Config, ag agent.Agent, store service.Store, log *slog.Logger) *worker.Handler {
	return worker.New(service.NewExecutor(store, ag, ExecutorOptions(cfg, nil, log)), log)
}

// checkLambdaConfig refuses what cannot work in Lambda.
func checkLambdaConfig(cfg config.Config) error {
	var errs []error
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		errs = append(errs, fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: a Lambda function forgets everything between invocations; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend))
	}
	if cfg.Push.AllowInsecure {
		errs = append(errs, errors.New("A2A_PUSH_ALLOW_INSECURE=true is for local development: in Lambda, loopback reaches the Lambda Runtime API"))
	}
	return errors.Join(append(errs, requireTokens(cfg))...)
}

func requireTokens(cfg config.Config) error {
	if len(cfg.Tokens) == 0 {
		return errors.New("A2A_BEARER_TOKEN (or A2A_BEARER_TOKENS) is required: the Lambda functions do not serve anonymous callers")
	}
	return nil
}

// NewLambdaHandler assembles an HTTP Lambda function around store: the
// agent's executor, the runner of the execution mode, the service and the
// HTTP edge with bearer authentication. Card URLs come from A2A_PUBLIC_URL,
// or from each request when it is unset.
func NewLambdaHandler(cfg config.Config, ag agent.Agent, store LambdaStore, o LambdaOptions) (http.Handler, error) {
	if err := requireTokens(cfg); err != nil {
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
		Service:      svc,
		Auth:         auth.NewBearer(cfg.Tokens),
		Cards:        Cards(ag.Info(), true, cfg.Push.Enabled),
		PublicURL:    cfg.ConfiguredPublicURL,
		MaxBodyBytes: cfg.MaxRequestBodyBytes,
		Routes:       o.Routes,
		Logger:       o.Log,
	})
}
