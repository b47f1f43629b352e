// Package worker is the worker Lambda's handler: it runs the actions of the
// step protocol that the state machine (infra/statemachine.asl.json) asks
// for, and the steps that reach it on the asynchronous path.
//
//	run     run a task's step outside a workflow:  (an asynchronous invoke:
//	        what follows it, if anything, goes to  a new task's first step,
//	        a state machine execution              a reply, a takeover)
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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Event is the worker's input, built by the state machine (and, for a run,
// by the asynchronous path: RunEvent). For run and step it is an
// engine.Job in the ids a state machine's state can hold.
type Event struct {
	// Action is what the worker is asked to do: one of the Action names.
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
	// ExecutionARN is the execution that asks for the step (step): the
	// step records it on the task, for a cancel to stop it.
	ExecutionARN string `json:"executionArn,omitempty"`
	// Takeover, when positive, is the takeover a run is (see
	// engine.Job.Takeover); the invocation's summary line names it.
	Takeover int `json:"takeover,omitempty"`
	// Carry is the execution's own bookkeeping (the task, the interrupt
	// TTL, the step count and budget), which a step hands back as it got
	// it: the state machine builds the next step's input from the step's
	// result, with no state of its own in between (each state entered is
	// a billed transition).
	Carry json.RawMessage `json:"carry,omitempty"`
}

// The actions of an Event (see the package comment).
const (
	ActionRun    = "run"
	ActionStep   = "step"
	ActionAwait  = "await"
	ActionExpire = "expire"
	ActionFail   = "fail"
)

// RunEvent is the run of job's step on the asynchronous path: the job as
// the worker gets it, by ids. The worker recovers the step's message (or
// reply) from the stored task by the trigger; a job that says none is a
// first step.
func RunEvent(job *engine.Job) Event {
	trigger := job.StepTrigger()
	if trigger == "" {
		trigger = store.TriggerMessage
	}
	return Event{Action: ActionRun, TaskID: job.TaskID, Trigger: string(trigger), Takeover: job.Takeover}
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
	// Trigger is what starts the next step: continue after a wait, reply
	// after an interrupt ("" when done).
	Trigger string `json:"trigger"`
	// State is the task's state after the action.
	State string `json:"state"`
	// Carry is the event's Carry, handed back (step).
	Carry json.RawMessage `json:"carry,omitempty"`
}

// Executor runs the actions; *engine.Executor is one.
type Executor interface {
	Step(ctx context.Context, req engine.Job) (engine.StepResult, error)
	Await(ctx context.Context, req engine.AwaitRequest) (engine.StepResult, error)
	Expire(ctx context.Context, taskID, requestID string) (engine.StepResult, error)
	Fail(ctx context.Context, taskID, reason string) (engine.StepResult, error)
}

// Starter hands work to a state machine execution; the Step Functions
// runner is one.
type Starter interface {
	Start(ctx context.Context, job engine.Job) error
}

// Handler handles the worker's events.
type Handler struct {
	exec    Executor
	machine Starter
	log     *slog.Logger
}

// New returns a handler running exec's actions. machine starts the
// executions that follow a run whose step continues or asks for input; nil
// when the worker is only the state machine's.
func New(exec Executor, machine Starter, log *slog.Logger) *Handler {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Handler{exec: exec, machine: machine, log: log}
}

// ErrBadEvent is returned for an event the state machine would never send.
var ErrBadEvent = errors.New("worker: bad event")

// Handle runs one action. An error fails the state machine's task state:
// Step and AwaitInput then catch it and fail the task with MarkFailed.
func (h *Handler) Handle(ctx context.Context, ev Event) (Result, error) {
	logfields.Add(ctx, logfields.FieldTaskID, ev.TaskID, "action", ev.Action)
	if ev.Takeover > 0 {
		// The run's line says it is a takeover, as the sweep's warning did.
		logfields.Add(ctx, "takeover", ev.Takeover)
	}
	if ev.TaskID == "" {
		return Result{}, fmt.Errorf("%w: taskId is required", ErrBadEvent)
	}
	var (
		res engine.StepResult
		err error
	)
	switch ev.Action {
	case ActionRun:
		trigger, terr := stepTrigger(ev)
		if terr != nil {
			return Result{}, terr
		}
		res, err = h.run(ctx, ev.TaskID, trigger)
	case ActionStep:
		trigger, terr := stepTrigger(ev)
		if terr != nil {
			return Result{}, terr
		}
		res, err = h.exec.Step(ctx, engine.Job{TaskID: ev.TaskID, Trigger: trigger, ExecutionARN: ev.ExecutionARN})
	case ActionAwait:
		if ev.RequestID == "" || ev.TaskToken == "" {
			return Result{}, fmt.Errorf("%w: await needs requestId and taskToken", ErrBadEvent)
		}
		res, err = h.exec.Await(ctx, engine.AwaitRequest{TaskID: ev.TaskID, RequestID: ev.RequestID, TaskToken: ev.TaskToken})
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
		Trigger:      string(res.Next.Trigger()),
		State:        string(res.State),
		Carry:        ev.Carry,
	}, nil
}

// stepTrigger is the trigger of ev's step.
func stepTrigger(ev Event) (store.Trigger, error) {
	switch t := store.Trigger(ev.Trigger); t {
	case store.TriggerMessage, store.TriggerReply, store.TriggerContinue:
		return t, nil
	}
	return "", fmt.Errorf("%w: step trigger %q is not message, reply or continue", ErrBadEvent, ev.Trigger)
}

// run runs a task's step outside any execution, then hands what follows
// to a new one: the wait before the next step, or the interrupt the step
// asked for. A task done in its step never touches Step Functions. The
// execution is named by the task and its version after the step, so a
// retried run starts it once.
func (h *Handler) run(ctx context.Context, taskID string, trigger store.Trigger) (engine.StepResult, error) {
	// A new task's step that ends at once writes the task once (LeaseLater).
	res, err := h.exec.Step(ctx, engine.Job{TaskID: taskID, Trigger: trigger, LeaseLater: true})
	if err != nil || res.Next == engine.NextDone {
		return res, err
	}
	if h.machine == nil {
		return res, fmt.Errorf("worker: task %s goes on (%s) but this worker has no state machine to hand it to (A2A_STATE_MACHINE_ARN)", taskID, res.Next)
	}
	resume := &engine.Resume{After: res.After, Version: res.Version}
	if res.Next == engine.NextAwait {
		resume = &engine.Resume{AwaitRequestID: res.RequestID, Version: res.Version}
	}
	if err := h.machine.Start(ctx, engine.Job{TaskID: taskID, Resume: resume}); err != nil {
		// The task keeps the lease of its wait (or its interrupt, the
		// lease until it is shown): a sweep takes it over once it lapses.
		return res, fmt.Errorf("hand task %s to the state machine: %w", taskID, err)
	}
	return res, nil
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
