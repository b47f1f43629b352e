package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// sameJSON reports whether a and b are the same JSON text once compacted
// (both absent counts as the same).
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// FuzzDecode checks that any body either decodes into a request with a
// method, or yields a framing error (-32700 or -32600) with a valid JSON
// id, and that the response built from either is valid JSON. `make fuzz`
// runs it; `go test` runs the seed corpus below and in testdata/fuzz.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}}`,
		`{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"t"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tasks/cancel","params":null}`,
		`{"jsonrpc":"2.0","id":null,"method":"m","params":[1,2]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":1}`,
		`{"jsonrpc":"1.0","id":1e400,"method":"m"}`,
		`{"id":-0.0,"method":"\u0000"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":"s"}`,
		`{ "jsonrpc" : "2\u002e0" , "\u0069d" : 1 , "method" : "m" , "method" : "n" , "params" : { "x" : "}{\"" } }`,
		``, `{`, `null`, `"\ud800"`, "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, id, err := Decode(body)
		if !json.Valid(id) {
			t.Fatalf("response id %q is not valid JSON", id)
		}
		if err != nil {
			var ae *a2a.Error
			if !errors.As(err, &ae) || (ae.Code != a2a.CodeParseError && ae.Code != a2a.CodeInvalidRequest) {
				t.Fatalf("framing error of unexpected type or code: %v", err)
			}
			if req != nil {
				t.Fatal("request returned with an error")
			}
			if resp := EncodeError(id, ErrorObject{Code: int(ae.Code), Message: ae.Message}); !json.Valid(resp) {
				t.Fatalf("error response is not valid JSON: %s", resp)
			}
			return
		}
		if req.Method == "" {
			t.Fatal("decoded request without a method")
		}
		// Differential check against encoding/json's exact-key decoding.
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(body, &ref); err != nil {
			t.Fatalf("Decode accepted what encoding/json refuses: %v", err)
		}
		var method string
		if err := json.Unmarshal(ref["method"], &method); err != nil || method != req.Method {
			t.Fatalf("method %q, encoding/json reads %q (%v)", req.Method, method, err)
		}
		if !sameJSON(ref["id"], req.ID) {
			t.Fatalf("id %s, encoding/json reads %s", req.ID, ref["id"])
		}
		if p := ref["params"]; string(p) != "null" && !sameJSON(p, req.Params) {
			t.Fatalf("params %s, encoding/json reads %s", req.Params, p)
		}
		if req.Params != nil && !json.Valid(req.Params) {
			t.Fatalf("params are not valid JSON: %s", req.Params)
		}
		var v map[string]any
		_ = DecodeParams(req.Params, &v) // must not panic
		if resp := EncodeResult(id, json.RawMessage(`{}`)); !json.Valid(resp) {
			t.Fatalf("result response is not valid JSON: %s", resp)
		}
	})
}

// FuzzCheckMembers compares CheckMembers with a reference that walks the
// tokens of encoding/json's decoder and keys every name by nameKey: both
// find a repeated member (exact, or aliased outside free-form members) in
// the same bodies. Any body, valid JSON or not, is safe to check.
func FuzzCheckMembers(f *testing.F) {
	for _, s := range []string{
		`{"message":{"messageId":"a","message_id":"b"}}`,
		`{"a":1,"A":2}`, `{"_a":1,"a":2}`, `{"a_":1,"a":2}`, `{"tas\u212aId":1,"task_id":2}`,
		`{"metadata":{"a":1,"A":2},"data":[{"x_y":1,"xY":2}]}`, `{"meta_data":{"k":1,"K":2}}`,
		`[{"k":1},{"k":1,"k":2}]`, `{"x":{"é":1,"É":2}}`, `{"ſ":1,"s":2}`, `{`, `{"a":}`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := CheckMembers(body)
		if !json.Valid(body) {
			if err != nil {
				t.Fatalf("invalid JSON refused as a duplicate: %v", err)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		want := referenceDuplicate(t, dec, true)
		if (err != nil) != want {
			t.Fatalf("CheckMembers: %v; the reference finds a duplicate: %t", err, want)
		}
	})
}

// referenceDuplicate reads one value from dec and reports whether one of
// its objects names a member twice, as CheckMembers defines it.
func referenceDuplicate(t *testing.T, dec *json.Decoder, fold bool) bool {
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	switch tok {
	case json.Delim('['):
		dup := false
		for dec.More() {
			dup = referenceDuplicate(t, dec, fold) || dup
		}
		_, _ = dec.Token()
		return dup
	case json.Delim('{'):
		dup := false
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatalf("token: %v", err)
			}
			name := []byte(k.(string))
			key := nameKey(name, fold)
			dup = dup || seen[key]
			seen[key] = true
			dup = referenceDuplicate(t, dec, fold && !freeForm(name)) || dup
		}
		_, _ = dec.Token()
		return dup
	}
	return false
}
