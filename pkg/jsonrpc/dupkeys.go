package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// smallObject is the number of members below which duplicates are found by
// comparing names pairwise (no allocation); larger objects use a set.
const smallObject = 16

// duplicateKey returns the first member name that appears twice in one
// object anywhere in b, a valid JSON value, and whether there is one.
// Parsers differ on duplicates (the first wins, or the last), so a request
// that has them can mean one thing to a proxy or firewall in front of the
// server and another to the server: it is refused instead.
func duplicateKey(b []byte) (string, bool) {
	return scanDuplicates(b, skipSpace(b, 0))
}

// scanDuplicates scans the value at b[i].
func scanDuplicates(b []byte, i int) (string, bool) {
	if i >= len(b) {
		return "", false
	}
	switch b[i] {
	case '[':
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			if k, dup := scanDuplicates(b, i); dup {
				return k, true
			}
			i = skipSpace(b, skipValue(b, i))
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
	case '{':
		var (
			names [smallObject][]byte
			n     int
			set   map[string]bool
		)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			end := skipString(b, i)
			name := b[i+1 : end-1]
			if bytes.IndexByte(name, '\\') >= 0 {
				var s string
				if json.Unmarshal(b[i:end], &s) == nil {
					name = []byte(s)
				}
			}
			switch {
			case set != nil:
				if set[string(name)] {
					return string(name), true
				}
				set[string(name)] = true
			case n < smallObject:
				for _, seen := range names[:n] {
					if bytes.Equal(seen, name) {
						return string(name), true
					}
				}
				names[n] = name
				n++
			default:
				set = make(map[string]bool, 2*smallObject)
				for _, seen := range names[:n] {
					set[string(seen)] = true
				}
				if set[string(name)] {
					return string(name), true
				}
				set[string(name)] = true
			}
			i = skipSpace(b, skipSpace(b, end)+1) // past the colon
			if b[i] == '{' || b[i] == '[' {
				if k, dup := scanDuplicates(b, i); dup {
					return k, true
				}
			}
			i = skipSpace(b, skipValue(b, i))
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
	}
	return "", false
}
