package engine_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
)

// TestStateMachineRoutesEveryOutcome: the state machine the template
// deploys has a top-level choice on $.next for each outcome a step
// returns, and for no other.
func TestStateMachineRoutesEveryOutcome(t *testing.T) {
	b, err := os.ReadFile("../../../infra/statemachine.asl.json")
	require.NoError(t, err)
	var def struct {
		States map[string]struct {
			Choices []struct {
				Variable     string
				StringEquals string
			}
		}
	}
	require.NoError(t, json.Unmarshal(b, &def))
	routed := map[string]bool{}
	for _, s := range def.States {
		for _, c := range s.Choices {
			if c.Variable == "$.next" {
				routed[c.StringEquals] = true
			}
		}
	}
	want := map[string]bool{string(engine.NextDone): true, string(engine.NextContinue): true, string(engine.NextAwait): true}
	assert.Equal(t, want, routed)
}
