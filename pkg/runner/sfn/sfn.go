// Package sfn runs tasks on AWS Step Functions: each task's steps run in an
// execution of the state machine of infra/statemachine.asl.json, which calls
// the worker function for every action of the step protocol, waits between
// steps at no cost, and parks on a task token while the task waits for its
// client.
package sfn

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

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// API is the part of the Step Functions client the runner uses;
// *sfn.Client implements it.
type API interface {
	StartExecution(ctx context.Context, in *awssfn.StartExecutionInput, optFns ...func(*awssfn.Options)) (*awssfn.StartExecutionOutput, error)
	StopExecution(ctx context.Context, in *awssfn.StopExecutionInput, optFns ...func(*awssfn.Options)) (*awssfn.StopExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, in *awssfn.SendTaskSuccessInput, optFns ...func(*awssfn.Options)) (*awssfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *awssfn.SendTaskFailureInput, optFns ...func(*awssfn.Options)) (*awssfn.SendTaskFailureOutput, error)
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
	InterruptTTL time.Duration
	Logger       *slog.Logger
}

// Runner is a service.Runner on Step Functions.
type Runner struct {
	api     API
	arn     string
	ttl     time.Duration
	log     *slog.Logger
	execARN string // the state machine ARN's prefix for execution ARNs
}

var _ service.Runner = (*Runner)(nil)

// New returns a runner starting executions of the state machine o names.
func New(api API, o Options) (*Runner, error) {
	if api == nil {
		return nil, errors.New("sfn: a Step Functions client is required")
	}
	if !strings.Contains(o.StateMachineARN, ":stateMachine:") {
		return nil, fmt.Errorf("sfn: %q is not a state machine ARN", o.StateMachineARN)
	}
	r := &Runner{api: api, arn: o.StateMachineARN, ttl: o.InterruptTTL, log: o.Logger,
		execARN: strings.Replace(o.StateMachineARN, ":stateMachine:", ":execution:", 1)}
	if r.ttl <= 0 {
		r.ttl = service.DefaultInterruptTTL
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
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
}

// Start implements service.Runner. A new task starts an execution named by
// its id, so a retried start is idempotent. A reply resumes the execution
// waiting on its token; without a token (the task waited under another
// runner), or when that execution no longer waits, a new execution runs the
// reply's step.
func (r *Runner) Start(ctx context.Context, job service.Job) error {
	in := Input{TaskID: job.TaskID, StartAt: "step", Trigger: string(service.TriggerMessage)}
	name := job.TaskID
	switch {
	case job.Reply != nil:
		if job.TaskToken != "" {
			err := r.sendReply(ctx, job)
			if err == nil || !errors.Is(err, errNotWaiting) {
				return err
			}
			r.log.WarnContext(ctx, "the execution no longer waits for this reply; starting one for it", "taskId", job.TaskID, "requestId", job.Reply.RequestID)
		}
		in.Trigger, in.RequestID = string(service.TriggerReply), job.Reply.RequestID
		name = job.TaskID + "-" + job.Reply.RequestID
	case job.Takeover > 0:
		// A step its runner left unfinished: a new execution runs it again
		// (execution names are never reused, hence the number).
		in.Trigger = string(cmp.Or(job.Trigger, service.TriggerMessage))
		name = fmt.Sprintf("%s-takeover-%d", job.TaskID, job.Takeover)
	case job.Resume != nil && job.Resume.AwaitRequestID != "":
		in.StartAt, in.Trigger, in.RequestID = "await", string(service.TriggerReply), job.Resume.AwaitRequestID
	case job.Resume != nil:
		in.StartAt, in.Trigger = "continue", string(service.TriggerContinue)
		in.AfterSeconds = int(math.Ceil(job.Resume.After.Seconds()))
	}
	return r.startExecution(ctx, name, in)
}

// Defer implements the inline runner's hand-off: work a request could not
// run itself goes to an execution.
func (r *Runner) Defer(ctx context.Context, job service.Job) error { return r.Start(ctx, job) }

func (r *Runner) startExecution(ctx context.Context, name string, in Input) error {
	in.InterruptTTLSeconds = int(math.Ceil(r.ttl.Seconds()))
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("sfn: encode input: %w", err)
	}
	_, err = r.api.StartExecution(ctx, &awssfn.StartExecutionInput{
		StateMachineArn: aws.String(r.arn), Name: aws.String(executionName(name)), Input: aws.String(string(b)),
	})
	var exists *types.ExecutionAlreadyExists
	if errors.As(err, &exists) {
		r.log.InfoContext(ctx, "execution already started", "taskId", in.TaskID, "execution", name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfn: start execution for task %s: %w", in.TaskID, err)
	}
	return nil
}

// errNotWaiting: the token's execution no longer waits (it timed out,
// failed or was stopped).
var errNotWaiting = errors.New("sfn: the execution no longer waits")

func (r *Runner) sendReply(ctx context.Context, job service.Job) error {
	out, err := json.Marshal(map[string]string{"requestId": job.Reply.RequestID})
	if err != nil {
		return fmt.Errorf("sfn: encode reply: %w", err)
	}
	_, err = r.api.SendTaskSuccess(ctx, &awssfn.SendTaskSuccessInput{TaskToken: aws.String(job.TaskToken), Output: aws.String(string(out))})
	if notWaiting(err) {
		return errNotWaiting
	}
	if err != nil {
		return fmt.Errorf("sfn: resume task %s: %w", job.TaskID, err)
	}
	return nil
}

func notWaiting(err error) bool {
	var (
		invalid  *types.InvalidToken
		gone     *types.TaskDoesNotExist
		timedOut *types.TaskTimedOut
	)
	return errors.As(err, &invalid) || errors.As(err, &gone) || errors.As(err, &timedOut)
}

// Cancel implements service.Runner: an execution waiting on the task's
// interrupt is failed through its token (the state machine ends it), and the
// task's execution is stopped. Both are best effort; a step still running
// stops at its next write, which the store refuses for a canceled task.
func (r *Runner) Cancel(ctx context.Context, req service.CancelRequest) error {
	var errs []error
	if req.TaskToken != "" {
		_, err := r.api.SendTaskFailure(ctx, &awssfn.SendTaskFailureInput{
			TaskToken: aws.String(req.TaskToken), Error: aws.String(ErrorTaskCanceled), Cause: aws.String("the client canceled the task"),
		})
		if err != nil && !notWaiting(err) {
			errs = append(errs, fmt.Errorf("sfn: fail the waiting execution of task %s: %w", req.TaskID, err))
		}
	}
	_, err := r.api.StopExecution(ctx, &awssfn.StopExecutionInput{
		ExecutionArn: aws.String(r.execARN + ":" + executionName(req.TaskID)), Error: aws.String(ErrorTaskCanceled), Cause: aws.String("the client canceled the task"),
	})
	var missing *types.ExecutionDoesNotExist
	if err != nil && !errors.As(err, &missing) {
		errs = append(errs, fmt.Errorf("sfn: stop the execution of task %s: %w", req.TaskID, err))
	}
	return errors.Join(errs...)
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
