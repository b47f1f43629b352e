package a2aschema

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// a2a.proto is the normative data model the bundle is generated from
// (same tag and commit, unmodified). Examples reads its oneofs, which the
// JSON Schema does not express: a Part holds one of text, raw, url and
// data, a SecurityScheme one kind, a StreamResponse one payload.
//
//go:embed a2a.proto
var protoFile []byte

// Field is one property an example document sets.
type Field struct {
	// Pointer is the property's JSON Pointer (RFC 6901) in the document.
	Pointer string
	// Definition is the title of the definition that defines the property
	// ("Part"), Property its JSON name ("mediaType").
	Definition, Property string
}

// Example is a document of one definition, with every property it sets.
type Example struct {
	Doc    []byte
	Fields []Field
}

// Examples returns documents of the definition title that, together, set
// every property of every definition reachable from it, each to a value
// that is not its default (a non-empty string, true, a non-zero number, a
// non-empty list or object), so that a round trip that drops or zeroes a
// field shows. Values are derived from the schema alone:
//   - a string is its own JSON Pointer, except for a URL (a property named
//     url or ...Url: an https URL), bytes (base64) and timestamps (RFC 3339);
//   - an enum takes its first value after the unspecified one;
//   - an integer is 3, a boolean true;
//   - a Struct or Value is an object holding every kind of JSON value;
//   - a list or map holds one element, or, when its elements hold a oneof,
//     one element per member.
//
// A single object with a oneof sets one member; the documents differ in
// which (document i sets member i, modulo their number).
func Examples(title string) ([]Example, error) {
	m, err := loadModel()
	if err != nil {
		return nil, err
	}
	if _, ok := m.defs[title]; !ok {
		return nil, fmt.Errorf("a2aschema: no definition %q in a2a.json", title)
	}
	variants := 1
	for _, groups := range m.oneofs {
		for _, g := range groups {
			variants = max(variants, len(g))
		}
	}
	var out []Example
	seen := map[string]bool{}
	for v := range variants {
		g := &generator{m: m, variant: v}
		doc, err := json.Marshal(g.object(title, "", -1, 0))
		if err != nil {
			return nil, fmt.Errorf("a2aschema: example of %q: %w", title, err)
		}
		if seen[string(doc)] {
			continue
		}
		seen[string(doc)] = true
		out = append(out, Example{Doc: doc, Fields: g.fields})
	}
	return out, nil
}

// Titles returns the titles of every definition of the bundle, sorted.
func Titles() ([]string, error) {
	m, err := loadModel()
	if err != nil {
		return nil, err
	}
	titles := make([]string, 0, len(m.defs))
	for t := range m.defs {
		titles = append(titles, t)
	}
	slices.Sort(titles)
	return titles, nil
}

// The google.protobuf definitions, whose values are not A2A objects.
const (
	defStruct    = "Struct"
	defValue     = "Value"
	defTimestamp = "Timestamp"
)

// Timestamp is the value Examples gives timestamps.
const Timestamp = "2026-03-04T05:06:07Z"

type model struct {
	defs   map[string]map[string]any
	byFile map[string]string // $ref file name -> title
	// oneofs lists, per title, the oneof groups of its message: the JSON
	// names of their members.
	oneofs map[string][][]string
}

var (
	modelOnce sync.Once
	theModel  *model
	modelErr  error
)

func loadModel() (*model, error) {
	modelOnce.Do(func() { theModel, modelErr = buildModel() })
	return theModel, modelErr
}

func buildModel() (*model, error) {
	var doc struct {
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(bundle, &doc); err != nil {
		return nil, fmt.Errorf("a2aschema: %w", err)
	}
	m := &model{defs: map[string]map[string]any{}, byFile: map[string]string{}, oneofs: map[string][][]string{}}
	for title, raw := range doc.Definitions {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			return nil, fmt.Errorf("a2aschema: definition %q: %w", title, err)
		}
		m.defs[title] = d
		m.byFile[fileName(title)] = title
	}
	byMessage := map[string]string{}
	for title := range m.defs {
		byMessage[strings.ReplaceAll(title, " ", "")] = title
	}
	for message, groups := range protoOneofs(protoFile) {
		title, ok := byMessage[message]
		if !ok {
			return nil, fmt.Errorf("a2aschema: a2a.proto's message %s has no definition in a2a.json", message)
		}
		for _, g := range groups {
			props, _ := m.defs[title]["properties"].(map[string]any)
			for _, name := range g {
				if _, ok := props[name]; !ok {
					return nil, fmt.Errorf("a2aschema: oneof member %s.%s is no property of %q", message, name, title)
				}
			}
		}
		m.oneofs[title] = groups
	}
	return m, nil
}

var (
	protoMessage = regexp.MustCompile(`^\s*message\s+(\w+)\s*\{`)
	protoOneof   = regexp.MustCompile(`^\s*oneof\s+\w+\s*\{`)
	protoField   = regexp.MustCompile(`^\s*(?:repeated\s+)?[\w.]+\s+(\w+)\s*=\s*\d+`)
)

// protoOneofs reads the oneof groups of each message of a proto file: the
// JSON (lowerCamelCase) names of their fields. The file's messages do not
// nest, which this reading relies on.
func protoOneofs(src []byte) map[string][][]string {
	out := map[string][][]string{}
	var message string
	var group []string
	inOneof := false
	for line := range strings.SplitSeq(string(src), "\n") {
		line, _, _ = strings.Cut(line, "//")
		switch {
		case protoMessage.MatchString(line):
			message = protoMessage.FindStringSubmatch(line)[1]
		case protoOneof.MatchString(line):
			inOneof, group = true, nil
		case inOneof && strings.TrimSpace(line) == "}":
			inOneof = false
			out[message] = append(out[message], group)
		case inOneof && protoField.MatchString(line):
			group = append(group, jsonName(protoField.FindStringSubmatch(line)[1]))
		}
	}
	return out
}

// jsonName is protoc's JSON name of a field: lowerCamelCase.
func jsonName(field string) string {
	parts := strings.Split(field, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

type generator struct {
	m       *model
	variant int
	fields  []Field
}

// maxDepth bounds the nesting of an example (the schema's objects nest
// about six deep; Struct values do not recurse).
const maxDepth = 16

// object builds an object of the definition title at pointer ptr. member,
// when not negative, chooses the member of its oneof (else the variant
// does).
func (g *generator) object(title, ptr string, member, depth int) any {
	switch title {
	case defStruct, defValue:
		return structValue(ptr)
	case defTimestamp:
		return Timestamp
	}
	if depth > maxDepth {
		return map[string]any{}
	}
	def := g.m.defs[title]
	props, _ := def["properties"].(map[string]any)
	skip := map[string]bool{}
	for _, group := range g.m.oneofs[title] {
		pick := member
		if pick < 0 {
			pick = g.variant
		}
		chosen := group[pick%len(group)]
		for _, name := range group {
			skip[name] = name != chosen
		}
	}
	out := map[string]any{}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if skip[name] {
			continue
		}
		p := ptr + "/" + name
		g.fields = append(g.fields, Field{Pointer: p, Definition: title, Property: name})
		out[name] = g.value(name, props[name].(map[string]any), p, depth+1)
	}
	return out
}

// value builds the value of the property name, whose schema is s.
func (g *generator) value(name string, s map[string]any, ptr string, depth int) any {
	if ref, ok := s["$ref"].(string); ok {
		return g.object(g.m.byFile[ref], ptr, -1, depth)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, alt := range anyOf {
			if enum, ok := alt.(map[string]any)["enum"].([]any); ok {
				return enum[0]
			}
		}
		return json.Number("3") // an integer, which int64s also accept as a string
	}
	switch s["type"] {
	case "boolean":
		return true
	case "integer", "number":
		return json.Number("3")
	case "string":
		switch {
		case s["format"] == "date-time":
			return Timestamp
		case s["pattern"] != nil: // bytes
			return base64.StdEncoding.EncodeToString([]byte(ptr))
		case name == "url" || strings.HasSuffix(name, "Url"):
			return "https://example.com" + ptr
		}
		return ptr
	case "array":
		items := s["items"].(map[string]any)
		n := g.members(items)
		list := make([]any, n)
		for i := range list {
			list[i] = g.element(name, items, fmt.Sprintf("%s/%d", ptr, i), i, n, depth)
		}
		return list
	case "object":
		elem, ok := s["additionalProperties"].(map[string]any)
		if !ok {
			return map[string]any{}
		}
		n := g.members(elem)
		obj := map[string]any{}
		for i := range n {
			key := fmt.Sprintf("k%d", i)
			obj[key] = g.element(name, elem, ptr+"/"+key, i, n, depth)
		}
		return obj
	}
	return ptr
}

// members is how many elements a list or map of s holds: one per member of
// the oneof of s's definition, or one.
func (g *generator) members(s map[string]any) int {
	ref, _ := s["$ref"].(string)
	n := 1
	for _, group := range g.m.oneofs[g.m.byFile[ref]] {
		n = max(n, len(group))
	}
	return n
}

// element builds element i of n of a list or map of s.
func (g *generator) element(name string, s map[string]any, ptr string, i, n, depth int) any {
	if ref, ok := s["$ref"].(string); ok && n > 1 {
		return g.object(g.m.byFile[ref], ptr, i, depth)
	}
	return g.value(name, s, ptr, depth)
}

// structValue is a JSON object holding every kind of JSON value, nested:
// exact numbers too large for a float64, a fraction, null, lists.
func structValue(ptr string) map[string]any {
	return map[string]any{
		"text":   ptr,
		"big":    json.Number("12345678901234567890123"),
		"frac":   json.Number("0.5"),
		"flag":   true,
		"none":   nil,
		"list":   []any{json.Number("1"), "two", map[string]any{"three": json.Number("3")}},
		"object": map[string]any{"nested": "value"},
	}
}
