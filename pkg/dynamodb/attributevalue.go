package dynamodb

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// AttributeValue is one value of an item attribute, in DynamoDB's data
// types: one of the AttributeValueMember types, always by pointer.
type AttributeValue interface {
	json.Marshaler
	isAttributeValue()
}

// AttributeValueMemberS is a string.
type AttributeValueMemberS struct{ Value string }

// AttributeValueMemberN is a number, kept as DynamoDB writes it (up to 38
// significant digits): parse it to the precision the caller needs.
type AttributeValueMemberN struct{ Value string }

// AttributeValueMemberB is a binary value (base64 on the wire).
type AttributeValueMemberB struct{ Value []byte }

// AttributeValueMemberSS is a string set.
type AttributeValueMemberSS struct{ Value []string }

// AttributeValueMemberNS is a number set.
type AttributeValueMemberNS struct{ Value []string }

// AttributeValueMemberBS is a binary set.
type AttributeValueMemberBS struct{ Value [][]byte }

// AttributeValueMemberL is a list.
type AttributeValueMemberL struct{ Value []AttributeValue }

// AttributeValueMemberM is a map.
type AttributeValueMemberM struct{ Value map[string]AttributeValue }

// AttributeValueMemberNULL is the null value (Value is true).
type AttributeValueMemberNULL struct{ Value bool }

// AttributeValueMemberBOOL is a boolean.
type AttributeValueMemberBOOL struct{ Value bool }

func (*AttributeValueMemberS) isAttributeValue()    {}
func (*AttributeValueMemberN) isAttributeValue()    {}
func (*AttributeValueMemberB) isAttributeValue()    {}
func (*AttributeValueMemberSS) isAttributeValue()   {}
func (*AttributeValueMemberNS) isAttributeValue()   {}
func (*AttributeValueMemberBS) isAttributeValue()   {}
func (*AttributeValueMemberL) isAttributeValue()    {}
func (*AttributeValueMemberM) isAttributeValue()    {}
func (*AttributeValueMemberNULL) isAttributeValue() {}
func (*AttributeValueMemberBOOL) isAttributeValue() {}

// The values encode as DynamoDB JSON: {"S":"..."}, {"N":"12"},
// {"B":"<base64>"}, {"L":[...]}, {"M":{...}}, {"NULL":true}...

func (v *AttributeValueMemberS) MarshalJSON() ([]byte, error)    { return AppendValue(nil, v) }
func (v *AttributeValueMemberN) MarshalJSON() ([]byte, error)    { return AppendValue(nil, v) }
func (v *AttributeValueMemberB) MarshalJSON() ([]byte, error)    { return AppendValue(nil, v) }
func (v *AttributeValueMemberSS) MarshalJSON() ([]byte, error)   { return AppendValue(nil, v) }
func (v *AttributeValueMemberNS) MarshalJSON() ([]byte, error)   { return AppendValue(nil, v) }
func (v *AttributeValueMemberBS) MarshalJSON() ([]byte, error)   { return AppendValue(nil, v) }
func (v *AttributeValueMemberL) MarshalJSON() ([]byte, error)    { return AppendValue(nil, v) }
func (v *AttributeValueMemberM) MarshalJSON() ([]byte, error)    { return AppendValue(nil, v) }
func (v *AttributeValueMemberNULL) MarshalJSON() ([]byte, error) { return AppendValue(nil, v) }
func (v *AttributeValueMemberBOOL) MarshalJSON() ([]byte, error) { return AppendValue(nil, v) }

// AppendValue appends v in DynamoDB JSON to b. A nil value, or one inside
// a list or map, is an error; nil sets, lists and maps encode empty.
func AppendValue(b []byte, v AttributeValue) ([]byte, error) {
	switch v := v.(type) {
	case *AttributeValueMemberS:
		return append(jsonw.String(append(b, `{"S":`...), v.Value), '}'), nil
	case *AttributeValueMemberN:
		return append(jsonw.String(append(b, `{"N":`...), v.Value), '}'), nil
	case *AttributeValueMemberB:
		return append(appendBytes(append(b, `{"B":`...), v.Value), '}'), nil
	case *AttributeValueMemberSS:
		return appendStrings(append(b, `{"SS":`...), v.Value), nil
	case *AttributeValueMemberNS:
		return appendStrings(append(b, `{"NS":`...), v.Value), nil
	case *AttributeValueMemberBS:
		b = append(b, `{"BS":[`...)
		for i, e := range v.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBytes(b, e)
		}
		return append(b, "]}"...), nil
	case *AttributeValueMemberL:
		b = append(b, `{"L":[`...)
		for i, e := range v.Value {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = AppendValue(b, e); err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
		}
		return append(b, "]}"...), nil
	case *AttributeValueMemberM:
		b, err := AppendItem(append(b, `{"M":`...), v.Value)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case *AttributeValueMemberNULL:
		return append(b, `{"NULL":true}`...), nil
	case *AttributeValueMemberBOOL:
		return append(strconv.AppendBool(append(b, `{"BOOL":`...), v.Value), '}'), nil
	}
	return nil, fmt.Errorf("dynamodb: attribute value %T is none of DynamoDB's types", v)
}

// AppendItem appends item in DynamoDB JSON ({"name":{"S":"..."},...}) to
// b.
func AppendItem(b []byte, item map[string]AttributeValue) ([]byte, error) {
	b = append(b, '{')
	first := true
	for k, v := range item {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(jsonw.String(b, k), ':')
		var err error
		if b, err = AppendValue(b, v); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
	}
	return append(b, '}'), nil
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, s)
	}
	return append(b, "]}"...)
}

func appendBytes(b []byte, p []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p)
	return append(b, '"')
}

// Item is an item (or a key) that encodes in DynamoDB JSON.
type Item map[string]AttributeValue

// MarshalJSON encodes the item in DynamoDB JSON.
func (m Item) MarshalJSON() ([]byte, error) { return AppendItem(nil, m) }

// wireItem is an item (or a key) in an answer, decoded from DynamoDB JSON
// by decoder.
type wireItem map[string]AttributeValue

// UnmarshalJSON decodes an item; encoding/json has checked b's syntax.
func (w *wireItem) UnmarshalJSON(b []byte) error {
	d := decoder{b: b}
	m, err := d.item()
	if err != nil {
		return err
	}
	*w = m
	return nil
}

// items are the items of an answer's wire items.
func items(ws []wireItem) []map[string]AttributeValue {
	if ws == nil {
		return nil
	}
	out := make([]map[string]AttributeValue, len(ws))
	for i, w := range ws {
		out[i] = w
	}
	return out
}

// DecodeItem decodes an item written in DynamoDB JSON ({"name":{"S":"..."},...}).
func DecodeItem(data []byte) (map[string]AttributeValue, error) {
	if !jsonread.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // says where
		return nil, fmt.Errorf("dynamodb: decode item: %w", err)
	}
	d := decoder{b: data}
	m, err := d.item()
	if err != nil {
		return nil, fmt.Errorf("dynamodb: decode item: %w", err)
	}
	if m == nil {
		return nil, errors.New("dynamodb: decode item: null")
	}
	return m, nil
}

// decoder reads attribute values off syntactically valid JSON, without
// the intermediate values encoding/json would make of them: the answers'
// items are most of what the store reads.
type decoder struct {
	b []byte
	i int
}

var errNoType = errors.New("an attribute value has no type")

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte that is not space, 0 at the end.
func (d *decoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) expect(c byte) error {
	if got := d.peek(); got != c {
		return fmt.Errorf("expected %q at offset %d, found %q", c, d.i, got)
	}
	d.i++
	return nil
}

// null reads a null if one is next.
func (d *decoder) null() bool {
	if d.peek() == 'n' && len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// members calls fn for each member of an object, d at its value.
func (d *decoder) members(fn func(key string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return fmt.Errorf("expected ',' or '}' at offset %d", d.i)
		}
	}
}

// answer reads an answer's object, calling fn with d at each member's
// value; an answer that is null is empty.
func (d *decoder) answer(fn func(key string) error) error {
	if d.null() {
		return nil
	}
	return d.members(fn)
}

// skip reads past the value at d (the text is valid JSON).
func (d *decoder) skip() {
	d.space()
	for depth := 0; d.i < len(d.b); {
		switch d.b[d.i] {
		case '"':
			for d.i++; d.b[d.i] != '"'; d.i++ {
				if d.b[d.i] == '\\' {
					d.i++
				}
			}
			d.i++
		case '{', '[':
			depth++
			d.i++
			continue
		case '}', ']':
			if depth == 0 {
				return // the end of a number or literal
			}
			depth--
			d.i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
			d.i++
			continue
		default: // a byte of a number or literal
			d.i++
			continue
		}
		if depth == 0 {
			return // a string, or the end of an object or array
		}
	}
}

// decode has encoding/json read the value at d into v.
func (d *decoder) decode(v any) error {
	d.space()
	start := d.i
	d.skip()
	return json.Unmarshal(d.b[start:d.i], v)
}

// elements calls fn for each element of an array, d at it.
func (d *decoder) elements(fn func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return fmt.Errorf("expected ',' or ']' at offset %d", d.i)
		}
	}
}

// str reads a string: the bytes themselves when nothing in it needs
// decoding, else as encoding/json decodes it (jsonread.Unquote: the text
// is valid).
func (d *decoder) str() (string, error) {
	if err := d.expect('"'); err != nil {
		return "", err
	}
	start, plain := d.i, true
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			d.i++
			if plain {
				return string(d.b[start : d.i-1]), nil
			}
			return jsonread.Unquote(d.b[start : d.i-1]), nil
		case c == '\\':
			plain = false
			d.i++ // the escaped byte, maybe a quote
		case c >= 0x80:
			plain = false // encoding/json replaces invalid UTF-8
		}
	}
	return "", errors.New("unterminated string")
}

func (d *decoder) strs() ([]string, error) {
	ss := []string{}
	err := d.elements(func() error {
		s, err := d.str()
		ss = append(ss, s)
		return err
	})
	return ss, err
}

func (d *decoder) bytes() ([]byte, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("binary value: %w", err)
	}
	return b, nil
}

func (d *decoder) boolean() (bool, error) {
	switch d.peek() {
	case 't':
		if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true" {
			d.i += 4
			return true, nil
		}
	case 'f':
		if len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false" {
			d.i += 5
			return false, nil
		}
	}
	return false, fmt.Errorf("expected a boolean at offset %d", d.i)
}

// item reads an item: nil for null.
func (d *decoder) item() (map[string]AttributeValue, error) {
	if d.null() {
		return nil, nil
	}
	return d.attributes("attribute")
}

// attributes reads an object of attribute values (an item, or a map
// value's members: what, for errors).
func (d *decoder) attributes(what string) (map[string]AttributeValue, error) {
	m := map[string]AttributeValue{}
	err := d.members(func(key string) error {
		v, err := d.value()
		if err != nil {
			return fmt.Errorf("%w (%s %q)", err, what, key)
		}
		m[key] = v
		return nil
	})
	return m, err
}

// value reads an attribute value: an object of exactly one member, its
// type.
func (d *decoder) value() (AttributeValue, error) {
	var v AttributeValue
	err := d.members(func(typ string) error {
		if v != nil {
			return errors.New("an attribute value has more than one type")
		}
		var err error
		v, err = d.typed(typ)
		return err
	})
	if err == nil && v == nil {
		err = errNoType
	}
	return v, err
}

func (d *decoder) typed(typ string) (AttributeValue, error) {
	if d.null() {
		return nil, fmt.Errorf("an attribute value of type %s is null", typ)
	}
	switch typ {
	case "S":
		s, err := d.str()
		return &AttributeValueMemberS{Value: s}, err
	case "N":
		s, err := d.str()
		return &AttributeValueMemberN{Value: s}, err
	case "B":
		b, err := d.bytes()
		return &AttributeValueMemberB{Value: b}, err
	case "SS":
		ss, err := d.strs()
		return &AttributeValueMemberSS{Value: ss}, err
	case "NS":
		ss, err := d.strs()
		return &AttributeValueMemberNS{Value: ss}, err
	case "BS":
		bs := [][]byte{}
		err := d.elements(func() error {
			b, err := d.bytes()
			bs = append(bs, b)
			return err
		})
		return &AttributeValueMemberBS{Value: bs}, err
	case "L":
		l := []AttributeValue{}
		err := d.elements(func() error {
			v, err := d.value()
			l = append(l, v)
			return err
		})
		return &AttributeValueMemberL{Value: l}, err
	case "M":
		m, err := d.attributes("map attribute")
		return &AttributeValueMemberM{Value: m}, err
	case "NULL":
		b, err := d.boolean()
		if err == nil && !b {
			err = errors.New(`an attribute value is {"NULL":false}`)
		}
		return &AttributeValueMemberNULL{Value: true}, err
	case "BOOL":
		b, err := d.boolean()
		return &AttributeValueMemberBOOL{Value: b}, err
	}
	return nil, fmt.Errorf("an attribute value has the unknown type %q", typ)
}
