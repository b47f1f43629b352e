// Package stepfunctions runs the steps of tasks that go on past a step on
// AWS Step Functions: an execution of the state machine of
// infra/statemachine.asl.json calls the worker function for every action of
// the step protocol, waits between steps at no cost, and parks on a task
// token while the task waits for its client. A task's first step never
// starts one (it runs in the request, or on the asynchronous path): state
// transitions are the most expensive thing a task can pay for.
package stepfunctions

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

// API is the part of Step Functions the runner calls; *sfncall.Client
// implements it. Step Functions' refusals are told apart by their codes
// (awscall.Refused).
type API interface {
	StartExecution(ctx context.Context, in sfncall.Execution) (sfncall.Started, error)
	StopExecution(ctx context.Context, executionARN, errorName, cause string) error
	SendTaskSuccess(ctx context.Context, taskToken, output string) error
	SendTaskFailure(ctx context.Context, taskToken, errorName, cause string) error
}

// ErrorTaskCanceled is the error the runner fails a waiting execution with
// when its task is canceled; the state machine catches it and ends.
const ErrorTaskCanceled = "TaskCanceled"

// Options configure a Runner.
type Options struct {
	// StateMachineARN is the state machine to start (required).
	StateMachineARN string
	// InterruptTTL bounds how long an execution waits for a reply
	// (A2A_INTERRUPT_REQUEST_TTL_SECONDS); it goes in each execution's input.
	// Zero is config.DefaultInterruptTTL.
	InterruptTTL time.Duration
	// MaxSteps is how many steps an execution runs at most before the
	// state machine continues the task in a new execution (so that no
	// execution reaches Step Functions' 25,000 history events); 0 means
	// DefaultMaxSteps.
	MaxSteps int
	Logger   *slog.Logger
}

// DefaultMaxSteps keeps an execution far below Step Functions' 25,000
// history events: a continue or await loop records about 9, a retried
// invocation a few more.
const DefaultMaxSteps = 500

// Runner is a engine.Runner on Step Functions.
type Runner struct {
	api      API
	arn      string
	ttl      time.Duration
	maxSteps int
	log      *slog.Logger
}

var _ engine.Runner = (*Runner)(nil)

// New returns a runner starting executions of the state machine o names.
func New(api API, o Options) (*Runner, error) {
	if api == nil {
		return nil, errors.New("stepfunctions: a Step Functions client is required")
	}
	if !strings.Contains(o.StateMachineARN, ":stateMachine:") {
		return nil, fmt.Errorf("stepfunctions: %q is not a state machine ARN", o.StateMachineARN)
	}
	r := &Runner{api: api, arn: o.StateMachineARN, ttl: o.InterruptTTL, maxSteps: o.MaxSteps, log: o.Logger}
	r.ttl = positive.Or(r.ttl, config.DefaultInterruptTTL)
	r.maxSteps = positive.Or(r.maxSteps, DefaultMaxSteps)
	r.log = cmp.Or(r.log, slog.New(slog.DiscardHandler))
	return r, nil
}

// Input is an execution's input (see infra/statemachine.asl.json).
type Input struct {
	TaskID string `json:"taskId"`
	// StartAt is step, continue or await.
	StartAt string `json:"startAt"`
	// Trigger is what started the first step: message, reply or continue.
	Trigger             string `json:"trigger"`
	RequestID           string `json:"requestId"`
	AfterSeconds        int    `json:"afterSeconds"`
	InterruptTTLSeconds int    `json:"interruptTtlSeconds"`
	// Steps counts the steps of this execution (1 for its first);
	// MaxSteps is its budget (see Options.MaxSteps). Without them the
	// state machine starts at 1 of 500.
	Steps    int `json:"steps,omitempty"`
	MaxSteps int `json:"maxSteps,omitempty"`
}

// Start implements engine.Runner for the work that goes on past a step:
//
//   - a reply to an interrupt whose execution waits on job.TaskToken resumes
//     it (SendTaskSuccess); when that execution no longer waits, Start
//     returns ErrNotWaiting and the reply's step is the caller's to run;
//   - a Resume starts an execution that waits before the next step, or
//     shows the interrupt the last step asked for and waits for its reply.
//     It is named by the task and its version after that step (or the
//     interrupt), so that a retried hand-over starts it once.
//
// Any other job is a step to run now, which is not Step Functions' work:
// Start refuses it.
func (r *Runner) Start(ctx context.Context, job engine.Job) error {
	switch {
	case job.Reply != nil && job.TaskToken != "":
		return r.sendReply(ctx, job)
	case job.Resume != nil && job.Resume.AwaitRequestID != "":
		in := Input{TaskID: job.TaskID, StartAt: "await", Trigger: string(engine.NextAwait.Trigger()), RequestID: job.Resume.AwaitRequestID}
		return r.startExecution(ctx, job.TaskID+"-"+job.Resume.AwaitRequestID, in)
	case job.Resume != nil:
		in := Input{TaskID: job.TaskID, StartAt: "continue", Trigger: string(engine.NextContinue.Trigger()),
			AfterSeconds: int(math.Ceil(job.Resume.After.Seconds()))}
		return r.startExecution(ctx, fmt.Sprintf("%s-v%d", job.TaskID, job.Resume.Version), in)
	}
	return fmt.Errorf("stepfunctions: task %s: a step to run now goes to the asynchronous path, not to an execution", job.TaskID)
}

func (r *Runner) startExecution(ctx context.Context, name string, in Input) error {
	in.InterruptTTLSeconds = int(math.Ceil(r.ttl.Seconds()))
	in.Steps, in.MaxSteps = 1, r.maxSteps
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("stepfunctions: encode input: %w", err)
	}
	_, err = r.api.StartExecution(ctx, sfncall.Execution{
		StateMachineARN: r.arn, Name: executionName(name), Input: string(b),
		// The execution, and the worker it invokes, join the caller's trace
		// (tracing.Header keeps Step Functions' 256-character limit).
		TraceHeader: tracing.Header(ctx),
	})
	if awscall.Refused(err, sfncall.ExecutionAlreadyExists) {
		r.log.InfoContext(ctx, "execution already started", "taskId", in.TaskID, "execution", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("stepfunctions: start execution for task %s: %w", in.TaskID, err)
	}
	return nil
}

// ErrNotWaiting is Start's answer to a reply whose execution no longer
// waits on its token (it timed out, failed or was stopped).
var ErrNotWaiting = errors.New("stepfunctions: the execution no longer waits")

func (r *Runner) sendReply(ctx context.Context, job engine.Job) error {
	out, err := json.Marshal(map[string]string{"requestId": job.Reply.RequestID})
	if err != nil {
		return fmt.Errorf("stepfunctions: encode reply: %w", err)
	}
	err = r.api.SendTaskSuccess(ctx, job.TaskToken, string(out))
	if notWaiting(err) {
		return ErrNotWaiting
	}
	if err != nil {
		return fmt.Errorf("stepfunctions: resume task %s: %w", job.TaskID, err)
	}
	return nil
}

func notWaiting(err error) bool {
	return awscall.Refused(err, sfncall.InvalidToken, sfncall.TaskDoesNotExist, sfncall.TaskTimedOut)
}

// Cancel implements engine.Runner: an execution waiting on the task's
// interrupt is failed through its token (the state machine ends it), and
// the execution that last ran a step of the task, which the task records
// (store.TaskRecord.ExecutionARN), is stopped. No execution is looked for.
// Both are best effort: a step still running stops at its next write,
// which the store refuses for a canceled task, and an execution that waits
// to run a step finds the task canceled and ends.
func (r *Runner) Cancel(ctx context.Context, req engine.CancelRequest) error {
	var errs []error
	if req.TaskToken != "" {
		err := r.api.SendTaskFailure(ctx, req.TaskToken, ErrorTaskCanceled, "the client canceled the task")
		if err != nil && !notWaiting(err) {
			errs = append(errs, fmt.Errorf("stepfunctions: fail the waiting execution of task %s: %w", req.TaskID, err))
		}
	}
	if req.ExecutionARN != "" {
		errs = append(errs, r.stop(ctx, req.TaskID, req.ExecutionARN))
	}
	return errors.Join(errs...)
}

// stop stops one execution of a task; one that no longer runs is fine.
func (r *Runner) stop(ctx context.Context, taskID, arn string) error {
	err := r.api.StopExecution(ctx, arn, ErrorTaskCanceled, "the client canceled the task")
	if err != nil && !awscall.Refused(err, sfncall.ExecutionDoesNotExist) {
		return fmt.Errorf("stepfunctions: stop the execution of task %s: %w", taskID, err)
	}
	return nil
}

// executionName makes a name Step Functions accepts (at most 80 characters
// of letters, digits, '-' and '_'); task and request ids are UUIDs, so this
// only guards against ids of other shapes.
func executionName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}
