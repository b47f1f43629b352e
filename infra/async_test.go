package infra_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// The asynchronous path as deployed: the functions that start tasks (send,
// sweep) name the worker and may invoke it, and nothing else may; the
// worker names the stack's own state machine, by an ARN built from its
// name (a reference would be circular), and may start executions of it and
// of no other; the state machine continues a task in executions of itself
// only. Runs the worker gives up on are kept, and alarmed on.
func TestAsynchronousPath(t *testing.T) {
	tpl := load(t)
	env := environment(t, tpl)
	ev := samtemplate.NewEvaluator(tpl.Root, nil)
	str := func(n *yaml.Node) string {
		t.Helper()
		v, err := ev.Eval(n)
		require.NoError(t, err)
		s, _ := v.(string)
		return s
	}
	name := str(tpl.Resources["TaskStateMachine"].Prop("Name"))
	require.NotEmpty(t, name)
	assert.LessOrEqual(t, len(name), 80, "a state machine name has at most 80 characters")
	machine := "arn:aws:states:us-east-1:123456789012:stateMachine:" + name
	other := "arn:aws:states:us-east-1:123456789012:stateMachine:TaskStateMachine-OTHERSTACK"
	worker := "WorkerFunction.Arn" // the evaluator's stand-in for !GetAtt WorkerFunction.Arn

	for _, fn := range tpl.OfType("AWS::Serverless::Function") {
		invokes := fn.Name == "SendFunction" || fn.Name == "SweepFunction"
		target, named := samtemplate.RefTarget(env[fn.Name]["A2A_WORKER_FUNCTION"])
		assert.Equal(t, invokes, named, "%s names the worker", fn.Name)
		if named {
			assert.Equal(t, "WorkerFunction", target)
		}
		assert.Equal(t, invokes, grants(t, ev, fn, "lambda:InvokeFunction", worker), "%s may invoke the worker", fn.Name)
		for _, action := range []string{"states:ListExecutions", "states:DescribeExecution"} {
			assert.False(t, grants(t, ev, fn, action, machine), "%s: a cancel looks for no execution (%s)", fn.Name, action)
		}
	}
	wf := tpl.Resources["WorkerFunction"]
	assert.Equal(t, machine, str(env["WorkerFunction"]["A2A_STATE_MACHINE_ARN"]), "the worker names the stack's state machine")
	assert.True(t, grants(t, ev, wf, "states:StartExecution", machine))
	assert.False(t, grants(t, ev, wf, "states:StartExecution", other), "and no other stack's")

	sm := tpl.Resources["TaskStateMachine"]
	v, err := ev.Eval(sm.Prop("Policies"))
	require.NoError(t, err)
	var starts []string
	for _, p := range v.([]any) {
		for _, s := range p.(map[string]any)["Statement"].([]any) {
			st := s.(map[string]any)
			if st["Action"] == "states:StartExecution" {
				starts = append(starts, st["Resource"].(string))
			}
		}
	}
	assert.Equal(t, []string{machine}, starts, "the state machine continues tasks in itself only")

	cfg := wf.Prop("EventInvokeConfig")
	require.NotNil(t, cfg, "the worker's asynchronous invocations are configured")
	retries, _ := samtemplate.Scalar(samtemplate.Get(cfg, "MaximumRetryAttempts"))
	assert.Equal(t, "0", retries, "the lease, not Lambda, retries a failed run")
	dest, _, _ := samtemplate.Intrinsic(samtemplate.Get(cfg, "DestinationConfig", "OnFailure", "Destination"))
	assert.Equal(t, "Fn::GetAtt", dest)
	assert.Contains(t, tpl.Resources, "WorkerFailureAlarm")
}

// A throttled worker is a busy minute, not a failed step: every state that
// invokes the worker retries Lambda's throttling for at least 10 minutes,
// by a schedule whose length is certain (no jitter), before the task is
// failed; Lambda's own failures keep their short retry.
func TestStateMachineOutlastsThrottling(t *testing.T) {
	def, err := os.ReadFile("statemachine.asl.json")
	require.NoError(t, err)
	var m struct {
		States map[string]struct {
			Type     string
			Resource string
			Next     string
			Catch    []struct{ Next string }
			Retry    []struct {
				ErrorEquals     []string
				IntervalSeconds float64
				MaxAttempts     int
				BackoffRate     float64
				MaxDelaySeconds float64
				JitterStrategy  string
			}
		}
	}
	require.NoError(t, json.Unmarshal(def, &m))
	invokers := 0
	for name, st := range m.States {
		if st.Type != "Task" || !strings.Contains(st.Resource, ":lambda:invoke") {
			continue
		}
		invokers++
		if len(st.Catch) == 1 {
			if wait := m.States[st.Catch[0].Next]; wait.Type == "Wait" && wait.Next == name {
				// Expire and MarkFailed try again, every 10 minutes, until
				// they are done: no throttling outlasts them.
				continue
			}
		}
		var throttle, failure bool
		for _, r := range st.Retry {
			if slices.Contains(r.ErrorEquals, "Lambda.ServiceException") {
				failure = true
			}
			if !slices.Contains(r.ErrorEquals, "Lambda.TooManyRequestsException") {
				continue
			}
			throttle = true
			assert.NotEqual(t, "FULL", r.JitterStrategy, "%s: jitter would make the schedule's length uncertain", name)
			total, wait := 0.0, r.IntervalSeconds
			for range r.MaxAttempts {
				if r.MaxDelaySeconds > 0 {
					wait = min(wait, r.MaxDelaySeconds)
				}
				total += wait
				wait *= r.BackoffRate
			}
			assert.GreaterOrEqual(t, total, 600.0, "%s retries throttling for %.0f s", name, total)
		}
		assert.True(t, throttle, "%s retries throttling", name)
		assert.True(t, failure, "%s retries Lambda's own failures", name)
	}
	assert.Equal(t, 4, invokers, "Step, AwaitInput, Expire and MarkFailed invoke the worker")
}
