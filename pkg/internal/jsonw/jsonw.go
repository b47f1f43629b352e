// Package jsonw appends JSON to byte slices: the primitives of the
// hand-written encoders of the protocol objects (pkg/a2a for A2A 0.3,
// pkg/internal/a2av1 for A2A 1.0).
//
// encoding/json re-validates and re-compacts the output of every nested
// MarshalJSON method, so an object encoded through nested marshalers is
// compacted once per level. These helpers let an encoder write each object
// once; free-form values (metadata, data) still go through encoding/json.
package jsonw

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// String appends s as a JSON string. Like encoding/json, it replaces invalid
// UTF-8 with U+FFFD and escapes U+2028 and U+2029; it does not escape <, >
// and &, which JSON does not require.
func String(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	// Room for s and its quotes at once: the appends of its escaped
	// parts would otherwise grow b one after the other.
	b = append(slices.Grow(b, len(s)+2), '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && jsonread.Plain(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
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
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
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

// Float appends a finite f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form (e-7, e+21) only
// below 1e-6 or from 1e21 in magnitude. JSON has no NaN or infinity; the
// caller handles those.
func Float(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// strconv writes at least two exponent digits (1e-07);
		// encoding/json writes as few as needed (1e-7).
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
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

// Object appends "key":<m> unless m is empty. m is written as
// encoding/json writes it (keys sorted), see Value.
func Object(b []byte, key string, m map[string]any) ([]byte, error) {
	if len(m) == 0 {
		return b, nil
	}
	b, err := Value(Key(b, key), m)
	if err != nil {
		return b, fmt.Errorf("%s: %w", key, err)
	}
	return b, nil
}

// Value appends v as encoding/json would. The shapes free-form JSON
// decodes to (maps with sorted keys, slices, strings, json.Number, numbers,
// booleans, nil, json.RawMessage) are written directly, without
// reflection; anything else goes through encoding/json.
func Value(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return String(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case json.Number:
		if t == "" {
			return append(b, '0'), nil
		}
		if !jsonread.Valid([]byte(t)) {
			return b, fmt.Errorf("json: invalid number literal %q", string(t))
		}
		return append(b, t...), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case json.RawMessage:
		if !jsonread.Valid(t) {
			return b, fmt.Errorf("json: invalid raw message")
		}
		return append(b, t...), nil
	case map[string]any:
		return appendMap(b, t)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = Value(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

func appendMap(b []byte, m map[string]any) ([]byte, error) { return Map(b, m, Value) }

// Map appends m as an object, its keys sorted as encoding/json sorts them,
// each value written by one; null when m is nil.
func Map[V any](b []byte, m map[string]V, one func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	if len(m) == 1 { // nothing to sort: the shape of most metadata ({"shared":{"session":{"id":...}}})
		var err error
		for k, v := range m {
			b, err = one(append(String(append(b, '{'), k), ':'), v)
		}
		return append(b, '}'), err
	}
	var small [8]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = one(append(String(b, k), ':'), m[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// Raw appends "key":raw, checking that raw is valid JSON, since it becomes
// part of a response.
func Raw(b []byte, key string, raw json.RawMessage) ([]byte, error) {
	if !jsonread.Valid(raw) {
		return b, fmt.Errorf("%s is not valid JSON", key)
	}
	return append(Key(b, key), raw...), nil
}

// Array appends items as a JSON array, each written by one.
func Array[T any](b []byte, items []T, one func([]byte, *T) ([]byte, error)) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = one(b, &items[i]); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// OptArray appends "key":[...] unless items is empty, each item written by
// one.
func OptArray[T any](b []byte, key string, items []T, one func([]byte, *T) ([]byte, error)) ([]byte, error) {
	if len(items) == 0 {
		return b, nil
	}
	return Array(Key(b, key), items, one)
}
