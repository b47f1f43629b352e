package app_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// What a 1.0 client sends comes back to it through the stores: a text or
// data part's mediaType and filename (which 0.3 has no room for) are kept
// in memory and in DynamoDB, and 0.3 clients read the same task exactly as
// before, without them.
func TestV1PartFieldsSurviveTheStores(t *testing.T) {
	ddb, table := newTable(t, "parts")
	onDynamo, err := dynamo.New(ddb, dynamo.Options{Table: table})
	require.NoError(t, err)
	for name, opts := range map[string]clienttest.Options{"memory": {}, "dynamodb": {Store: onDynamo}} {
		t.Run(name, func(t *testing.T) {
			srv := clienttest.Start(t, opts)
			v10 := []string{"A2A-Version", "1.0"}
			code, m := post(t, srv.URL+"/", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"parts-`+name+`","parts":[`+
				`{"text":"hello","mediaType":"text/markdown","filename":"hello.md","metadata":{"k":"v"}},{"data":{"n":1},"mediaType":"application/vnd.x+json"}]}}}`, v10...)
			require.Equal(t, 200, code, "%v", m)
			id := str(t, m, "result", "task", "id")

			code, m = post(t, srv.URL+"/", `{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"`+id+`"}}`, v10...)
			require.Equal(t, 200, code, "%v", m)
			parts := field(t, m, "result", "history", 0, "parts")
			assert.Equal(t, []any{
				map[string]any{"text": "hello", "mediaType": "text/markdown", "filename": "hello.md", "metadata": map[string]any{"k": "v"}},
				map[string]any{"data": map[string]any{"n": 1.0}, "mediaType": "application/vnd.x+json"},
			}, parts)

			code, m = post(t, srv.URL+"/", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+id+`"}}`)
			require.Equal(t, 200, code, "%v", m)
			assert.Equal(t, []any{
				map[string]any{"kind": "text", "text": "hello", "metadata": map[string]any{"k": "v"}},
				map[string]any{"kind": "data", "data": map[string]any{"n": 1.0}},
			}, field(t, m, "result", "history", 0, "parts"), "0.3 sees what it saw before")
		})
	}
}
