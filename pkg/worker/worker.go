// Package worker is the Step Functions task handler: the worker Lambda runs
// the actions of the step protocol that infra/statemachine.asl.json asks for.
//
//	step    run one agent step                    (state Step)
//	await   show the step's interrupt and bind    (state AwaitInput, invoked
//	        the execution's task token to it       with .waitForTaskToken)
//	expire  fail a task whose interrupt got no    (state Expire, after the
//	        reply in time                          AwaitInput timeout)
//	fail    fail a task whose step errored        (state MarkFailed)
//
// Inputs and results carry ids, never task bodies: the state of an execution
// is limited to 256 KB, and the task lives in the store.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Actions.
const (
	ActionStep   = "step"
	ActionAwait  = "await"
	ActionExpire = "expire"
	ActionFail   = "fail"
)

// Event is the worker's input, built by the state machine.
type Event struct {
	Action string `json:"action"`
	TaskID string `json:"taskId"`
	// Trigger says what started a step: message, reply or continue.
	Trigger string `json:"trigger,omitempty"`
	// RequestID names the interrupt (await, expire).
	RequestID string `json:"requestId,omitempty"`
	// TaskToken is the execution's callback token (await).
	TaskToken string `json:"taskToken,omitempty"`
	// Error is the error a Catch recorded (fail).
	Error *StateError `json:"error,omitempty"`
}

// StateError is what Step Functions records of a caught error.
type StateError struct {
	Error string `json:"Error"`
	Cause string `json:"Cause"`
}

// Result is the worker's output, read by the state machine's Route choice.
type Result struct {
	// Next is continue, await or done.
	Next string `json:"next"`
	// AfterSeconds is the wait before the next step (continue).
	AfterSeconds int `json:"afterSeconds"`
	// RequestID names the interrupt to await (await).
	RequestID string `json:"requestId"`
	// State is the task's state after the action.
	State string `json:"state"`
}

// Executor runs the actions; *service.Executor is one.
type Executor interface {
	Step(ctx context.Context, req service.StepRequest) (service.StepResult, error)
	Await(ctx context.Context, req service.AwaitRequest) (service.StepResult, error)
	Expire(ctx context.Context, taskID, requestID string) (service.StepResult, error)
	Fail(ctx context.Context, taskID, reason string) (service.StepResult, error)
}

// Handler handles the worker's events.
type Handler struct {
	exec Executor
	log  *slog.Logger
}

// New returns a handler running exec's actions.
func New(exec Executor, log *slog.Logger) *Handler {
	log = logger.Or(log)
	return &Handler{exec: exec, log: log}
}

// ErrBadEvent is returned for an event the state machine would never send.
var ErrBadEvent = errors.New("worker: bad event")

// Handle runs one action. An error fails the state machine's task state:
// Step and AwaitInput then catch it and fail the task with MarkFailed.
func (h *Handler) Handle(ctx context.Context, ev Event) (Result, error) {
	logfields.Add(ctx, logfields.FieldTaskID, ev.TaskID, "action", ev.Action)
	if ev.TaskID == "" {
		return Result{}, fmt.Errorf("%w: taskId is required", ErrBadEvent)
	}
	var (
		res service.StepResult
		err error
	)
	switch ev.Action {
	case ActionStep:
		trigger := service.Trigger(ev.Trigger)
		switch trigger {
		case service.TriggerMessage, service.TriggerReply, service.TriggerContinue:
		default:
			return Result{}, fmt.Errorf("%w: step trigger %q is not message, reply or continue", ErrBadEvent, ev.Trigger)
		}
		res, err = h.exec.Step(ctx, service.StepRequest{TaskID: ev.TaskID, Trigger: trigger})
	case ActionAwait:
		if ev.RequestID == "" || ev.TaskToken == "" {
			return Result{}, fmt.Errorf("%w: await needs requestId and taskToken", ErrBadEvent)
		}
		res, err = h.exec.Await(ctx, service.AwaitRequest{TaskID: ev.TaskID, RequestID: ev.RequestID, TaskToken: ev.TaskToken})
	case ActionExpire:
		res, err = h.exec.Expire(ctx, ev.TaskID, ev.RequestID)
	case ActionFail:
		res, err = h.exec.Fail(ctx, ev.TaskID, failureMessage(ev.Error))
	default:
		return Result{}, fmt.Errorf("%w: unknown action %q", ErrBadEvent, ev.Action)
	}
	if err != nil {
		h.log.ErrorContext(ctx, "worker action failed", "action", ev.Action, "taskId", ev.TaskID, "error", err)
		return Result{}, err
	}
	h.log.DebugContext(ctx, "worker action done", "action", ev.Action, "taskId", ev.TaskID, "next", res.Next, "state", res.State)
	return Result{
		Next:         string(res.Next),
		AfterSeconds: int(math.Ceil(res.After.Seconds())),
		RequestID:    res.RequestID,
		State:        string(res.State),
	}, nil
}

// failureMessage is the status message of a task whose step failed: what
// went wrong, from the error Step Functions caught, without a stack trace.
func failureMessage(e *StateError) string {
	if e == nil {
		return "The task failed: its step did not complete."
	}
	cause := e.Cause
	// Lambda errors arrive as JSON {"errorMessage": ..., "errorType": ...};
	// keep the message.
	if i := strings.Index(cause, `"errorMessage":"`); i >= 0 {
		rest := cause[i+len(`"errorMessage":"`):]
		if j := strings.Index(rest, `"`); j >= 0 {
			cause = rest[:j]
		}
	}
	const max = 300
	if len(cause) > max {
		cause = cause[:max] + "..."
	}
	switch e.Error {
	case "States.Timeout", "Sandbox.Timedout":
		return "The task failed: a step ran out of time."
	case "":
		return "The task failed: " + cause
	}
	if cause == "" {
		return "The task failed: " + e.Error + "."
	}
	return "The task failed: " + e.Error + ": " + cause
}
