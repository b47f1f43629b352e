package a2aschema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The validator must refuse what the specification refuses, or a green
// golden test would prove nothing.
func TestValidate(t *testing.T) {
	require.NoError(t, Validate(Task, []byte(`{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2025-01-01T00:00:00Z"}}`)))
	require.NoError(t, Validate(AgentCard, []byte(`{"name":"n","description":"d","version":"1","supportedInterfaces":[{"url":"https://a.example","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`)))

	for name, tc := range map[string]struct{ def, doc, want string }{
		"0.3 card field":        {AgentCard, `{"name":"n","url":"https://a.example"}`, "url"},
		"0.3 capability":        {AgentCard, `{"name":"n","capabilities":{"stateTransitionHistory":false}}`, "stateTransitionHistory"},
		"0.3 task kind":         {Task, `{"id":"t","kind":"task"}`, "kind"},
		"0.3 state name":        {Task, `{"id":"t","status":{"state":"completed"}}`, "completed"},
		"0.3 part discriminant": {Message, `{"messageId":"m","role":"ROLE_USER","parts":[{"kind":"text","text":"x"}]}`, "kind"},
	} {
		err := Validate(tc.def, []byte(tc.doc))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
	assert.ErrorContains(t, Validate("Nope", []byte(`{}`)), `no definition "Nope"`)
}
