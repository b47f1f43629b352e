package dynamodb

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The codec between Go values and attribute values. A struct's exported
// fields are its attributes, named by their tag `dynamodbav:"name"` (the
// field's name without one; "-" leaves the field out), with the options
// omitempty (a zero value is left out) and stringset ([]string as a string
// set, SS, rather than a list of strings). The fields of an embedded
// struct without a tag are the struct's own. Strings are S, integers and
// floats N, bools BOOL, []byte B, other slices and arrays L, maps with
// string keys and structs M, AttributeValues themselves; a nil pointer,
// slice or map is NULL. Decoding leaves out attributes without a field,
// and sets a field to its zero value from NULL.

// MarshalMap encodes a struct (or a map with string keys) as an item.
func MarshalMap(v any) (map[string]AttributeValue, error) {
	av, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	m, ok := av.(*AttributeValueMemberM)
	if !ok {
		return nil, fmt.Errorf("dynamodb: %T does not encode as an item (a map)", v)
	}
	return m.Value, nil
}

// Marshal encodes v as an attribute value.
func Marshal(v any) (AttributeValue, error) {
	if av, ok := v.(AttributeValue); ok {
		return av, nil
	}
	return encode(reflect.ValueOf(v), fieldOptions{})
}

// UnmarshalMap decodes an item into the struct (or map) out points to.
func UnmarshalMap(m map[string]AttributeValue, out any) error {
	return Unmarshal(&AttributeValueMemberM{Value: m}, out)
}

// Unmarshal decodes an attribute value into what out points to.
func Unmarshal(av AttributeValue, out any) error {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("dynamodb: decode into %T: not a non-nil pointer", out)
	}
	return decode(av, rv.Elem())
}

type fieldOptions struct {
	omitEmpty, stringSet bool
}

type field struct {
	name  string
	index []int
	fieldOptions
}

// fieldCache holds the fields of the struct types met, by type.
var fieldCache sync.Map

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("dynamodbav")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && !tagged && sf.Type.Kind() == reflect.Struct {
			for _, f := range fieldsOf(sf.Type) {
				f.index = append([]int{i}, f.index...)
				fields = append(fields, f)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		f := field{name: name, index: []int{i}}
		if f.name == "" {
			f.name = sf.Name
		}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "stringset":
				f.stringSet = true
			}
		}
		fields = append(fields, f)
	}
	fieldCache.Store(t, fields)
	return fields
}

var attributeValueType = reflect.TypeFor[AttributeValue]()

// encode returns v's attribute value; nil for a value omitempty leaves
// out.
func encode(v reflect.Value, o fieldOptions) (AttributeValue, error) {
	if !v.IsValid() {
		return &AttributeValueMemberNULL{Value: true}, nil
	}
	if o.omitEmpty && v.IsZero() {
		return nil, nil
	}
	if v.Type().Implements(attributeValueType) {
		if v.IsNil() {
			return &AttributeValueMemberNULL{Value: true}, nil
		}
		return v.Interface().(AttributeValue), nil
	}
	switch v.Kind() {
	case reflect.String:
		return &AttributeValueMemberS{Value: v.String()}, nil
	case reflect.Bool:
		return &AttributeValueMemberBOOL{Value: v.Bool()}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &AttributeValueMemberN{Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &AttributeValueMemberN{Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		return &AttributeValueMemberN{Value: strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())}, nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return &AttributeValueMemberNULL{Value: true}, nil
		}
		return encode(v.Elem(), fieldOptions{})
	case reflect.Slice:
		if v.IsNil() {
			return &AttributeValueMemberNULL{Value: true}, nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return &AttributeValueMemberB{Value: v.Bytes()}, nil
		}
		if o.stringSet && v.Type().Elem().Kind() == reflect.String {
			if v.Len() == 0 {
				return &AttributeValueMemberNULL{Value: true}, nil // DynamoDB has no empty set
			}
			ss := make([]string, v.Len())
			for i := range ss {
				ss[i] = v.Index(i).String()
			}
			return &AttributeValueMemberSS{Value: ss}, nil
		}
		return encodeList(v)
	case reflect.Array:
		return encodeList(v)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("dynamodb: cannot encode %s: map keys must be strings", v.Type())
		}
		if v.IsNil() {
			return &AttributeValueMemberNULL{Value: true}, nil
		}
		m := make(map[string]AttributeValue, v.Len())
		for it := v.MapRange(); it.Next(); {
			av, err := encode(it.Value(), fieldOptions{})
			if err != nil {
				return nil, err
			}
			m[it.Key().String()] = av
		}
		return &AttributeValueMemberM{Value: m}, nil
	case reflect.Struct:
		fields := fieldsOf(v.Type())
		m := make(map[string]AttributeValue, len(fields))
		for _, f := range fields {
			av, err := encode(v.FieldByIndex(f.index), f.fieldOptions)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			if av != nil {
				m[f.name] = av
			}
		}
		return &AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("dynamodb: cannot encode a %s", v.Type())
}

func encodeList(v reflect.Value) (AttributeValue, error) {
	l := make([]AttributeValue, v.Len())
	for i := range l {
		av, err := encode(v.Index(i), fieldOptions{})
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		l[i] = av
	}
	return &AttributeValueMemberL{Value: l}, nil
}

var errNil = errors.New("dynamodb: decode a nil attribute value")

// decode sets v from av.
func decode(av AttributeValue, v reflect.Value) error {
	if av == nil {
		return errNil
	}
	if _, null := av.(*AttributeValueMemberNULL); null {
		v.SetZero()
		return nil
	}
	if v.Type() == attributeValueType {
		v.Set(reflect.ValueOf(av))
		return nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decode(av, v.Elem())
	}
	mismatch := func() error {
		return fmt.Errorf("dynamodb: cannot decode %s into a %s", typeName(av), v.Type())
	}
	switch a := av.(type) {
	case *AttributeValueMemberS:
		if v.Kind() != reflect.String {
			return mismatch()
		}
		v.SetString(a.Value)
	case *AttributeValueMemberBOOL:
		if v.Kind() != reflect.Bool {
			return mismatch()
		}
		v.SetBool(a.Value)
	case *AttributeValueMemberN:
		return decodeNumber(a.Value, v, mismatch)
	case *AttributeValueMemberB:
		if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Uint8 {
			return mismatch()
		}
		v.SetBytes(a.Value)
	case *AttributeValueMemberSS:
		return decodeSet(len(a.Value), v, mismatch, func(i int) AttributeValue { return &AttributeValueMemberS{Value: a.Value[i]} })
	case *AttributeValueMemberNS:
		return decodeSet(len(a.Value), v, mismatch, func(i int) AttributeValue { return &AttributeValueMemberN{Value: a.Value[i]} })
	case *AttributeValueMemberBS:
		return decodeSet(len(a.Value), v, mismatch, func(i int) AttributeValue { return &AttributeValueMemberB{Value: a.Value[i]} })
	case *AttributeValueMemberL:
		return decodeSet(len(a.Value), v, mismatch, func(i int) AttributeValue { return a.Value[i] })
	case *AttributeValueMemberM:
		return decodeMap(a.Value, v, mismatch)
	default:
		return mismatch()
	}
	return nil
}

func decodeNumber(n string, v reflect.Value, mismatch func() error) error {
	var err error
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var i int64
		if i, err = strconv.ParseInt(n, 10, v.Type().Bits()); err == nil {
			v.SetInt(i)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var u uint64
		if u, err = strconv.ParseUint(n, 10, v.Type().Bits()); err == nil {
			v.SetUint(u)
		}
	case reflect.Float32, reflect.Float64:
		var f float64
		if f, err = strconv.ParseFloat(n, v.Type().Bits()); err == nil {
			v.SetFloat(f)
		}
	default:
		return mismatch()
	}
	if err != nil {
		return fmt.Errorf("dynamodb: decode number %q into a %s: %w", n, v.Type(), err)
	}
	return nil
}

// decodeSet decodes a set or a list of n elements into a slice or an
// array.
func decodeSet(n int, v reflect.Value, mismatch func() error, elem func(int) AttributeValue) error {
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return mismatch()
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
	case reflect.Array:
		if v.Len() < n {
			return fmt.Errorf("dynamodb: decode %d elements into a %s", n, v.Type())
		}
		v.SetZero()
	default:
		return mismatch()
	}
	for i := range n {
		if err := decode(elem(i), v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

func decodeMap(m map[string]AttributeValue, v reflect.Value, mismatch func() error) error {
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			av, ok := m[f.name]
			if !ok {
				continue
			}
			if err := decode(av, fieldByIndex(v, f.index)); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		return nil
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return mismatch()
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(m)))
		}
		for k, av := range m {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decode(av, e); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		return nil
	}
	return mismatch()
}

// fieldByIndex is v.FieldByIndex, allocating nil embedded pointers on the
// way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// typeName is av's DynamoDB type, for errors.
func typeName(av AttributeValue) string {
	switch av.(type) {
	case *AttributeValueMemberS:
		return "a string (S)"
	case *AttributeValueMemberN:
		return "a number (N)"
	case *AttributeValueMemberB:
		return "a binary (B)"
	case *AttributeValueMemberSS:
		return "a string set (SS)"
	case *AttributeValueMemberNS:
		return "a number set (NS)"
	case *AttributeValueMemberBS:
		return "a binary set (BS)"
	case *AttributeValueMemberL:
		return "a list (L)"
	case *AttributeValueMemberM:
		return "a map (M)"
	case *AttributeValueMemberBOOL:
		return "a boolean (BOOL)"
	}
	return fmt.Sprintf("%T", av)
}
