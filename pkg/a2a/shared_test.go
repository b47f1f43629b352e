package a2a

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithSharedLeavesItsInputAlone(t *testing.T) {
	in := Metadata{"other": 1, SharedKey: map[string]any{SharedUsage: "u"}}
	out := WithShared(in, SharedModel, map[string]any{"modelID": "m"})
	assert.Equal(t, Metadata{"other": 1, SharedKey: map[string]any{SharedUsage: "u"}}, in, "the input is not changed")
	assert.Equal(t, "m", ModelOf(out).String("modelID"))
	assert.Equal(t, "u", UsageOf(out))

	without := WithoutShared(out, SharedModel)
	assert.Nil(t, ModelOf(without))
	assert.Equal(t, "u", UsageOf(without))
	assert.NotNil(t, ModelOf(out), "the input is not changed")
	assert.Equal(t, in, WithoutShared(in, SharedInterrupt), "nothing to drop: the same metadata")
}

func TestInterruptRoundTrips(t *testing.T) {
	for _, in := range []SharedInterruptInfo{
		{RequestID: "r1", Type: InterruptQuestion, Phase: InterruptPhaseAsked, Details: map[string]any{"questions": []any{"Which?"}}},
		{RequestID: "r2", Type: InterruptPermission, Phase: InterruptPhaseResolved, Resolution: map[string]any{"reply": "once"}},
	} {
		msg := &Message{Role: RoleAgent, MessageID: "m", Parts: []Part{TextPart("x")}}
		SetInterrupt(msg, in)
		got, ok := InterruptOf(msg)
		require.True(t, ok)
		assert.Equal(t, in, got)

		b, err := json.Marshal(msg)
		require.NoError(t, err)
		var back Message
		require.NoError(t, json.Unmarshal(b, &back))
		got, ok = InterruptOf(&back)
		require.True(t, ok)
		assert.Equal(t, in.RequestID, got.RequestID)
		assert.Equal(t, in.Phase, got.Phase)
		assert.Equal(t, in.Details == nil, got.Details == nil)
	}
	_, ok := InterruptOf(nil)
	assert.False(t, ok)
	_, ok = InterruptOf(&Message{})
	assert.False(t, ok)
}

func TestSession(t *testing.T) {
	assert.Nil(t, WithSession(nil, ""), "no session: nothing added")
	md := WithSession(nil, "s1")
	assert.Equal(t, "s1", SessionOf(md))
	assert.Equal(t, "s1", SessionOf(WithSession(md, "s2")), "a session already named is kept")
}
