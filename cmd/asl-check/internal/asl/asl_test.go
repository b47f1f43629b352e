package asl_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/cmd/asl-check/internal/asl"
)

const definitionPath = "../../../../infra/statemachine.asl.json"

func definition(t *testing.T) []byte {
	b, err := os.ReadFile(definitionPath)
	require.NoError(t, err)
	return b
}

// TestProjectDefinition checks the state machine the template deploys: its
// substitutions resolve, every reference names a state, every state is
// reachable, and every outcome the worker can return has a branch.
func TestProjectDefinition(t *testing.T) {
	raw := definition(t)
	assert.ElementsMatch(t, []string{"Partition", "WorkerFunctionArn"}, asl.Tokens(raw))
	def, err := asl.Substitute(raw, map[string]string{"WorkerFunctionArn": "arn:aws:lambda:us-east-1:123456789012:function:worker", "Partition": "aws"})
	require.NoError(t, err)
	d, problems := asl.Check(def)
	require.Empty(t, problems)

	// The worker's outcomes (engine.Next*; TestStateMachineRoutesEveryOutcome
	// checks the same list from the engine's side).
	outcomes := []string{"continue", "await", "done"}
	assert.ElementsMatch(t, outcomes, d.Branches("$.next"), "every worker outcome routes somewhere")
	assert.ElementsMatch(t, []string{"continue", "await"}, d.Branches("$.startAt"), "an execution can start mid-protocol")

	await := d.States["AwaitInput"]
	var caught []string
	for _, c := range await.Catch {
		caught = append(caught, c.ErrorEquals...)
	}
	assert.Subset(t, caught, []string{"States.Timeout", "TaskCanceled", "States.ALL"}, "an expired or canceled wait, and any error, are handled")
}

// TestMistakesAreCaught introduces deliberate mistakes into the definition.
func TestMistakesAreCaught(t *testing.T) {
	good, err := asl.Substitute(definition(t), map[string]string{"WorkerFunctionArn": "arn:x", "Partition": "aws"})
	require.NoError(t, err)
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"dangling Next", `"Next": "Route"`, `"Next": "Rout"`, `state "Step": Next names "Rout", which is not a state`},
		{"dangling choice", `"StringEquals": "done", "Next": "Done"`, `"StringEquals": "done", "Next": "Finished"`, `Choices[4].Next names "Finished"`},
		{"dangling Default", `"Default": "UnknownOutcome"`, `"Default": "Nowhere"`, `Default names "Nowhere"`},
		{"dangling Catch", `"ResultPath": "$.error", "Next": "Expire"`, `"ResultPath": "$.error", "Next": "Expired"`, `Catch[0].Next names "Expired"`},
		{"bad StartAt", `"StartAt": "Begin"`, `"StartAt": "Start"`, `StartAt names "Start"`},
		{"bad type", `"Type": "Wait"`, `"Type": "Sleep"`, `Type "Sleep" is not one of`},
		{"no way on", `"SecondsPath": "$.afterSeconds",
      "Next": "Step"`, `"SecondsPath": "$.afterSeconds"`, `state "WaitBeforeStep": has neither Next nor End`},
		{"unreachable", `"Next": "InputRequestExpired"`, `"Next": "TaskFailed"`, `state "InputRequestExpired" cannot be reached`},
		{"unresolved token", `"Comment": "Run one agent step.`, `"Comment": "${Oops}.`, "unresolved substitution tokens: Oops"},
		{"a retrier's unknown field", `"ErrorEquals": ["Lambda.TooManyRequestsException"],`, `"ErrorEquals": ["Lambda.TooManyRequestsException"], "Comment": "busy",`,
			`Retry[0] has "Comment", which Step Functions does not accept there`},
		{"a catcher's unknown field", `"Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "MarkFailed"}],
      "Next": "Route"`, `"Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "MarkFailed", "Interval": 1}],
      "Next": "Route"`, `Catch[0] has "Interval"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, string(good), tt.old, "the mistake's anchor must exist")
			_, problems := asl.Check([]byte(strings.Replace(string(good), tt.old, tt.new, 1)))
			require.NotEmpty(t, problems)
			assert.Contains(t, strings.Join(problems, "\n"), tt.want)
		})
	}
	_, problems := asl.Check([]byte(`{"StartAt":`))
	assert.Contains(t, problems[0], "not a valid definition")
	_, err = asl.Substitute([]byte(`{"a":"${A}","b":"${B}"}`), map[string]string{"A": "x"})
	assert.ErrorContains(t, err, "no substitution for B")
}
