package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/worker"
)

// NewWorkerFunction builds the worker function's handler (the Step
// Functions task of infra/statemachine.asl.json) from the environment read
// through getenv (see boot.Start): the DynamoDB store and the agent named
// by A2A_AGENT from reg. Call it once per cold start.
func NewWorkerFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (*worker.Handler, error) {
	env, err := boot.Start(ctx, getenv, logOut, checkWorkerStore)
	if err != nil {
		return nil, err
	}
	d, err := openDeps(ctx, env, reg, false)
	if err != nil {
		return nil, err
	}
	return NewWorker(env.Config, d.agent, d.store, nil, env.Log), nil
}

// WorkerFunction builds the worker function's Lambda handler
// (NewWorkerFunction).
func WorkerFunction(reg *agent.Registry) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := NewWorkerFunction(ctx, getenv, reg, logOut)
		if err != nil {
			return nil, err
		}
		return h.Handle, nil
	}
}

// checkWorkerStore refuses a worker without the DynamoDB store.
func checkWorkerStore(cfg config.Config) error {
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		return fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: the worker reads tasks from DynamoDB; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend)
	}
	return nil
}

// NewWorker assembles the worker around store; clk tells the time (nil:
// the system clock).
func NewWorker(cfg config.Config, ag agent.Agent, store service.Store, clk clock.Clock, log *slog.Logger) *worker.Handler {
	return worker.New(service.NewExecutor(store, ag, ExecutorOptions(cfg, clk, log)), log)
}
