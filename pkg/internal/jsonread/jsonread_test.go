package jsonread_test

import (
	"encoding/json"
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
