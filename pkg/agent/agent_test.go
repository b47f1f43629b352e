package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/agenttest"
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
	o := agent.Continue(time.Second, state{N: 3})
	require.NoError(t, o.Err())

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

// A checkpoint that does not encode leaves an outcome that says why (Err),
// with no half-made checkpoint; the host fails the task with that reason
// instead of storing it. A nil status message is refused the same way.
func TestOutcomeThatCannotBeBuilt(t *testing.T) {
	bad := map[string]any{"ch": make(chan int)}
	for name, o := range map[string]agent.Outcome{
		"continue":        agent.Continue(time.Second, bad),
		"with checkpoint": agent.AskQuestion(agent.Text("?"), nil).WithCheckpoint(bad),
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorContains(t, o.Err(), "the checkpoint does not encode as JSON")
			assert.Nil(t, o.Checkpoint)
		})
	}
	assert.NoError(t, agent.Continue(0, nil).Err())
	assert.Nil(t, agent.Continue(0, nil).Checkpoint, "no checkpoint is no checkpoint, not null")

	var statusErr error
	svc := agenttest.Serve(t, agentFunc(func(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
		statusErr = emit.Status(ctx, nil)
		return agent.Continue(time.Second, bad), nil
	}))
	task := agenttest.SendText(t, svc, "go", "")
	assert.Equal(t, a2a.TaskStateFailed, task.Status.State)
	assert.Contains(t, task.Status.Message.Text(), "Invalid agent response: the checkpoint does not encode as JSON")
	assert.EqualError(t, statusErr, "invalid status message: nil")
}
