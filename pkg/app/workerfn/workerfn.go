// Package workerfn assembles the worker function, the Lambda function the
// state machine (infra/statemachine.asl.json) calls for every action of a
// task's step protocol. It links the DynamoDB clients and no other AWS
// service client; a test in functions/ holds the binary to that.
package workerfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/serviceopts"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/taskstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/worker"
)

// New builds the worker function's handler from the environment read
// through getenv (see boot.Start): the DynamoDB store and the agent named
// by A2A_AGENT from reg. Call it once per cold start.
func New(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (*worker.Handler, error) {
	fn, err := taskstore.StartFunction(ctx, getenv, logOut, reg, checkStore)
	if err != nil {
		return nil, err
	}
	return NewHandler(fn.Config, fn.Agent, fn.Store, nil, fn.Log), nil
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

// NewHandler assembles the worker around store; clk tells the time (nil:
// the system clock).
func NewHandler(cfg config.Config, ag agent.Agent, store service.Store, clk clock.Clock, log *slog.Logger) *worker.Handler {
	return worker.New(service.NewExecutor(store, ag, serviceopts.Executor(cfg, clk, log)), log)
}
