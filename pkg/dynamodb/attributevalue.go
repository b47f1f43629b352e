package dynamodb

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
		return append(appendString(append(b, `{"S":`...), v.Value), '}'), nil
	case *AttributeValueMemberN:
		return append(appendString(append(b, `{"N":`...), v.Value), '}'), nil
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
		b = append(appendString(b, k), ':')
		var err error
		if b, err = AppendValue(b, v); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
	}
	return append(b, '}'), nil
}

func appendString(b []byte, s string) []byte {
	// strconv's quoting is not JSON's; encoding/json's is, without
	// allocating for the common case of a string with nothing to escape.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
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

// wireValue is an attribute value as DynamoDB JSON has it, to decode: the
// one member that is set says its type.
type wireValue struct {
	S    *string
	N    *string
	B    []byte
	SS   []string
	NS   []string
	BS   [][]byte
	L    []wireValue
	M    map[string]wireValue
	NULL *bool
	BOOL *bool
}

var errNoType = errors.New("dynamodb: an attribute value has no type")

// value is the attribute value w holds; an error unless exactly one member
// is set.
func (w *wireValue) value() (AttributeValue, error) {
	var v AttributeValue
	n := 0
	set := func(av AttributeValue) { v = av; n++ }
	if w.S != nil {
		set(&AttributeValueMemberS{Value: *w.S})
	}
	if w.N != nil {
		set(&AttributeValueMemberN{Value: *w.N})
	}
	if w.B != nil {
		set(&AttributeValueMemberB{Value: w.B})
	}
	if w.SS != nil {
		set(&AttributeValueMemberSS{Value: w.SS})
	}
	if w.NS != nil {
		set(&AttributeValueMemberNS{Value: w.NS})
	}
	if w.BS != nil {
		set(&AttributeValueMemberBS{Value: w.BS})
	}
	if w.L != nil {
		l := make([]AttributeValue, len(w.L))
		for i := range w.L {
			e, err := w.L[i].value()
			if err != nil {
				return nil, err
			}
			l[i] = e
		}
		set(&AttributeValueMemberL{Value: l})
	}
	if w.M != nil {
		m, err := wireItem(w.M).item()
		if err != nil {
			return nil, err
		}
		set(&AttributeValueMemberM{Value: m})
	}
	if w.NULL != nil {
		if !*w.NULL {
			return nil, errors.New(`dynamodb: an attribute value is {"NULL":false}`)
		}
		set(&AttributeValueMemberNULL{Value: true})
	}
	if w.BOOL != nil {
		set(&AttributeValueMemberBOOL{Value: *w.BOOL})
	}
	switch {
	case n == 0:
		return nil, errNoType
	case n > 1:
		return nil, errors.New("dynamodb: an attribute value has more than one type")
	}
	return v, nil
}

// wireItem is an item (or a key) as DynamoDB JSON has it.
type wireItem map[string]wireValue

// item converts w; nil for nil.
func (w wireItem) item() (map[string]AttributeValue, error) {
	if w == nil {
		return nil, nil
	}
	m := make(map[string]AttributeValue, len(w))
	for k, wv := range w {
		v, err := wv.value()
		if err != nil {
			return nil, fmt.Errorf("%w (attribute %q)", err, k)
		}
		m[k] = v
	}
	return m, nil
}

func wireItems(ws []wireItem) ([]map[string]AttributeValue, error) {
	if ws == nil {
		return nil, nil
	}
	out := make([]map[string]AttributeValue, len(ws))
	for i, w := range ws {
		m, err := w.item()
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// DecodeItem decodes an item written in DynamoDB JSON ({"name":{"S":"..."},...}).
func DecodeItem(data []byte) (map[string]AttributeValue, error) {
	var w wireItem
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("dynamodb: decode item: %w", err)
	}
	if d.More() {
		return nil, errors.New("dynamodb: decode item: data after the item")
	}
	if w == nil {
		return nil, errors.New("dynamodb: decode item: null")
	}
	return w.item()
}
