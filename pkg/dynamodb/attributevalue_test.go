package dynamodb_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

type av = dynamodb.AttributeValue

func s(v string) av { return &dynamodb.AttributeValueMemberS{Value: v} }
func n(v string) av { return &dynamodb.AttributeValueMemberN{Value: v} }

// Every type encodes in DynamoDB JSON and decodes back as it was: numbers
// as the strings they are (no float rounding), empty strings, binaries,
// lists and maps kept, values nested.
func TestValuesRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		v    av
		wire string
	}{
		{"string", s(`a "quoted" \ line` + "\n"), `{"S":"a \"quoted\" \\ line\n"}`},
		{"unicode string", s("é😀"), `{"S":"é😀"}`},
		{"empty string", s(""), `{"S":""}`},
		{"integer", n("1774000000000000000"), `{"N":"1774000000000000000"}`},
		{"38 digits", n("12345678901234567890123456789012345678"), `{"N":"12345678901234567890123456789012345678"}`},
		{"decimal", n("-0.000000000000000000000000000000000001"), `{"N":"-0.000000000000000000000000000000000001"}`},
		{"exponent", n("1E+2"), `{"N":"1E+2"}`},
		{"binary", &dynamodb.AttributeValueMemberB{Value: []byte{0, 1, 0xff}}, `{"B":"AAH/"}`},
		{"empty binary", &dynamodb.AttributeValueMemberB{Value: []byte{}}, `{"B":""}`},
		{"string set", &dynamodb.AttributeValueMemberSS{Value: []string{"a", "b"}}, `{"SS":["a","b"]}`},
		{"number set", &dynamodb.AttributeValueMemberNS{Value: []string{"1", "2.50"}}, `{"NS":["1","2.50"]}`},
		{"binary set", &dynamodb.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}, `{"BS":["AQ==","AgM="]}`},
		{"list", &dynamodb.AttributeValueMemberL{Value: []av{s("a"), n("1")}}, `{"L":[{"S":"a"},{"N":"1"}]}`},
		{"empty list", &dynamodb.AttributeValueMemberL{Value: []av{}}, `{"L":[]}`},
		{"map", &dynamodb.AttributeValueMemberM{Value: map[string]av{"k": s("v")}}, `{"M":{"k":{"S":"v"}}}`},
		{"empty map", &dynamodb.AttributeValueMemberM{Value: map[string]av{}}, `{"M":{}}`},
		{"null", &dynamodb.AttributeValueMemberNULL{Value: true}, `{"NULL":true}`},
		{"true", &dynamodb.AttributeValueMemberBOOL{Value: true}, `{"BOOL":true}`},
		{"false", &dynamodb.AttributeValueMemberBOOL{Value: false}, `{"BOOL":false}`},
		{"nested", &dynamodb.AttributeValueMemberM{Value: map[string]av{"l": &dynamodb.AttributeValueMemberL{Value: []av{
			&dynamodb.AttributeValueMemberM{Value: map[string]av{"n": n("7"), "ss": &dynamodb.AttributeValueMemberSS{Value: []string{"x"}}}},
			&dynamodb.AttributeValueMemberL{Value: []av{&dynamodb.AttributeValueMemberNULL{Value: true}}},
		}}}}, `{"M":{"l":{"L":[{"M":{"n":{"N":"7"},"ss":{"SS":["x"]}}},{"L":[{"NULL":true}]}]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			require.NoError(t, err)
			assert.JSONEq(t, tt.wire, string(b))
			item, err := dynamodb.DecodeItem([]byte(`{"a":` + tt.wire + `}`))
			require.NoError(t, err)
			assert.Equal(t, map[string]av{"a": tt.v}, item)
		})
	}
}

// Nil sets, lists and maps encode empty (DynamoDB refuses null there); a
// nil value is an error.
func TestNilsEncode(t *testing.T) {
	for v, want := range map[av]string{
		&dynamodb.AttributeValueMemberB{}:  `{"B":""}`,
		&dynamodb.AttributeValueMemberSS{}: `{"SS":[]}`,
		&dynamodb.AttributeValueMemberL{}:  `{"L":[]}`,
		&dynamodb.AttributeValueMemberM{}:  `{"M":{}}`,
	} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	_, err := json.Marshal(dynamodb.Item{"a": &dynamodb.AttributeValueMemberL{Value: []av{nil}}})
	assert.ErrorContains(t, err, `attribute "a": element 0`)
}

// An item off the wire that is not DynamoDB JSON is refused with what is
// wrong.
func TestDecodeItemRefusesWhatIsNotAnItem(t *testing.T) {
	tests := map[string]string{
		`{"a":{}}`:                        "has no type",
		`{"a":{"S":"x","N":"1"}}`:         "more than one type",
		`{"a":{"NULL":false}}`:            `{"NULL":false}`,
		`{"a":{"B":"not base64!"}}`:       "illegal base64",
		`{"a":{"S":1}}`:                   `expected '"' at offset 10, found '1' (attribute "a")`,
		`{"a":{"L":[{"X":"1"}]}}`:         `unknown type "X" (attribute "a")`,
		`{"a":{"M":{"b":{"N":null}}}}`:    `of type N is null (map attribute "b") (attribute "a")`,
		`null`:                            "null",
		`{"a":{"S":"x"}} {}`:              "after top-level value",
		`[]`:                              "expected '{' at offset 0",
		`{"a":{"S":"x"}`:                  "unexpected end of JSON input",
		`{"a":{"S":"x"}, "b":{"BOOL":2}}`: `expected a boolean at offset 28 (attribute "b")`,
	}
	for in, want := range tests {
		_, err := dynamodb.DecodeItem([]byte(in))
		assert.ErrorContains(t, err, want, in)
	}
}

// Decoding what was encoded gives the item back, and whatever decodes
// encodes to the same item again.
func FuzzDecodeItem(f *testing.F) {
	for _, seed := range []string{
		`{"PK":{"S":"T#1"},"SK":{"S":"H"},"version":{"N":"3"},"checkpoint":{"B":"AAH/"},"pushConfigs":{"SS":["a","b"]}}`,
		`{"l":{"L":[{"M":{"n":{"N":"-1.5E-3"}}},{"NULL":true},{"BOOL":false}]},"ns":{"NS":["1"]},"bs":{"BS":["AQ=="]}}`,
		`{"e":{"S":""},"m":{"M":{}},"l":{"L":[]}}`,
		`{}`, `null`, `{"a":{}}`, `{"a":{"S":"x","N":"1"}}`, `{"a":{"B":"%%"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		item, err := dynamodb.DecodeItem(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(dynamodb.Item(item))
		require.NoError(t, err)
		again, err := dynamodb.DecodeItem(b)
		require.NoError(t, err, string(b))
		assert.Equal(t, normalize(item), normalize(again))
	})
}

// normalize makes nil and empty byte slices equal (both encode as "").
func normalize(item map[string]av) map[string]av {
	out := make(map[string]av, len(item))
	for k, v := range item {
		out[k] = normalizeValue(v)
	}
	return out
}

func normalizeValue(v av) av {
	switch v := v.(type) {
	case *dynamodb.AttributeValueMemberB:
		return &dynamodb.AttributeValueMemberB{Value: append([]byte{}, v.Value...)}
	case *dynamodb.AttributeValueMemberBS:
		bs := make([][]byte, len(v.Value))
		for i, b := range v.Value {
			bs[i] = append([]byte{}, b...)
		}
		return &dynamodb.AttributeValueMemberBS{Value: bs}
	case *dynamodb.AttributeValueMemberL:
		l := make([]av, len(v.Value))
		for i, e := range v.Value {
			l[i] = normalizeValue(e)
		}
		return &dynamodb.AttributeValueMemberL{Value: l}
	case *dynamodb.AttributeValueMemberM:
		return &dynamodb.AttributeValueMemberM{Value: normalize(v.Value)}
	}
	return v
}
