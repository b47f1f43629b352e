// Package workerfn assembles the worker function: the Lambda function the
// state machine (infra/statemachine.asl.json) calls for every action of a
// task's step protocol, and the asynchronous path invokes to run the steps
// no request runs (a task's first step, a reply, a takeover). It links no
// package of an AWS SDK service client: the store calls DynamoDB through
// pkg/dynamodb, and a run whose step continues, or asks for input, starts
// the execution that follows it through pkg/internal/sfncall. A test in
// functions/ holds the binary to that.
package workerfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// New builds the worker function's handler from the environment read
// through getenv (see boot.Start): the DynamoDB store, the agent named by
// A2A_AGENT from reg, and the state machine of A2A_STATE_MACHINE_ARN. Call
// it once per cold start.
func New(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (*worker.Handler, error) {
	fn, err := setup.StartFunction(ctx, getenv, logOut, reg, checkStore)
	if err != nil {
		return nil, err
	}
	var api stepfunctions.API
	if fn.Config.Execution.StateMachineARN != "" {
		if api, err = sfncall.New(fn.AWS, sfncall.Options{}); err != nil {
			return nil, err
		}
	}
	return NewHandler(fn.Config, fn.Agent, fn.Store, api, fn.Files, nil, fn.Log)
}

// Function builds the worker function's Lambda handler (New).
func Function(reg *agent.Registry) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := New(ctx, getenv, reg, logOut)
		if err != nil {
			return nil, err
		}
		return h.Handle, nil
	}
}

// checkStore refuses a worker without the DynamoDB store.
func checkStore(cfg config.Config) error {
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		return fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: the worker reads tasks from DynamoDB; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend)
	}
	return nil
}

// NewHandler assembles the worker around store. api is the Step Functions
// client of the state machine that A2A_STATE_MACHINE_ARN names, which
// takes over a task that goes on past a run's step (nil when none is
// named: the worker then serves the state machine only); fs keeps the
// parts too large for a task item (nil: none); clk tells the time (nil:
// the system clock).
func NewHandler(cfg config.Config, ag agent.Agent, store store.Store, api stepfunctions.API, fs *files.Files, clk clock.Clock, log *slog.Logger) (*worker.Handler, error) {
	if fs == nil {
		fs = setup.Files(cfg, nil, clk, log)
	}
	var machine worker.Starter
	if api != nil {
		m, err := stepfunctions.New(api, stepfunctions.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: log})
		if err != nil {
			return nil, err
		}
		machine = m
	}
	return worker.New(engine.NewExecutor(store, ag, setup.Executor(cfg, clk, log, fs)), machine, log), nil
}
