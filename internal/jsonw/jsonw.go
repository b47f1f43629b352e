// Package jsonw appends JSON to byte slices: the primitives of the
// hand-written encoders of the protocol objects (pkg/a2a for A2A 0.3,
// pkg/a2av1 for A2A 1.0).
//
// encoding/json re-validates and re-compacts the output of every nested
// MarshalJSON method, so an object encoded through nested marshalers is
// compacted once per level. These helpers let an encoder write each object
// once; free-form values (metadata, data) still go through encoding/json.
package jsonw

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// String appends s as a JSON string. Like encoding/json, it replaces invalid
// UTF-8 with U+FFFD and escapes U+2028 and U+2029; it does not escape <, >
// and &, which JSON does not require.
func String(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Key appends ,"key": (or "key": right after an opening brace). key must
// need no escaping.
func Key(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// StringField appends "key":"v".
func StringField(b []byte, key, v string) []byte { return String(Key(b, key), v) }

// OptString appends "key":"v" unless v is empty.
func OptString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return StringField(b, key, v)
}

// Strings appends "key":[...] unless vs is empty.
func Strings(b []byte, key string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(Key(b, key), '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, v)
	}
	return append(b, ']')
}

// Object appends "key":<m encoded by encoding/json> unless m is empty.
func Object(b []byte, key string, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return b, fmt.Errorf("%s: %w", key, err)
	}
	return append(Key(b, key), raw...), nil
}

// Raw appends "key":raw, checking that raw is valid JSON, since it becomes
// part of a response.
func Raw(b []byte, key string, raw json.RawMessage) ([]byte, error) {
	if !json.Valid(raw) {
		return b, fmt.Errorf("%s is not valid JSON", key)
	}
	return append(Key(b, key), raw...), nil
}
