package agent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

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
