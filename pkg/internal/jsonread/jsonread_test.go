package jsonread_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// assertUnquotes checks that Unquote reads the contents of the JSON
// string token as encoding/json reads the token.
func assertUnquotes(t *testing.T, token string) {
	t.Helper()
	var want string
	require.NoError(t, json.Unmarshal([]byte(token), &want), token)
	assert.Equal(t, want, jsonread.Unquote([]byte(token[1:len(token)-1])), token)
}

func TestUnquote(t *testing.T) {
	for _, token := range []string{
		`""`, `"plain"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, `"é 😀"`,
		"\"a\xffb\xc3\"", "\"\xed\xa0\x80\"", `"{\"kind\":\"message\",\"parts\":[]}"`,
	} {
		assertUnquotes(t, token)
	}
}

// Unquote reads every valid JSON string as encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`plain`, `\"\\\/\b\f\n\r\t`, `\ud83d\ude00`, `\ud83d`, "a\xffb", `\u00e9\u12`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, contents string) {
		token := `"` + contents + `"`
		if !json.Valid([]byte(token)) {
			t.Skip("not a JSON string")
		}
		assertUnquotes(t, token)
	})
}

func TestValid(t *testing.T) {
	for _, s := range []string{`{}`, ` [1, -0.5e+3, "x\u00e9", true, false, null, {"a": {}}] `, `"\ud800"`, "\"\xff\"", `0`, `-0`, `1E9`,
		`{"a":` + strings.Repeat("[", 2*jsonread.MaxDepth) + strings.Repeat("]", 2*jsonread.MaxDepth) + `}`} {
		assert.True(t, jsonread.Valid([]byte(s)), s)
	}
	for _, s := range []string{``, ` `, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `tru`, `nul`, `"a`, "\"\t\"", `"\x"`, `"\u12"`,
		`{} {}`, `{"a":1}x`, `{1:2}`, `[`, `]`, `{"a":` + strings.Repeat("[", 2*jsonread.MaxDepth) + `}`} {
		assert.False(t, jsonread.Valid([]byte(s)), s)
	}
}

// Valid judges every input as json.Valid does.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",null]}`, `[-0.5e+3]`, `"\ud83d\ude00"`, `{"a" : {"b":true} }`, `01`, `"\u12"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		assert.Equal(t, json.Valid(data), jsonread.Valid(data), "%q", data)
	})
}

func BenchmarkValid(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":"req-1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"2f4c6e80-1a3b-4c5d-8e9f-0a1b2c3d4e5f",` +
		`"parts":[{"kind":"text","text":"hello from API Gateway"}]},"configuration":{"blocking":true,"acceptedOutputModes":["text/plain"]}}}`)
	b.Run("jsonread", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			jsonread.Valid(body)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			json.Valid(body)
		}
	})
}
