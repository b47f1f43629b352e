package stepfunctions_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// The state machine is executed by moto in parser mode; the worker
// function is the real worker's handler on a canned executor: each action
// gets the next queued result, and the worker answers the state machine as
// it does in production (the next trigger, the execution's carry handed
// back). These tests pin the control flow of infra/statemachine.asl.json.

var (
	cont  = engine.StepResult{Next: engine.NextContinue, State: a2a.TaskStateWorking}
	await = engine.StepResult{Next: engine.NextAwait, RequestID: "req-1", State: a2a.TaskStateInputRequired}
	done  = engine.StepResult{Next: engine.NextDone, State: a2a.TaskStateCompleted}
	// ignored is the result of the await, expire and fail invocations,
	// which the state machine does not read.
	ignored = engine.StepResult{}
)

// cannedExec answers every action of the worker with the next queued
// result, whatever the action.
type cannedExec struct {
	mu      sync.Mutex
	results []engine.StepResult
}

// queue adds results for the next actions.
func (c *cannedExec) queue(results ...engine.StepResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results = append(c.results, results...)
}

func (c *cannedExec) next() (engine.StepResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.results) == 0 {
		return engine.StepResult{}, errors.New("no canned result left")
	}
	r := c.results[0]
	c.results = c.results[1:]
	return r, nil
}

func (c *cannedExec) Step(context.Context, engine.Job) (engine.StepResult, error) { return c.next() }
func (c *cannedExec) Await(context.Context, engine.AwaitRequest) (engine.StepResult, error) {
	return c.next()
}
func (c *cannedExec) Expire(context.Context, string, string) (engine.StepResult, error) {
	return c.next()
}
func (c *cannedExec) Fail(context.Context, string, string) (engine.StepResult, error) {
	return c.next()
}

// newMachine deploys the state machine with the worker on a canned
// executor.
func newMachine(t *testing.T) (*sfntest.Machine, *cannedExec) {
	c := &cannedExec{}
	return sfntest.New(t, sfntest.Bridge(worker.New(c, nil, nil).Handle)), c
}

func input(taskID string, ttl int) stepfunctions.Input {
	return stepfunctions.Input{TaskID: taskID, StartAt: "step", Trigger: "message", InterruptTTLSeconds: ttl, Steps: 1, MaxSteps: stepfunctions.DefaultMaxSteps}
}

// actions lists the worker invocations of an execution as "action trigger".
func actions(calls []sfntest.Invocation) []string {
	var out []string
	for _, c := range calls {
		a, ok := c.Payload["action"].(string)
		if !ok {
			continue // not a worker invocation (ContinueInNewExecution)
		}
		if t, ok := c.Payload["trigger"].(string); ok {
			a += " " + t
		}
		out = append(out, a)
	}
	return out
}

func TestContinueAwaitReplyComplete(t *testing.T) {
	m, w := newMachine(t)
	w.queue(cont, await, ignored, done)
	arn := m.Start("task-1", input("task-1", 60))
	token := m.TaskToken(arn, 10*time.Second)

	_, err := m.Client.SendTaskSuccess(context.Background(), &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String(`{"requestId":"req-1"}`)})
	require.NoError(t, err)
	assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
	states, calls := m.History(arn)
	assert.Equal(t, []string{"Begin", "Step", "Route", "WaitBeforeStep", "Step", "Route", "AwaitInput", "Step", "Route", "Done"}, states)
	assert.Equal(t, []string{"step message", "step continue", "await", "step reply"}, actions(calls))
	assert.Equal(t, "req-1", calls[2].Payload["requestId"], "AwaitInput binds the step's interrupt")
	assert.Equal(t, token, calls[2].Payload["taskToken"])
	assert.Equal(t, "req-1", calls[3].Payload["requestId"], "the reply step knows which interrupt it answers")
}

func TestFailuresFailTheTask(t *testing.T) {
	ctx := context.Background()
	m, w := newMachine(t)

	t.Run("SendTaskFailure takes the failure path", func(t *testing.T) {
		w.queue(await, ignored, ignored)
		arn := m.Start("task-2", input("task-2", 60))
		token := m.TaskToken(arn, 10*time.Second)
		_, err := m.Client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String("Boom"), Cause: aws.String("broken")})
		require.NoError(t, err)
		assert.Equal(t, sfntypes.ExecutionStatusFailed, m.Wait(arn, 10*time.Second))
		states, calls := m.History(arn)
		assert.Equal(t, []string{"AwaitInput", "MarkFailed", "TaskFailed"}, states[len(states)-3:])
		fail := calls[len(calls)-1].Payload
		assert.Equal(t, "fail", fail["action"])
		// The worker is told why. (AWS also passes the Cause; moto 5.2.1
		// drops it.)
		assert.Equal(t, "Boom", fail["error"].(map[string]any)["Error"])
	})
	t.Run("a canceled wait ends quietly", func(t *testing.T) {
		w.queue(await, ignored)
		arn := m.Start("task-3", input("task-3", 60))
		token := m.TaskToken(arn, 10*time.Second)
		_, err := m.Client.SendTaskFailure(ctx, &sfn.SendTaskFailureInput{TaskToken: aws.String(token), Error: aws.String(stepfunctions.ErrorTaskCanceled)})
		require.NoError(t, err)
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
	})
	t.Run("an interrupt nobody answers expires", func(t *testing.T) {
		w.queue(await, ignored, ignored)
		arn := m.Start("task-4", input("task-4", 1))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 15*time.Second), "an expired interrupt is the task's outcome, not a failed execution")
		states, calls := m.History(arn)
		assert.Equal(t, []string{"AwaitInput", "Expire", "InputRequestExpired"}, states[len(states)-3:])
		assert.Equal(t, map[string]any{"action": "expire", "taskId": "task-4", "requestId": "req-1"}, calls[len(calls)-1].Payload)
	})
	t.Run("an unknown outcome fails the task", func(t *testing.T) {
		w.queue(engine.StepResult{Next: "maybe"}, ignored)
		arn := m.Start("task-5", input("task-5", 60))
		assert.Equal(t, sfntypes.ExecutionStatusFailed, m.Wait(arn, 10*time.Second))
		states, _ := m.History(arn)
		assert.Equal(t, []string{"UnknownOutcome", "MarkFailed", "TaskFailed"}, states[len(states)-3:])
	})
	t.Run("a made-up token is refused", func(t *testing.T) {
		_, err := m.Client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String("made-up"), Output: aws.String("{}")})
		var invalid *sfntypes.InvalidToken
		assert.ErrorAs(t, err, &invalid)
	})
}

func TestRunner(t *testing.T) {
	ctx := context.Background()
	m, w := newMachine(t)
	r, err := stepfunctions.New(m.API, stepfunctions.Options{StateMachineARN: m.ARN, InterruptTTL: time.Minute})
	require.NoError(t, err)

	t.Run("an interrupt handed over is shown by an execution that waits for its reply", func(t *testing.T) {
		w.queue(ignored)
		job := engine.Job{TaskID: "t-1", Resume: &engine.Resume{AwaitRequestID: "req-1", Version: 2}}
		require.NoError(t, r.Start(ctx, job))
		require.NoError(t, r.Start(ctx, job), "a retried hand-over is idempotent")
		arn := executionARN(m, "t-1-req-1")
		token := m.TaskToken(arn, 10*time.Second)
		states, calls := m.History(arn)
		assert.Equal(t, []string{"Begin", "AwaitInput"}, states)
		assert.Equal(t, map[string]any{"action": "await", "taskId": "t-1", "requestId": "req-1", "taskToken": token}, calls[0].Payload)

		// A reply resumes the waiting execution through its token.
		w.queue(done)
		require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t-1", Reply: &agent.Reply{RequestID: "req-1"}, TaskToken: token}))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		_, calls = m.History(arn)
		assert.Equal(t, []string{"await", "step reply"}, actions(calls))
		assert.Equal(t, arn, calls[1].Payload["executionArn"], "the step records the execution it runs in")
	})
	t.Run("a wait handed over starts an execution named by the task's version", func(t *testing.T) {
		w.queue(done)
		require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t-3", Resume: &engine.Resume{After: 10 * time.Millisecond, Version: 4}}))
		arn := executionARN(m, "t-3-v4")
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		states, calls := m.History(arn)
		assert.Equal(t, []string{"Begin", "WaitBeforeStep", "Step", "Route", "Done"}, states)
		assert.Equal(t, []string{"step continue"}, actions(calls))
	})
	t.Run("a reply whose execution no longer waits is the caller's to run", func(t *testing.T) {
		err := r.Start(ctx, engine.Job{TaskID: "t-4", Reply: &agent.Reply{RequestID: "req-4"}, TaskToken: "stale-token"})
		assert.ErrorIs(t, err, stepfunctions.ErrNotWaiting)
	})
	t.Run("a step to run now is not an execution's", func(t *testing.T) {
		assert.ErrorContains(t, r.Start(ctx, engine.Job{TaskID: "t-6"}), "asynchronous path")
		assert.ErrorContains(t, r.Start(ctx, engine.Job{TaskID: "t-6", Reply: &agent.Reply{RequestID: "req-6"}}), "asynchronous path")
		assert.ErrorContains(t, r.Start(ctx, engine.Job{TaskID: "t-6", Takeover: 1}), "asynchronous path")
	})
	t.Run("cancel fails the wait through its token", func(t *testing.T) {
		w.queue(ignored)
		require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t-5", Resume: &engine.Resume{AwaitRequestID: "req-5"}}))
		arn := executionARN(m, "t-5-req-5")
		token := m.TaskToken(arn, 10*time.Second)
		require.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "t-5", TaskToken: token}))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		states, _ := m.History(arn)
		assert.Equal(t, "Done", states[len(states)-1], "the state machine catches TaskCanceled and ends")
		require.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "never-started"}), "nothing to stop is fine")
	})
	t.Run("cancel stops the execution the task records", func(t *testing.T) {
		w.queue(engine.StepResult{Next: engine.NextContinue, After: 60 * time.Second, State: a2a.TaskStateWorking})
		require.NoError(t, r.Start(ctx, engine.Job{TaskID: "t-7", Resume: &engine.Resume{Version: 3}}))
		arn := executionARN(m, "t-7-v3")
		waitingIn(t, m, arn, "Step")
		require.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "t-7", ExecutionARN: arn}))
		status := m.Wait(arn, 10*time.Second)
		assert.Contains(t, []sfntypes.ExecutionStatus{sfntypes.ExecutionStatusAborted, sfntypes.ExecutionStatusFailed}, status, "stopped (ABORTED on AWS, FAILED in moto)")
		require.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "t-7", ExecutionARN: arn}), "an execution that ended is fine")
	})
	_, err = stepfunctions.New(m.API, stepfunctions.Options{StateMachineARN: "not-an-arn"})
	assert.ErrorContains(t, err, "is not a state machine ARN")
}

func executionARN(m *sfntest.Machine, name string) string {
	out, err := m.Client.ListExecutions(context.Background(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(m.ARN)})
	if err == nil {
		for _, e := range out.Executions {
			if aws.ToString(e.Name) == name {
				return aws.ToString(e.ExecutionArn)
			}
		}
	}
	b, _ := json.Marshal(out)
	panic("no execution " + name + " in " + string(b))
}

// executionsOf returns the executions named <prefix>-..., newest first.
func executionsOf(t *testing.T, m *sfntest.Machine, prefix string) []sfntypes.ExecutionListItem {
	out, err := m.Client.ListExecutions(context.Background(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(m.ARN)})
	require.NoError(t, err)
	var found []sfntypes.ExecutionListItem
	for _, e := range out.Executions {
		if strings.HasPrefix(aws.ToString(e.Name), prefix+"-") {
			found = append(found, e)
		}
	}
	return found
}

// waitingIn waits until an execution waits 60 s before its next step, after
// the state after (moto does not stop an execution between two states
// reliably: only in a wait).
func waitingIn(t *testing.T, m *sfntest.Machine, arn, after string) {
	require.Eventually(t, func() bool {
		states, _ := m.History(arn)
		return slices.Contains(states, after) && states[len(states)-1] == "WaitBeforeStep"
	}, 10*time.Second, 50*time.Millisecond, "the execution waits 60 s before its next step")
	time.Sleep(200 * time.Millisecond)
}

// An execution runs at most MaxSteps steps: then the task goes
// on, at the same point of the protocol, in a new execution named
// <taskId>-<uuid>, so that no task ever reaches Step Functions' history
// limit; the new execution's steps record it on the task, for a cancel to
// stop it.
func TestContinueInNewExecution(t *testing.T) {
	ctx := context.Background()
	m, w := newMachine(t)
	r, err := stepfunctions.New(m.API, stepfunctions.Options{StateMachineARN: m.ARN, InterruptTTL: time.Minute, MaxSteps: 2})
	require.NoError(t, err)

	t.Run("a continue past the budget", func(t *testing.T) {
		w.queue(cont, cont, done)
		first := m.Start("long-1", budget2("long-1"))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(first, 10*time.Second))
		states, calls := m.History(first)
		assert.Equal(t, []string{"Begin", "Step", "Route", "WaitBeforeStep",
			"Step", "Route", "ContinueInNewExecution", "ContinuedInNewExecution"}, states)
		assert.Equal(t, []string{"step message", "step continue"}, actions(calls))

		var next []sfntypes.ExecutionListItem
		require.Eventually(t, func() bool { next = executionsOf(t, m, "long-1"); return len(next) == 1 }, 10*time.Second, 50*time.Millisecond)
		arn := aws.ToString(next[0].ExecutionArn)
		assert.Regexp(t, `^long-1-[0-9a-f-]{36}$`, aws.ToString(next[0].Name))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		d, err := m.Client.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: aws.String(arn)})
		require.NoError(t, err)
		var in map[string]any
		require.NoError(t, json.Unmarshal([]byte(aws.ToString(d.Input)), &in))
		assert.Equal(t, map[string]any{"taskId": "long-1", "startAt": "continue", "trigger": "continue", "requestId": "", "afterSeconds": 0.0,
			"interruptTtlSeconds": 60.0, "steps": 1.0, "maxSteps": 2.0}, in, "the next execution starts at the next step, with a new budget")
		states, calls = m.History(arn)
		assert.Equal(t, []string{"Begin", "WaitBeforeStep", "Step", "Route", "Done"}, states)
		assert.Equal(t, []string{"step continue"}, actions(calls))
		assert.Equal(t, arn, calls[0].Payload["executionArn"], "its step records the new execution")
	})
	t.Run("an await past the budget", func(t *testing.T) {
		w.queue(cont, await, ignored, done)
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(m.Start("long-2", budget2("long-2")), 10*time.Second))
		var next []sfntypes.ExecutionListItem
		require.Eventually(t, func() bool { next = executionsOf(t, m, "long-2"); return len(next) == 1 }, 10*time.Second, 50*time.Millisecond)
		arn := aws.ToString(next[0].ExecutionArn)
		token := m.TaskToken(arn, 10*time.Second)
		_, calls := m.History(arn)
		assert.Equal(t, map[string]any{"action": "await", "taskId": "long-2", "requestId": "req-1", "taskToken": token}, calls[0].Payload,
			"the new execution waits for the same interrupt")
		require.NoError(t, r.Start(ctx, engine.Job{TaskID: "long-2", Reply: &agent.Reply{RequestID: "req-1"}, TaskToken: token}))
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		_, calls = m.History(arn)
		assert.Equal(t, []string{"await", "step reply"}, actions(calls))
	})
	t.Run("an input without the budget counts from 1 of 500", func(t *testing.T) {
		w.queue(done)
		arn := m.Start("legacy-1", map[string]any{"taskId": "legacy-1", "startAt": "step", "trigger": "message", "requestId": "", "afterSeconds": 0, "interruptTtlSeconds": 60})
		assert.Equal(t, sfntypes.ExecutionStatusSucceeded, m.Wait(arn, 10*time.Second))
		states, _ := m.History(arn)
		assert.Equal(t, []string{"Begin", "StartCounting", "Begin", "Step", "Route", "Done"}, states)
	})
}

// budget2 is the input of a task's execution that runs at most two steps.
func budget2(taskID string) stepfunctions.Input {
	in := input(taskID, 60)
	in.MaxSteps = 2
	return in
}
