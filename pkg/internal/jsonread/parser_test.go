package jsonread_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// assertReads checks one Parser method against encoding/json on input: where
// read succeeds (and the text ends with the value), json.Unmarshal into the
// same Go type succeeds with the same value; reads says whether it did.
func assertReads[T any](t *testing.T, input string, read func(p *jsonread.Parser, v *T) bool) (reads bool) {
	t.Helper()
	p := jsonread.NewParser([]byte(input))
	p.Space()
	var got, want T
	if !read(&p, &got) || !p.AtEnd() {
		return false
	}
	if err := json.Unmarshal([]byte(input), &want); !assert.NoError(t, err, "read what encoding/json refuses: %s", input) {
		return true
	}
	assert.Equal(t, want, got, input)
	return true
}

// Each of the Parser's readers reads what encoding/json reads into its Go
// type, and refuses (for encoding/json to read) what it does not read
// plainly.
func TestParserReadsAsEncodingJSON(t *testing.T) {
	str := func(p *jsonread.Parser, v *string) bool { return p.Str(v) }
	for input, reads := range map[string]bool{`"a"`: true, ` "é\n\u0041\ud83d\ude00" `: true, `null`: true, "\"\xff\"": true, `1`: false, `true`: false, `"a`: false, `"\q"`: false} {
		assert.Equal(t, reads, assertReads(t, input, str), input)
	}
	strs := func(p *jsonread.Parser, v *[]string) bool { return p.Strings(v) }
	for input, reads := range map[string]bool{`["a","b"]`: true, `[]`: true, `null`: true, `[null,"x"]`: true, `[ "a" , "b" ]`: true, `["a",]`: false, `[1]`: false, `{}`: false} {
		assert.Equal(t, reads, assertReads(t, input, strs), input)
	}
	smap := func(p *jsonread.Parser, v *map[string]string) bool { return p.StringMap(v) }
	for input, reads := range map[string]bool{`{"a":"1","b":"2"}`: true, `{}`: true, `null`: true, `{"a":null}`: true, `{"a":1}`: false, `{"\u0061":"1"}`: false, `[]`: false} {
		assert.Equal(t, reads, assertReads(t, input, smap), input)
	}
	boolean := func(p *jsonread.Parser, v *bool) bool { return p.Bool(v) }
	for input, reads := range map[string]bool{`true`: true, `false`: true, `null`: true, `"true"`: false, `1`: false, `tru`: false} {
		assert.Equal(t, reads, assertReads(t, input, boolean), input)
	}
	i64 := func(p *jsonread.Parser, v *int64) bool { return p.Int64(v) }
	for input, reads := range map[string]bool{`0`: true, `-42`: true, `9223372036854775807`: true, `null`: true, `9223372036854775808`: false, `1.5`: false, `1e3`: false, `"1"`: false, `01`: false} {
		assert.Equal(t, reads, assertReads(t, input, i64), input)
	}
	sptr := func(p *jsonread.Parser, v **string) bool { return p.StrPtr(v) }
	iptr := func(p *jsonread.Parser, v **int) bool { return p.IntPtr(v) }
	bptr := func(p *jsonread.Parser, v **bool) bool { return p.BoolPtr(v) }
	for input, reads := range map[string]bool{`"x"`: true, `null`: true, `1`: false} {
		assert.Equal(t, reads, assertReads(t, input, sptr), input)
	}
	for input, reads := range map[string]bool{`7`: true, `null`: true, `7.0`: false} {
		assert.Equal(t, reads, assertReads(t, input, iptr), input)
	}
	for input, reads := range map[string]bool{`false`: true, `null`: true, `0`: false} {
		assert.Equal(t, reads, assertReads(t, input, bptr), input)
	}
	raw := func(p *jsonread.Parser, v *json.RawMessage) bool { return p.RawCopy(v) }
	for input, reads := range map[string]bool{`{ "a" : [1, 2] }`: true, `null`: true, `"s"`: true, `-0.5e3`: true, `[1,]`: false, `{"a"}`: false} {
		assert.Equal(t, reads, assertReads(t, input, raw), input)
	}
	delegated := func(p *jsonread.Parser, v *map[string]any) bool { return p.Delegate(v) }
	for input, reads := range map[string]bool{`{"a":[1,{"b":null}]}`: true, `null`: true, `[]`: false, `{`: false} {
		assert.Equal(t, reads, assertReads(t, input, delegated), input)
	}
}

// An object's members are read in order; a name that differs from a known
// one only in case is refused (encoding/json would read it as that one),
// any other unknown member skipped.
func TestParserObject(t *testing.T) {
	fields := []string{"name", "size"}
	type item struct {
		Name string `json:"name"`
		Size int64  `json:"size"`
	}
	read := func(p *jsonread.Parser, v *item) bool {
		return p.Peek() == '{' && p.Object(func(key string) bool {
			switch key {
			case "name":
				return p.Str(&v.Name)
			case "size":
				return p.Int64(&v.Size)
			}
			return p.Unknown(key, fields)
		})
	}
	for input, reads := range map[string]bool{
		`{"name":"a","size":3}`: true, `{}`: true, `{"other":{"x":[1,"y",null]},"name":"b"}`: true, ` { "size" : 1 } `: true,
		`{"Name":"a"}`: false, `{"SIZE":1}`: false, `{"name":"a",}`: false, `{"name" "a"}`: false, `{"name":1}`: false, `{"n\u0061me":"a"}`: false,
	} {
		assert.Equal(t, reads, assertReads(t, input, read), input)
	}
}
