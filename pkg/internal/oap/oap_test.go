package oap

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

func headers(skip string) http.Header {
	h := http.Header{}
	for _, n := range Headers {
		if n != skip {
			h.Set(n, "v-"+n)
		}
	}
	return h
}

func TestReadCorrelation(t *testing.T) {
	c, err := ReadCorrelation(headers(""))
	require.NoError(t, err)
	assert.Equal(t, Correlation{ID: "v-Orch-Id", Caller: "v-Orch-Caller", ModuleID: "v-Orch-Module-Id", SessionID: "v-Orch-Session-Id"}, c)
	out := http.Header{}
	c.Echo(out)
	assert.Equal(t, headers(""), out)

	for _, missing := range Headers {
		_, err := ReadCorrelation(headers(missing))
		var ae *a2a.Error
		require.True(t, errors.As(err, &ae), missing)
		assert.Equal(t, a2a.CodeInvalidRequest, ae.Code)
		assert.Contains(t, ae.Message, "the "+missing+" header is required")
		assert.Equal(t, missing, ae.Data["missing_header"])
	}
}

func TestCheckMediaType(t *testing.T) {
	for _, ok := range []string{"", "application/json", "application/json; charset=utf-8", MediaType, ContentType, "application/vnd.orch-envelope+json;version=oap.v1"} {
		assert.NoError(t, CheckMediaType(ok), ok)
	}
	for _, bad := range []string{"text/plain", "application/xml", MediaType + "; version=oap.v2", "application/vnd.orch-envelope+xml", ";;"} {
		assert.ErrorIs(t, CheckMediaType(bad), ErrMediaType, bad)
	}
}

func TestDecode(t *testing.T) {
	req, err := Decode([]byte(`{"jsonrpc":"2.0","id":"e-1","envelope_type":"message/send","params":{"a":1},"_meta":{"trace":"x"}}`))
	require.NoError(t, err)
	assert.Equal(t, &Request{ID: json.RawMessage(`"e-1"`), EnvelopeType: "message/send", Params: json.RawMessage(`{"a":1}`), Meta: json.RawMessage(`{"trace":"x"}`)}, req)

	req, err = Decode([]byte(`{"jsonrpc":"2.0","id":7,"envelope_type":"tasks/get"}`))
	require.NoError(t, err)
	assert.Equal(t, json.RawMessage(`7`), req.ID)
	assert.Nil(t, req.Params)

	tests := []struct {
		name, body string
		code       a2a.Code
		msg        string
		id         string
	}{
		{"empty", ``, a2a.CodeParseError, "empty", "null"},
		{"bad json", `{"jsonrpc":`, a2a.CodeParseError, "invalid JSON", "null"},
		{"array", `[]`, a2a.CodeInvalidRequest, "JSON object", "null"},
		{"no jsonrpc", `{"id":"a","envelope_type":"x"}`, a2a.CodeInvalidRequest, `"jsonrpc"`, `"a"`},
		{"no id", `{"jsonrpc":"2.0","envelope_type":"x"}`, a2a.CodeInvalidRequest, `"id" is required`, "null"},
		{"no envelope type", `{"jsonrpc":"2.0","id":"a"}`, a2a.CodeInvalidRequest, `"envelope_type" is required`, `"a"`},
		{"envelope type not a string", `{"jsonrpc":"2.0","id":"a","envelope_type":3}`, a2a.CodeInvalidRequest, `"envelope_type" is required`, `"a"`},
		{"params array", `{"jsonrpc":"2.0","id":"a","envelope_type":"x","params":[1]}`, a2a.CodeInvalidRequest, `"params" must be an object`, `"a"`},
		{"meta string", `{"jsonrpc":"2.0","id":"a","envelope_type":"x","_meta":"m"}`, a2a.CodeInvalidRequest, `"_meta" must be an object`, `"a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := Decode([]byte(tt.body))
			var ae *a2a.Error
			require.True(t, errors.As(err, &ae), "%v", err)
			assert.Equal(t, tt.code, ae.Code)
			assert.Contains(t, ae.Message, tt.msg)
			assert.Equal(t, tt.id, string(req.ID))
		})
	}
}

func TestEncode(t *testing.T) {
	c := Correlation{ID: "o1", Caller: "planner", ModuleID: "m1", SessionID: "s1"}
	meta := Meta(json.RawMessage(`{"trace":"x","orch_id":"spoofed","a":[1]}`), c)
	assert.Equal(t, `{"orch_id":"o1","orch_caller":"planner","orch_module_id":"m1","orch_session_id":"s1","a":[1],"trace":"x"}`, string(meta))
	assert.Equal(t, `{"orch_id":"o1","orch_caller":"planner","orch_module_id":"m1","orch_session_id":"s1"}`, string(Meta(nil, c)))

	b := AppendResultStart(nil, json.RawMessage(`"e-1"`), "tasks/get")
	b = append(b, `{"id":"t"}`...)
	b = AppendEnd(b, Meta(nil, Correlation{ID: "o1"}))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"e-1","envelope_type":"tasks/get","result":{"id":"t"},"_meta":{"orch_id":"o1"}}`, string(b))

	e := EncodeError(nil, "nope", jsonrpc.ErrorObject{Code: -32601, Message: "unknown envelope_type"}, json.RawMessage(`{}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"envelope_type":"nope","error":{"code":-32601,"message":"unknown envelope_type"},"_meta":{}}`, string(e))
}

// FuzzDecode checks that envelopes decode or fail with -32700/-32600,
// never panic, and that a response to what decoded is valid JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"e-1","envelope_type":"message/send","params":{"a":1},"_meta":{"trace":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"envelope_type":"tasks/get","params":null,"_meta":null}`,
		`{"jsonrpc":"2.0","id":{},"envelope_type":"x"}`, `[]`, `"x"`, `{"_meta":{"orch_id":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := Decode(body)
		if req == nil {
			t.Fatal("Decode returned no request")
		}
		if err != nil {
			var ae *a2a.Error
			if !errors.As(err, &ae) || (ae.Code != a2a.CodeParseError && ae.Code != a2a.CodeInvalidRequest) {
				t.Fatalf("decode failed with %v", err)
			}
			out := EncodeError(req.ID, req.EnvelopeType, jsonrpc.ErrorObject{Code: int(ae.Code), Message: ae.Message}, Meta(nil, Correlation{}))
			if !json.Valid(out) {
				t.Fatalf("invalid error envelope: %s", out)
			}
			return
		}
		out := AppendEnd(append(AppendResultStart(nil, req.ID, req.EnvelopeType), "null"...), Meta(req.Meta, Correlation{ID: "o"}))
		if !json.Valid(out) {
			t.Fatalf("invalid response envelope: %s", out)
		}
	})
}
