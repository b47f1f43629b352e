package agent_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

func msg(role a2a.Role, id, text string) a2a.Message {
	return a2a.Message{Role: role, MessageID: id, Parts: []a2a.Part{a2a.TextPart(text)}}
}

func TestConversation(t *testing.T) {
	resolved := msg(a2a.RoleAgent, "res", "Reply received; the agent continues.")
	resolved.Metadata = a2a.Metadata{"shared": map[string]any{"interrupt": map[string]any{"phase": "resolved"}}}
	asked := msg(a2a.RoleAgent, "q", "What is your name?")
	asked.Metadata = a2a.Metadata{"shared": map[string]any{"interrupt": map[string]any{"phase": "asked"}}}
	reply := msg(a2a.RoleUser, "r", "Ada")
	history := []a2a.Message{msg(a2a.RoleUser, "m1", "hi"), asked, reply, resolved}

	ids := func(ms []a2a.Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.MessageID)
		}
		return out
	}
	in := agent.StepInput{Task: a2a.Task{History: history}, Message: &reply}
	assert.Equal(t, []string{"m1", "q", "r"}, ids(agent.Conversation(in)), "the reply once, the bookkeeping never")

	fresh := msg(a2a.RoleUser, "new", "next")
	in = agent.StepInput{Task: a2a.Task{History: history[:1]}, Message: &fresh}
	assert.Equal(t, []string{"m1", "new"}, ids(agent.Conversation(in)), "a trigger not stored yet is added")
	assert.Equal(t, []string{"m1"}, ids(agent.Conversation(agent.StepInput{Task: a2a.Task{History: history[:1]}})))
}

// A checkpoint an outcome carries (Continue, WithCheckpoint) is read back by
// the next step's DecodeCheckpoint; on the first step, without one, the
// state stays as it was.
func TestCheckpointRoundTrip(t *testing.T) {
	type state struct{ N int }
	o, err := agent.Continue(time.Second, state{N: 3})
	require.NoError(t, err)

	for name, tc := range map[string]struct {
		in      agent.StepInput
		want    state
		wantErr bool
	}{
		"next step":  {agent.StepInput{Checkpoint: o.Checkpoint}, state{N: 3}, false},
		"first step": {agent.StepInput{}, state{N: 1}, false},
		"bad":        {agent.StepInput{Checkpoint: []byte(`{"N":"x"}`)}, state{N: 1}, true},
	} {
		t.Run(name, func(t *testing.T) {
			got := state{N: 1}
			err := tc.in.DecodeCheckpoint(&got)
			if tc.wantErr {
				assert.ErrorContains(t, err, "bad checkpoint")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
