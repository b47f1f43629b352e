package jsonread

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parser reads JSON, checking its syntax as it goes, into Go values as
// encoding/json reads them. Each method reads one value, of the shape
// encoding/json reads into its Go type, and returns false, the Parser's
// position then unspecified, on anything else: invalid JSON, another
// shape, or what encoding/json would read otherwise than plainly (an
// escaped key, a list given twice). A decoder built on it hands such
// input to encoding/json.
type Parser struct {
	b []byte
	i int
	// text is b as a string, made once: the strings read are parts of
	// it, not one allocation each.
	text string
}

// MaxDepth bounds the nesting of the values skipped; deeper ones are
// encoding/json's (which has a bound of its own).
const MaxDepth = 100

// NewParser returns a Parser at the start of data.
func NewParser(data []byte) Parser { return Parser{b: data, text: string(data)} }

// Valid reports whether data is one valid JSON value, as json.Valid does,
// at a few times its speed: data nested deeper than MaxDepth, or that the
// Parser finds invalid, is json.Valid's to judge.
func Valid(data []byte) bool {
	p := Parser{b: data}
	p.Space()
	if p.skip(0) && p.AtEnd() {
		return true
	}
	return json.Valid(data)
}

// Space reads past white space.
func (p *Parser) Space() {
	i, b := p.i, p.b
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	p.i = i
}

// Peek returns the byte at i, 0 at the end.
func (p *Parser) Peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// AtEnd reads the space after the value read last and reports whether the
// text ends there.
func (p *Parser) AtEnd() bool {
	p.Space()
	return p.i == len(p.b)
}

// Document reads the whole text as one object, white space around it,
// as Object does.
func (p *Parser) Document(member func(key string) bool) bool {
	p.Space()
	return p.Object(member) && p.AtEnd()
}

// Object reads an object at i (not null), calling member with each key (a
// part of text: an escaped key fails) with i at its value.
func (p *Parser) Object(member func(key string) bool) bool {
	if p.Peek() != '{' {
		return false
	}
	p.i++
	p.Space()
	if p.Peek() == '}' {
		p.i++
		return true
	}
	for {
		if p.Peek() != '"' {
			return false
		}
		start := p.i
		plain, ok := p.skipString()
		if !ok || !plain {
			return false
		}
		key := p.text[start+1 : p.i-1]
		p.Space()
		if p.Peek() != ':' {
			return false
		}
		p.i++
		p.Space()
		if !member(key) {
			return false
		}
		p.Space()
		switch p.Peek() {
		case ',':
			p.i++
			p.Space()
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// Unknown skips the value of a member that is none of fields, and fails
// for a key encoding/json would take as one of them (case ignored).
func (p *Parser) Unknown(key string, fields []string) bool {
	for _, f := range fields {
		if strings.EqualFold(key, f) {
			return false
		}
	}
	return p.skip(0)
}

// Array reads an array at i (not null), calling item with i at each of its
// items.
func (p *Parser) Array(item func() bool) bool {
	if p.Peek() != '[' {
		return false
	}
	p.i++
	p.Space()
	if p.Peek() == ']' {
		p.i++
		return true
	}
	for {
		if !item() {
			return false
		}
		p.Space()
		switch p.Peek() {
		case ',':
			p.i++
			p.Space()
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// Null reads null at i, if it is there.
func (p *Parser) Null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// Str reads a string into s; null leaves s as it is.
func (p *Parser) Str(s *string) bool {
	if p.Null() {
		return true
	}
	v, ok := p.stringValue()
	if ok {
		*s = v
	}
	return ok
}

// stringValue reads a string at i.
func (p *Parser) stringValue() (string, bool) {
	if p.Peek() != '"' {
		return "", false
	}
	start := p.i
	plain, ok := p.skipString()
	if !ok {
		return "", false
	}
	if plain {
		return p.text[start+1 : p.i-1], true
	}
	return Unquote(p.b[start+1 : p.i-1]), true
}

// StrPtr reads a string into a new *dst, or null (nil).
func (p *Parser) StrPtr(dst **string) bool {
	if p.Null() {
		*dst = nil
		return true
	}
	var s string
	if !p.Str(&s) {
		return false
	}
	*dst = &s
	return true
}

// Strings reads a list of strings into l (null: nil; a null item: "").
// A list given twice fails: encoding/json fills the first one's array.
func (p *Parser) Strings(l *[]string) bool {
	if *l != nil {
		return false
	}
	if p.Null() {
		return true
	}
	out := []string{}
	if !p.Array(func() bool {
		var s string
		ok := p.Str(&s)
		out = append(out, s)
		return ok
	}) {
		return false
	}
	*l = out
	return true
}

// StringMap reads an object of strings into m (null: nil; a null value:
// ""). An object given twice adds to the first one's map, as encoding/json
// does.
func (p *Parser) StringMap(m *map[string]string) bool {
	if p.Null() {
		*m = nil
		return true
	}
	if p.Peek() != '{' {
		return false // a map is made for an object only
	}
	if *m == nil {
		*m = map[string]string{}
	}
	out := *m
	return p.Object(func(key string) bool {
		var s string
		if !p.Str(&s) {
			return false
		}
		out[key] = s
		return true
	})
}

// Bool reads true or false into v; null leaves v as it is.
func (p *Parser) Bool(v *bool) bool {
	switch {
	case p.Null():
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		*v = true
		p.i += 4
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		*v = false
		p.i += 5
	default:
		return false
	}
	return true
}

// BoolPtr reads true or false into a new *dst, or null (nil).
func (p *Parser) BoolPtr(dst **bool) bool {
	if p.Null() {
		*dst = nil
		return true
	}
	var b bool
	if !p.Bool(&b) {
		return false
	}
	*dst = &b
	return true
}

// Int64 reads an integer into v; null leaves v as it is.
func (p *Parser) Int64(v *int64) bool {
	if p.Null() {
		return true
	}
	start := p.i
	if !p.skipNumber() {
		return false
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	if err != nil {
		return false // a fraction, an exponent, too large: encoding/json's
	}
	*v = n
	return true
}

// Int reads an integer into v; null leaves v as it is.
func (p *Parser) Int(v *int) bool {
	n := int64(*v)
	if !p.Int64(&n) {
		return false
	}
	*v = int(n)
	return true
}

// IntPtr reads an integer into a new *dst, or null (nil).
func (p *Parser) IntPtr(dst **int) bool {
	if p.Null() {
		*dst = nil
		return true
	}
	var n int
	if !p.Int(&n) {
		return false
	}
	*dst = &n
	return true
}

// Raw reads past a valid value and returns its text.
func (p *Parser) Raw() ([]byte, bool) {
	start := p.i
	if !p.skip(0) {
		return nil, false
	}
	return p.b[start:p.i], true
}

// RawCopy reads any value into *dst as json.RawMessage reads itself: a
// copy of its text (null too).
func (p *Parser) RawCopy(dst *json.RawMessage) bool {
	raw, ok := p.Raw()
	*dst = append((*dst)[:0], raw...)
	return ok
}

// Delegate has encoding/json read the value at i into v.
func (p *Parser) Delegate(v any) bool {
	start := p.i
	return p.skip(0) && json.Unmarshal(p.b[start:p.i], v) == nil
}

// skip reads past any valid JSON value at i.
func (p *Parser) skip(depth int) bool {
	switch c := p.Peek(); {
	case c == '"':
		_, ok := p.skipString()
		return ok
	case c == '{' || c == '[':
		if depth == MaxDepth {
			return false
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		p.i++
		p.Space()
		if p.Peek() == closing {
			p.i++
			return true
		}
		for {
			if c == '{' {
				if _, ok := p.skipString(); !ok {
					return false
				}
				if p.Space(); p.Peek() != ':' {
					return false
				}
				p.i++
				p.Space()
			}
			if !p.skip(depth + 1) {
				return false
			}
			p.Space()
			switch p.Peek() {
			case ',':
				p.i++
				p.Space()
			case closing:
				p.i++
				return true
			default:
				return false
			}
		}
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return p.skipNumber()
}

func (p *Parser) literal(lit string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return false
	}
	p.i += len(lit)
	return true
}

// skipString reads past the string at i. plain: it has no escape and
// only ASCII, or valid UTF-8, so its bytes are its value.
func (p *Parser) skipString() (plain, ok bool) {
	if p.Peek() != '"' {
		return false, false
	}
	start := p.i + 1
	ascii, escaped := true, false
	for p.i++; p.i < len(p.b); p.i++ {
		i, b := p.i, p.b // locals: the loop keeps them in registers
		for i < len(b) && plainBytes[b[i]] {
			i++
		}
		p.i = i
		if p.i == len(p.b) {
			break
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return !escaped && (ascii || utf8.Valid(p.b[start:p.i-1])), true
		case c == '\\':
			escaped = true
			if !p.skipEscape() {
				return false, false
			}
		case c < 0x20:
			return false, false
		case c >= 0x80:
			ascii = false
		}
	}
	return false, false
}

// skipEscape checks the escape at i (a backslash) and leaves i at its
// last byte.
func (p *Parser) skipEscape() bool {
	if p.i+1 >= len(p.b) {
		return false
	}
	p.i++
	switch p.b[p.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if p.i+4 >= len(p.b) {
			return false
		}
		for _, h := range p.b[p.i+1 : p.i+5] {
			if !isHex(h) {
				return false
			}
		}
		p.i += 4
		return true
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber reads past a number at i, as JSON writes one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *Parser) skipNumber() bool {
	if p.Peek() == '-' {
		p.i++
	}
	switch c := p.Peek(); {
	case c == '0':
		p.i++
	case '1' <= c && c <= '9':
		p.digits()
	default:
		return false
	}
	if p.Peek() == '.' {
		p.i++
		if !p.digits() {
			return false
		}
	}
	if c := p.Peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.Peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return false
		}
	}
	return true
}

// digits reads past one digit or more.
func (p *Parser) digits() bool {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
