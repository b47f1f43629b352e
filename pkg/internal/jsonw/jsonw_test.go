package jsonw

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/jsontest"
)

// FuzzAppendString checks the escaper against encoding/json: always valid
// JSON, decoding to what encoding/json's own encoding decodes to.
func FuzzAppendString(f *testing.F) {
	for _, s := range jsontest.TrickyStrings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ours := String(nil, s)
		if !json.Valid(ours) {
			t.Fatalf("invalid JSON for %q: %s", s, ours)
		}
		ref, _ := json.Marshal(s)
		var a, b string
		if err := json.Unmarshal(ours, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ref, &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("%q: ours decodes to %q, encoding/json's to %q", s, a, b)
		}
	})
}

// FuzzFloat checks Float against encoding/json byte for byte, for every
// finite float64.
func FuzzFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), 0.092, 1, -2.5, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789e13, math.MaxFloat64, math.SmallestNonzeroFloat64, -1e-9} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		want, err := json.Marshal(x)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(Float(nil, x)), "%v", x)
	})
}

func TestFields(t *testing.T) {
	b := []byte{'{'}
	b = StringField(b, "a", "x")
	b = OptString(b, "skipped", "")
	b = OptString(b, "b", "y")
	b = Strings(b, "none", nil)
	b = Strings(b, "list", []string{"1", "2"})
	b, err := Object(b, "empty", nil)
	require.NoError(t, err)
	b, err = Object(b, "obj", map[string]any{"k": 1})
	require.NoError(t, err)
	b, err = Raw(b, "raw", json.RawMessage(`[true]`))
	require.NoError(t, err)
	str := func(b []byte, s *string) ([]byte, error) { return String(b, *s), nil }
	b, err = OptArray(b, "noItems", nil, str)
	require.NoError(t, err)
	b, err = OptArray(b, "items", []string{"i"}, str)
	require.NoError(t, err)
	b = append(b, '}')
	assert.JSONEq(t, `{"a":"x","b":"y","list":["1","2"],"obj":{"k":1},"raw":[true],"items":["i"]}`, string(b))

	_, err = Raw([]byte{'{'}, "bad", json.RawMessage(`{`))
	assert.ErrorContains(t, err, "bad is not valid JSON")
	_, err = Object([]byte{'{'}, "fn", map[string]any{"f": func() {}})
	assert.ErrorContains(t, err, "fn")
	_, err = OptArray([]byte{'{'}, "bad", []string{"i"}, func([]byte, *string) ([]byte, error) { return nil, errors.New("item refused") })
	assert.EqualError(t, err, "item refused")
}

// FuzzValue checks Value against encoding/json (without HTML escaping, as
// String) on whatever JSON decodes to: the same bytes.
func FuzzValue(f *testing.F) {
	for _, s := range []string{`{"shared":{"session":{"id":"s"},"usage":{"input_tokens":12}},"b":[true,null,1.5e3,"x"]}`, `[]`, `{}`, `"\u2028<>&"`, `{"z":1,"a":{"y":[{}]}}`, `12345678901234567890123`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, useNumber := range []bool{false, true} {
			dec := json.NewDecoder(bytes.NewReader(in))
			if useNumber {
				dec.UseNumber()
			}
			var v any
			if dec.Decode(&v) != nil {
				return
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if enc.Encode(v) != nil {
				return
			}
			got, err := Value(nil, v)
			require.NoError(t, err)
			require.Equal(t, strings.TrimSuffix(want.String(), "\n"), string(got))
		}
	})
}

func TestValueFallsBack(t *testing.T) {
	b, err := Value(nil, map[string]any{"t": struct {
		A int `json:"a"`
	}{1}, "n": json.Number("1e5"), "i": 3, "raw": json.RawMessage(`{"x":1}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"i":3,"n":1e5,"raw":{"x":1},"t":{"a":1}}`, string(b))
	// A nil map is null and an empty one {}, as encoding/json writes them.
	b, err = Value(nil, []any{map[string]any(nil), map[string]any{}, map[string]any{"one": map[string]any(nil)}})
	require.NoError(t, err)
	assert.Equal(t, `[null,{},{"one":null}]`, string(b))
	_, err = Value(nil, json.Number("nope"))
	assert.Error(t, err)
	_, err = Value(nil, []any{func() {}})
	assert.Error(t, err)
}

// A buffer given back comes back empty with the storage appended into; one
// that grew above Max is not kept.
func TestBuffers(t *testing.T) {
	p := &Buffers{Max: 64}
	buf := p.Get()
	require.Empty(t, *buf)
	b := append(*buf, `{"a":1}`...)
	p.Put(buf, b)
	assert.Empty(t, *buf)
	assert.Equal(t, &b[0], &(*buf)[:1][0], "the storage appended into is kept")

	big := make([]byte, 0, 65)
	p.Put(buf, big)
	assert.NotEqual(t, 65, cap(*buf), "a buffer above Max is not kept")
}

// BenchmarkString appends what the encoders write most: a JSON-RPC answer
// as an HTTP API response's body (a quote every few bytes), an id, and
// text beyond ASCII.
func BenchmarkString(b *testing.B) {
	for _, in := range []struct{ name, s string }{
		{"answer", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"0190f5c2-7d4e-7a1b-9c3d-5e6f7a8b9c0d","contextId":"ctx-1",` +
			`"status":{"state":"completed","timestamp":"2026-11-27T05:00:00Z"},"artifacts":[{"artifactId":"a-1","parts":[{"kind":"text",` +
			`"text":"hello there, this is the answer to your message, a sentence long enough to be a model's"}]}],"history":[{"kind":"message",` +
			`"role":"user","messageId":"m-1","parts":[{"kind":"text","text":"hello there"}]}]}}`},
		{"id", "0190f5c2-7d4e-7a1b-9c3d-5e6f7a8b9c0d"},
		{"text", "Grüße aus Köln: the café's menu, 😀 and a line\nbreak"},
	} {
		b.Run(in.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(in.s)+16)
			b.SetBytes(int64(len(in.s)))
			for b.Loop() {
				buf = String(buf[:0], in.s)
			}
		})
	}
}
