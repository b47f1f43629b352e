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
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

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
// environment read through getenv (see boot.Start): the DynamoDB store, the
// agent named by A2A_AGENT from reg, and the routes of the function. Call
// it once per cold start. The functions keep tasks in DynamoDB and never
// serve anonymous callers: they need bearer tokens, or A2A_AUTH=jwt behind
// API Gateway's JWT authorizer.
func NewLambdaHTTP(ctx context.Context, getenv func(string) string, reg *agent.Registry, routes httpapi.Routes, logOut io.Writer) (http.Handler, error) {
	env, err := boot.Start(ctx, getenv, logOut, checkLambdaConfig)
	if err != nil {
		return nil, err
	}
	d, err := openDeps(ctx, env, reg, true)
	if err != nil {
		return nil, err
	}
	return NewLambdaHandler(env.Config, d.agent, d.store, LambdaOptions{Routes: routes, Log: env.Log, StepFunctions: d.machine})
}

// httpFunction builds an HTTP function's Lambda handler: NewLambdaHTTP
// behind the HTTP API adapter, which logs its own failures as function.
func httpFunction(function string, reg *agent.Registry, routes httpapi.Routes) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := NewLambdaHTTP(ctx, getenv, reg, routes, logOut)
		if err != nil {
			return nil, err
		}
		return boot.LambdaHTTP(h, boot.NewLogger(logOut, slog.LevelError).With("function", function)), nil
	}
}

// deps are what the functions that run agent steps open at a cold start.
type deps struct {
	agent agent.Agent
	store *dynamo.Store
	// machine is the Step Functions client of the auto and stepfunctions
	// execution modes (nil in inline mode).
	machine stepfunctions.API
}

// openDeps builds the agent A2A_AGENT names from reg, opens the DynamoDB
// store, and makes the Step Functions client when the execution mode
// starts executions and machine is asked for.
func openDeps(ctx context.Context, env boot.Env, reg *agent.Registry, machine bool) (deps, error) {
	ag, err := env.Agent(reg)
	if err != nil {
		return deps{}, err
	}
	awsCfg, err := boot.AWSConfig(env.Config, env.Getenv)
	if err != nil {
		return deps{}, err
	}
	store, err := OpenDynamoStore(ctx, env.Config, StoreOptions{Log: env.Log, AWS: &awsCfg})
	if err != nil {
		return deps{}, err
	}
	d := deps{agent: ag, store: store}
	if machine && env.Config.Execution.Mode != config.ExecutionInline {
		d.machine = sfn.NewFromConfig(awsCfg)
	}
	return d, nil
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
		Cards:           boot.Cards(ag.Info(), true, cfg.Push.Enabled, cfg.ProtocolVersions),
		Versions:        cfg.ProtocolVersions,
		PublicURL:       cfg.ConfiguredPublicURL,
		MaxBodyBytes:    cfg.MaxRequestBodyBytes,
		GzipMinimumSize: boot.GzipMinimumSize(cfg),
		Profile:         Profile(cfg, ag.Info(), cfg.TaskStore.Backend, cfg.Execution.Mode),
		Routes:          o.Routes,
		Logger:          o.Log,
		// A result above Lambda's response limit gets a typed error that
		// says how to ask for less, rather than a failed invocation.
		MaxResponseBytes: boot.MaxResponseBytes,
		ResponseSize:     boot.ResponseSize,
	})
}
