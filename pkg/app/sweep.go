package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// sweepLoop takes over, at once and then every interval, the tasks whose
// lease lapsed (their runner died: this server before a restart, or
// another process on the same table), running them on r. The returned
// function stops it and waits.
func sweepLoop(exec *service.Executor, r service.Starter, clk clock.Clock, every time.Duration, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			res, err := exec.Sweep(ctx, r)
			if err != nil && ctx.Err() == nil {
				log.ErrorContext(ctx, "sweep for tasks whose runner died failed", "error", err)
			}
			if res.TakenOver+res.Failed > 0 {
				log.InfoContext(ctx, "swept tasks whose runner died", "takenOver", res.TakenOver, "failed", res.Failed)
			}
			if clock.Sleep(ctx, clk, every) != nil {
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// SweepFunc is the sweep function's handler: one sweep per scheduled
// event.
type SweepFunc func(ctx context.Context, ev events.CloudWatchEvent) (service.SweepResult, error)

// NewSweepFunction builds the sweep function's handler (scheduled every
// minute by template.yaml) from the environment read through getenv: the
// DynamoDB store, the agent named by A2A_AGENT from reg and the runner of
// the execution mode. Every tick it takes over the tasks whose lease
// lapsed: a send function that crashed or timed out in the middle of an
// inline step, a task a non-blocking send left to no runner (A2A_EXECUTION
// =inline). In auto and stepfunctions modes a taken-over task's step runs
// in a new state machine execution; in inline mode it runs in the sweep's
// invocation. Call it once per cold start.
func NewSweepFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (SweepFunc, error) {
	env, err := boot.Start(ctx, getenv, logOut, checkLambdaStore)
	if err != nil {
		return nil, err
	}
	d, err := openDeps(ctx, env, reg, true)
	if err != nil {
		return nil, err
	}
	return NewSweeper(env.Config, d.agent, d.store, d.machine, nil, env.Log)
}

// SweepFunction builds the sweep function's Lambda handler
// (NewSweepFunction).
func SweepFunction(reg *agent.Registry) boot.Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		return NewSweepFunction(ctx, getenv, reg, logOut)
	}
}

// NewSweeper assembles the sweep function around store; api is the Step
// Functions client of the auto and stepfunctions modes (nil in inline
// mode), clk tells the time (nil: the system clock).
func NewSweeper(cfg config.Config, ag agent.Agent, store LambdaStore, api stepfunctions.API, clk clock.Clock, log *slog.Logger) (SweepFunc, error) {
	exec := service.NewExecutor(store, ag, ExecutorOptions(cfg, clk, log))
	var r service.Starter
	if cfg.Execution.Mode == config.ExecutionInline {
		r = blockingStarter{inline.New(exec, store, inline.Options{Budget: cfg.BlockingTimeout, Clock: clk, Logger: log})}
	} else {
		if api == nil {
			return nil, fmt.Errorf("A2A_EXECUTION=%s needs a Step Functions client", cfg.Execution.Mode)
		}
		machine, err := stepfunctions.New(api, stepfunctions.Options{StateMachineARN: cfg.Execution.StateMachineARN, InterruptTTL: cfg.InterruptTTL, Logger: log})
		if err != nil {
			return nil, err
		}
		r = machine
	}
	return func(ctx context.Context, ev events.CloudWatchEvent) (service.SweepResult, error) {
		if ev.DetailType != "Scheduled Event" {
			return service.SweepResult{}, fmt.Errorf("sweep: want an EventBridge scheduled event, got detail-type %q", ev.DetailType)
		}
		res, err := exec.Sweep(ctx, r)
		log.InfoContext(ctx, "swept tasks whose runner died", "takenOver", res.TakenOver, "failed", res.Failed, "error", err)
		return res, err
	}, nil
}

// blockingStarter runs a job's steps in the caller's invocation (the inline
// runner defers non-blocking jobs).
type blockingStarter struct{ r *inline.Runner }

func (b blockingStarter) Start(ctx context.Context, job service.Job) error {
	job.Blocking = true
	return b.r.Start(ctx, job)
}
