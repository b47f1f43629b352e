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

// The examples are what the round-trip tests feed the codecs: each must be
// a valid 1.0 document, and together they must set every property of the
// definition (a oneof's members in turn).
func TestExamples(t *testing.T) {
	titles, err := Titles()
	require.NoError(t, err)
	require.Contains(t, titles, Task)
	for _, title := range titles {
		examples, err := Examples(title)
		require.NoError(t, err, title)
		require.NotEmpty(t, examples, title)
		set := map[string]bool{}
		for _, ex := range examples {
			require.NoError(t, Validate(title, ex.Doc), "%s: %s", title, ex.Doc)
			for _, f := range ex.Fields {
				if f.Definition == title {
					set[f.Property] = true
				}
			}
		}
		m, err := loadModel()
		require.NoError(t, err)
		props, _ := m.defs[title]["properties"].(map[string]any)
		for name := range props {
			assert.True(t, set[name], "%s.%s is set by no example", title, name)
		}
	}
	parts, err := Examples("Part")
	require.NoError(t, err)
	require.Len(t, parts, 4, "one example per member of Part's oneof content")
	assert.JSONEq(t, `{"text":"/text","filename":"/filename","mediaType":"/mediaType","metadata":{"text":"/metadata","big":12345678901234567890123,"frac":0.5,"flag":true,"none":null,"list":[1,"two",{"three":3}],"object":{"nested":"value"}}}`, string(parts[0].Doc))
	_, err = Examples("Nope")
	assert.ErrorContains(t, err, `no definition "Nope"`)
}

func TestProtoOneofs(t *testing.T) {
	got := protoOneofs([]byte(`
message A {
  // a comment { with braces }
  string plain = 1;
  oneof content {
    string text = 2; // trailing
    google.protobuf.Value some_data = 3;
  }
}
message B { string x = 1; }`))
	assert.Equal(t, map[string][][]string{"A": {{"text", "someData"}}}, got)
}
