package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// TestReplyRoundTripsThroughTheStatus checks that a reply recorded in a
// status message (as the service records it) is rebuilt intact, both from the
// Go values (memory store) and after a JSON round trip (DynamoDB store).
func TestReplyRoundTripsThroughTheStatus(t *testing.T) {
	replies := []agent.Reply{
		{RequestID: "r1", Type: agent.InterruptPermission, Permission: "once"},
		{RequestID: "r2", Type: agent.InterruptPermission, Permission: "reject", Text: "not today"},
		{RequestID: "r3", Type: agent.InterruptQuestion, Answers: [][]string{{"red", "blue"}, {"yes"}}, Text: "red, blue\nyes"},
		{RequestID: "r4", Type: agent.InterruptQuestion, Rejected: true},
		{RequestID: "r5", Type: agent.InterruptAuth, Text: "token pasted"},
	}
	for _, r := range replies {
		msg := &a2a.Message{Role: a2a.RoleAgent, MessageID: "m", Parts: []a2a.Part{a2a.TextPart("x")}}
		a2a.SetInterrupt(msg, a2a.SharedInterruptInfo{RequestID: r.RequestID, Type: r.Type, Phase: a2a.InterruptPhaseResolved, Resolution: Resolution(&r)})
		assert.Equal(t, &r, replyFromStatus(msg), "from Go values: %+v", r)

		b, err := json.Marshal(msg)
		require.NoError(t, err)
		var back a2a.Message
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, &r, replyFromStatus(&back), "after JSON: %+v", r)
	}
	assert.Nil(t, replyFromStatus(&a2a.Message{}))
	asked := &a2a.Message{}
	a2a.SetInterrupt(asked, a2a.SharedInterruptInfo{RequestID: "r", Phase: a2a.InterruptPhaseAsked})
	assert.Nil(t, replyFromStatus(asked))
}
