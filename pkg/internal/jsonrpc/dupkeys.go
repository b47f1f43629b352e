package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// smallObject is the number of members below which duplicates are found by
// comparing names pairwise (no allocation); larger objects use a set.
const smallObject = 16

// CheckMembers refuses (-32600) a body, a JSON value, in which one
// object names a member twice, in the same spelling or in two the decoders
// read as one: the decoders accept the snake_case spelling of every member
// (message_id for messageId) and, as encoding/json does, any case
// (MessageID). Parsers differ on duplicates (the first wins, or the
// last), so a request that has them can mean one thing to a proxy or
// firewall in front of the server and another to the server, and two
// sends of the same body could even be read differently (Go's maps have no
// order): it is refused instead. Inside free-form members (metadata, data,
// _meta), whose names are the client's own, only the same spelling twice
// is a duplicate. A body that is not valid JSON passes: its decoder says
// what is wrong with it.
func CheckMembers(b []byte) error {
	if !jsonread.Valid(b) {
		return nil
	}
	return CheckValidMembers(b)
}

// CheckValidMembers is CheckMembers of a body its caller has already
// found valid (jsonread.Valid), which it does not scan a second time.
func CheckValidMembers(b []byte) error { return checkMembers(b, false) }

// checkMembers is CheckMembers of a valid JSON value; for a JSON-RPC
// envelope, whose members
// are matched exactly ("Method" is not "method"), aliases count only
// inside params.
func checkMembers(b []byte, envelope bool) error { return checkMembersEach(b, envelope, nil) }

// checkMembersEach is checkMembers that also calls each, unless nil, with
// the name and raw value of each member of b's outer object, in order, as
// it reads them: the names unescaped, the values subslices of b. Read in
// the same pass, a request's members cost no second reading of its body.
func checkMembersEach(b []byte, envelope bool, each func(name, value []byte)) error {
	_, d, ok := scanDuplicates(b, skipSpace(b, 0), !envelope, envelope, each)
	if !ok {
		return nil
	}
	format, args := "member %q appears twice in one object; a request must not repeat a name", []any{truncate([]byte(d.second))}
	if d.first != d.second {
		format, args = "members %q and %q of one object name the same field (names are read in any case, and snake_case as camelCase); send it once", []any{truncate([]byte(d.first)), args[0]}
	}
	return a2a.Errorf(a2a.CodeInvalidRequest, format, args...)
}

// duplicate is a member named twice in one object: first and second are
// its two spellings (equal for an exact repeat).
type duplicate struct{ first, second string }

// scanDuplicates returns the first member of an object of the value at
// b[i] named twice (see CheckMembers), and whether there is one; without
// one, end is the index just past the value, so that each byte is read
// once however deep it is nested. fold says whether aliases count (the
// names are the decoders', not free-form ones); envelope, that the value
// is a JSON-RPC envelope. each, unless nil, is called with each member of
// the value (an object) and its raw value, its members' own members not.
func scanDuplicates(b []byte, i int, fold, envelope bool, each func(name, value []byte)) (end int, d duplicate, dup bool) {
	if i >= len(b) {
		return i, duplicate{}, false
	}
	switch b[i] {
	case '[':
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			if i, d, dup = scanDuplicates(b, i, fold, false, nil); dup {
				return i, d, true
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return i + 1, duplicate{}, false
	case '{':
		var (
			names [smallObject][]byte
			n     int
			// set maps the key of each name (the name, or its folded
			// form) to its first spelling.
			set map[string]string
		)
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			nameEnd := skipString(b, i)
			name := b[i+1 : nameEnd-1]
			if bytes.IndexByte(name, '\\') >= 0 {
				var s string
				if json.Unmarshal(b[i:nameEnd], &s) == nil {
					name = []byte(s)
				}
			}
			switch {
			case set != nil:
				if first, seen := set[nameKey(name, fold)]; seen {
					return i, duplicate{first, string(name)}, true
				}
				set[nameKey(name, fold)] = string(name)
			case n < smallObject:
				for _, seen := range names[:n] {
					if bytes.Equal(seen, name) || (fold && foldEqual(seen, name)) {
						return i, duplicate{string(seen), string(name)}, true
					}
				}
				names[n] = name
				n++
			default:
				set = make(map[string]string, 2*smallObject)
				for _, seen := range names[:n] {
					set[nameKey(seen, fold)] = string(seen)
				}
				if first, seen := set[nameKey(name, fold)]; seen {
					return i, duplicate{first, string(name)}, true
				}
				set[nameKey(name, fold)] = string(name)
			}
			i = skipSpace(b, skipSpace(b, nameEnd)+1) // past the colon
			childFold := fold && !freeForm(name)
			if envelope {
				childFold = string(name) == "params"
			}
			start := i
			if i, d, dup = scanDuplicates(b, i, childFold, false, nil); dup {
				return i, d, true
			}
			if each != nil {
				each(name, b[start:i])
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return i + 1, duplicate{}, false
	}
	return skipValue(b, i), duplicate{}, false
}

// freeForm reports whether a member's value is free-form JSON whose names
// are the client's: a request's metadata, a data part's data, an OAP
// envelope's _meta. (Spelled otherwise, as the decoders would still read
// them, their names count as the decoders': a stricter check.)
func freeForm(name []byte) bool {
	switch string(name) {
	case "metadata", "data", "_meta":
		return true
	}
	return false
}

// foldEqual reports whether the decoders read a and b as the same member:
// equal without their underscores (but a leading one) and in any case.
func foldEqual(a, b []byte) bool {
	if len(a) > 0 && len(b) > 0 && (a[0] == '_') != (b[0] == '_') {
		return false
	}
	i, j := 0, 0
	for {
		i, j = skipUnderscores(a, i), skipUnderscores(b, j)
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		ca, cb := a[i], b[j]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			// Unicode case folding (the Kelvin sign folds to k).
			return nameKey(a, true) == nameKey(b, true)
		}
		if lower(ca) != lower(cb) {
			return false
		}
		i, j = i+1, j+1
	}
}

// skipUnderscores skips the underscores at name[i], unless i is 0: a
// leading underscore is part of the name.
func skipUnderscores(name []byte, i int) int {
	for i > 0 && i < len(name) && name[i] == '_' {
		i++
	}
	return i
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// nameKey is the key of a name in a large object's set: the name itself,
// or, when aliases count, a form that foldEqual names share.
func nameKey(name []byte, fold bool) string {
	if !fold {
		return string(name)
	}
	head, rest := "", name
	if len(name) > 0 && name[0] == '_' {
		head, rest = "_", name[1:]
	}
	return head + strings.ToLower(strings.ToUpper(strings.ReplaceAll(string(rest), "_", "")))
}
