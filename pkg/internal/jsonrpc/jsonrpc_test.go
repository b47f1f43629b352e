package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

func TestDecodeValid(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		id     string // "" = no id member
		method string
		params string // "" = absent
	}{
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"tasks/get","params":{"id":"t"}}`, `"a"`, "tasks/get", `{"id":"t"}`},
		{"number id", `{"jsonrpc":"2.0","id":7,"method":"m"}`, `7`, "m", ""},
		{"negative float id", `{"jsonrpc":"2.0","id":-1.5,"method":"m"}`, `-1.5`, "m", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"m"}`, `null`, "m", ""},
		{"no id", `{"jsonrpc":"2.0","method":"m","params":{}}`, "", "m", `{}`},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, `1`, "m", ""},
		{"array params", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, `1`, "m", `[1]`},
		{"whitespace", " \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\n", `1`, "m", ""},
		{"whitespace everywhere", "{ \"jsonrpc\" :\t\"2.0\" ,\r\n \"id\" : 1 , \"method\" : \"m\" , \"params\" : { \"a\" : [ 1 , 2 ] } }", `1`, "m", `{"a":[1,2]}`},
		{"escaped key and value", `{"jsonrpc":"2\u002e0","\u0069d":"x","method":"tasks\/get"}`, `"x"`, "tasks/get", ""},
		{"keys are case-sensitive", `{"jsonrpc":"2.0","id":1,"method":"m","Method":"x","PARAMS":{}}`, `1`, "m", ""},
		{"tricky strings in params", `{"jsonrpc":"2.0","id":1,"params":{"t":"}{][\"\\"},"method":"m"}`, `1`, "m", `{"t":"}{][\"\\"}`},
		{"unknown members ignored", `{"jsonrpc":"2.0","id":1,"method":"m","extra":{"x":[{}]}}`, `1`, "m", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, respID, err := Decode([]byte(tt.body))
			require.NoError(t, err)
			assert.Equal(t, tt.method, req.Method)
			if tt.id != "" {
				assert.Equal(t, tt.id, string(req.ID))
				assert.Equal(t, tt.id, string(respID))
			} else {
				assert.Nil(t, req.ID)
				assert.Equal(t, "null", string(respID))
			}
			if tt.params == "" {
				assert.Nil(t, req.Params)
			} else {
				assert.JSONEq(t, tt.params, string(req.Params))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		code a2a.Code
		id   string
		msg  string
	}{
		{"empty", ``, a2a.CodeParseError, "null", "request body is empty"},
		{"blank", "  \n", a2a.CodeParseError, "null", "request body is empty"},
		{"truncated", `{"jsonrpc":"2.0",`, a2a.CodeParseError, "null", "invalid JSON"},
		{"garbage", `hello`, a2a.CodeParseError, "null", "invalid JSON"},
		{"broken array", `[{"jsonrpc":"2.0"`, a2a.CodeParseError, "null", "invalid JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"m"} x`, a2a.CodeParseError, "null", "invalid JSON"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"m"}]`, a2a.CodeInvalidRequest, "null", "batch requests are not supported"},
		{"empty batch", `[]`, a2a.CodeInvalidRequest, "null", "batch requests are not supported"},
		{"scalar", `42`, a2a.CodeInvalidRequest, "null", "must be a JSON object"},
		{"string", `"x"`, a2a.CodeInvalidRequest, "null", "must be a JSON object"},
		{"missing jsonrpc", `{"id":1,"method":"m"}`, a2a.CodeInvalidRequest, "1", `"jsonrpc" is required`},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"m"}`, a2a.CodeInvalidRequest, "1", `"jsonrpc" must be "2.0", got "1.0"`},
		{"numeric jsonrpc", `{"jsonrpc":2.0,"id":1,"method":"m"}`, a2a.CodeInvalidRequest, "1", `"jsonrpc" must be "2.0"`},
		{"missing method", `{"jsonrpc":"2.0","id":"x"}`, a2a.CodeInvalidRequest, `"x"`, `"method" is required`},
		{"numeric method", `{"jsonrpc":"2.0","id":1,"method":5}`, a2a.CodeInvalidRequest, "1", `"method" must be a string, got 5`},
		{"null method", `{"jsonrpc":"2.0","id":1,"method":null}`, a2a.CodeInvalidRequest, "1", `"method" must be a string`},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, a2a.CodeInvalidRequest, "1", `"method" must not be empty`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`, a2a.CodeInvalidRequest, "null", `"id" must be a string, a number or null`},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, a2a.CodeInvalidRequest, "null", `"id" must be a string`},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"m"}`, a2a.CodeInvalidRequest, "null", `"id" must be a string`},
		{"string params", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, a2a.CodeInvalidRequest, "1", `"params" must be an object or an array`},
		{"number params", `{"jsonrpc":"2.0","id":1,"method":"m","params":3}`, a2a.CodeInvalidRequest, "1", `"params" must be an object or an array`},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","method":"message/send","params":{}}`, a2a.CodeInvalidRequest, "null", `member "method" appears twice`},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, a2a.CodeInvalidRequest, "null", `member "id" appears twice`},
		{"duplicate in params", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":"a","historyLength":1,"id":"b"}}`, a2a.CodeInvalidRequest, "null", `member "id" appears twice`},
		{"duplicate deep in an array", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"message":{"parts":[{"kind":"text"},{"kind":"text","text":"a","text":"b"}]}}}`, a2a.CodeInvalidRequest, "null", `member "text" appears twice`},
		{"duplicate spelled with an escape", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","\u006dethod":"message/send"}`, a2a.CodeInvalidRequest, "null", `member "method" appears twice`},
		{"duplicate in a large object", `{"jsonrpc":"2.0","id":1,"method":"m","params":{` + manyMembers(40) + `,"k7":0}}`, a2a.CodeInvalidRequest, "null", `member "k7" appears twice`},
		// The decoders read message_id as messageId, and any case: aliases
		// of one member are duplicates too (the body once made two tasks).
		{"snake_case alias", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"messageId":"a","message_id":"b"}}}`, a2a.CodeInvalidRequest, "null", `members "messageId" and "message_id" of one object name the same field`},
		{"alias in another case", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"historyLength":1,"HistoryLength":2}}`, a2a.CodeInvalidRequest, "null", `members "historyLength" and "HistoryLength"`},
		{"alias with a Unicode fold", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"task_id":"a","tas\u212aId":"b"}}`, a2a.CodeInvalidRequest, "null", `members "task_id" and "tasKId"`},
		{"alias in a large object", `{"jsonrpc":"2.0","id":1,"method":"m","params":{` + manyMembers(40) + `,"K_7":0}}`, a2a.CodeInvalidRequest, "null", `members "k7" and "K_7"`},
		{"aliased free-form member", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"metadata":{},"meta_data":{}}}`, a2a.CodeInvalidRequest, "null", `members "metadata" and "meta_data"`},
		{"exact duplicate inside metadata", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"metadata":{"k":1,"k":2}}}`, a2a.CodeInvalidRequest, "null", `member "k" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, id, err := Decode([]byte(tt.body))
			require.Nil(t, req)
			var ae *a2a.Error
			require.True(t, errors.As(err, &ae), "want *a2a.Error, got %v", err)
			assert.Equal(t, tt.code, ae.Code)
			assert.Contains(t, ae.Message, tt.msg)
			assert.Equal(t, tt.id, string(id))
		})
	}
}

func TestDecodeParamsNamesTheField(t *testing.T) {
	type inner struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	type params struct {
		ID      string `json:"id"`
		Size    *int   `json:"pageSize"`
		Message inner  `json:"message"`
	}
	tests := []struct {
		name string
		raw  string
		msg  string
	}{
		{"absent", "", "params: is required"},
		{"empty", " ", "params: is required"},
		{"null", "null", "params: is required"},
		{"array", `[1,2]`, "params: must be an object"},
		{"wrong scalar", `{"id":5}`, "params.id: expected a string, got JSON number"},
		{"wrong nested", `{"message":{"parts":{"x":1}}}`, "params.message.parts: expected an array, got JSON object"},
		{"deep", `{"message":{"parts":[{"text":false}]}}`, "params.message.parts.text: expected a string, got JSON bool"},
		{"int", `{"pageSize":"ten"}`, "params.pageSize: expected an integer, got JSON string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p params
			var raw json.RawMessage
			if tt.raw != "" {
				raw = json.RawMessage(tt.raw)
			}
			if tt.name == "empty" {
				raw = json.RawMessage{} // non-nil, zero length: an empty REST body
			}
			err := DecodeParams(raw, &p)
			require.ErrorIs(t, err, a2a.ErrInvalidParams)
			assert.Contains(t, err.(*a2a.Error).Message, tt.msg)
		})
	}
}

func TestEncode(t *testing.T) {
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"a","result":{"x":1}}`, string(EncodeResult(json.RawMessage(`"a"`), json.RawMessage(`{"x":1}`))))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"result":null}`, string(EncodeResult(nil, nil)))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope","data":{"m":"x"}}}`,
		string(EncodeError(json.RawMessage(`3`), ErrorObject{Code: -32601, Message: "nope", Data: map[string]string{"m": "x"}})))
	// Data that cannot be marshalled is dropped, code and message kept.
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"m\u0000"}}`,
		string(EncodeError(json.RawMessage(`3`), ErrorObject{Code: -32603, Message: "m\x00", Data: func() {}})))
}

func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":{"a":1,"b":[{"a":2}]}`, i)
	}
	return b.String()
}

// The names of free-form members (metadata, data, _meta) are the
// client's: two that differ only in case or underscores are two members.
// Names that differ by a leading underscore differ for the decoders too.
func TestDecodeFreeFormNamesAreExact(t *testing.T) {
	for _, params := range []string{
		`{"metadata":{"user_id":1,"userId":2,"UserID":3,"nested":{"a_b":1,"aB":2}}}`,
		`{"message":{"parts":[{"kind":"data","data":{"x_y":1,"xY":2}}],"metadata":{"k":[{"a":1,"A":2}]}}}`,
		`{"id":"x","_id":"y","_meta":{"k":1,"K":2}}`,
	} {
		_, _, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + params + `}`))
		assert.NoError(t, err, params)
	}
}

// The same name in different objects is no duplicate.
func TestDecodeSameNameInOtherObjects(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":"r","method":"m","params":{"id":"x","message":{"id":"y","parts":[{"id":1},{"id":2}]},"big":{` + manyMembers(40) + `}}}`
	req, _, err := Decode([]byte(body))
	require.NoError(t, err)
	assert.Equal(t, "m", req.Method)
}

// BenchmarkDecode reads a blocking message/send's envelope: syntax,
// duplicate names (at every depth), the members.
func BenchmarkDecode(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":"req-1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"2f4c6e80-1a3b-4c5d-8e9f-0a1b2c3d4e5f",` +
		`"parts":[{"kind":"text","text":"hello from API Gateway"}]},"configuration":{"blocking":true,"acceptedOutputModes":["text/plain"]}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}
