// Package sweepfn assembles the sweep function, which EventBridge invokes
// every minute to take over the tasks whose runner died. It links no
// package of an AWS SDK service client (the store calls DynamoDB through
// pkg/dynamodb; a taken-over task's step runs in the worker, invoked
// through pkg/internal/lambdainvoke, in the auto and stepfunctions modes);
// a test in functions/ holds the binary to that.
package sweepfn

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/lambdainvoke"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/async"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// Func is the sweep function's handler: one sweep per scheduled event.
type Func func(ctx context.Context, ev events.CloudWatchEvent) (engine.SweepResult, error)

// Store is what the sweep needs of a task store: the executor's, and a
// place to record the work the inline runner cannot run (the DynamoDB
// store is both).
type Store interface {
	engine.Store
	inline.Recorder
}

// New builds the sweep function's handler (scheduled every minute by
// template.yaml) from the environment read through getenv: the DynamoDB
// store, the agent named by A2A_AGENT from reg and the runner of the
// execution mode. Every tick it takes over the tasks whose lease lapsed: a
// send function that crashed or timed out in the middle of an inline step,
// a worker that died in a step it ran on the asynchronous path, an
// invocation that never reached the worker, a task a non-blocking send
// left to no runner (A2A_EXECUTION=inline). In auto and stepfunctions
// modes a taken-over task's step runs in the worker (an asynchronous
// invocation); in inline mode it runs in the sweep's invocation. Call it
// once per cold start.
func New(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (Func, error) {
	// The sweep's store publishes no DynamoDB capacity metrics: its Query a
	// minute would keep two custom metrics published all month (USD 0.60 a
	// month, most of what an idle stack costs), for 0.5 read units.
	fn, err := setup.StartFunction(metrics.WithoutSink(ctx), getenv, logOut, reg, boot.CheckLambdaStore)
	if err != nil {
		return nil, err
	}
	var inv async.Invoker
	if fn.Config.Execution.Mode != config.ExecutionInline {
		if inv, err = lambdainvoke.New(fn.AWS, lambdainvoke.Options{Endpoint: fn.Config.AWS.LambdaEndpointURL}); err != nil {
			return nil, err
		}
	}
	return NewHandler(fn.Config, fn.Agent, fn.Store, inv, fn.Files, nil, fn.Log)
}

// Function builds the sweep function's Lambda handler (New).
func Function(reg *agent.Registry) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		return New(ctx, getenv, reg, logOut)
	}
}

// NewHandler assembles the sweep function around store; inv invokes the
// worker (A2A_WORKER_FUNCTION) in the auto and stepfunctions modes (nil in
// inline mode), fs keeps the parts too large for a task item (nil: none),
// clk tells the time (nil: the system clock).
func NewHandler(cfg config.Config, ag agent.Agent, store Store, inv async.Invoker, fs *files.Files, clk clock.Clock, log *slog.Logger) (Func, error) {
	if fs == nil {
		fs = setup.Files(cfg, nil, clk, log)
	}
	exec := engine.NewExecutor(store, ag, setup.Executor(cfg, clk, log, fs))
	var r engine.Starter
	if cfg.Execution.Mode == config.ExecutionInline {
		r = blockingStarter{inline.New(exec, inline.Record(store), inline.Options{Budget: cfg.BlockingTimeout, Clock: clk, Logger: log})}
	} else {
		if inv == nil {
			return nil, fmt.Errorf("A2A_EXECUTION=%s needs a Lambda client to invoke the worker", cfg.Execution.Mode)
		}
		steps, err := async.New(inv, cfg.Execution.WorkerFunction, log)
		if err != nil {
			return nil, err
		}
		r = steps
	}
	return func(ctx context.Context, ev events.CloudWatchEvent) (engine.SweepResult, error) {
		if ev.DetailType != "Scheduled Event" {
			return engine.SweepResult{}, fmt.Errorf("sweep: want an EventBridge scheduled event, got detail-type %q", ev.DetailType)
		}
		res, err := exec.Sweep(ctx, r)
		level := slog.LevelInfo
		if res.TakenOver == 0 && res.Failed == 0 && err == nil {
			level = slog.LevelDebug // the usual minute: nothing was stuck
		}
		log.Log(ctx, level, "swept tasks whose runner died", "takenOver", res.TakenOver, "failed", res.Failed, "error", err)
		return res, err
	}, nil
}

// blockingStarter runs a job's steps in the caller's invocation (the inline
// runner defers non-blocking jobs).
type blockingStarter struct{ r *inline.Runner }

func (b blockingStarter) Start(ctx context.Context, job engine.Job) error {
	job.Blocking = true
	return b.r.Start(ctx, job)
}
