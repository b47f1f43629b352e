package dynamodb_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

type inner struct {
	At   int64  `dynamodbav:"at"`
	Code string `dynamodbav:"code,omitempty"`
}

type embedded struct {
	Shard string `dynamodbav:"shard,omitempty"`
}

type record struct {
	PK       string                  `dynamodbav:"PK"`
	Empty    string                  `dynamodbav:"empty"`
	Version  int64                   `dynamodbav:"version"`
	Count    int                     `dynamodbav:"count,omitempty"`
	Small    uint8                   `dynamodbav:"small"`
	Ratio    float64                 `dynamodbav:"ratio,omitempty"`
	Done     bool                    `dynamodbav:"done,omitempty"`
	Data     []byte                  `dynamodbav:"data,omitempty"`
	IDs      []string                `dynamodbav:"ids,stringset,omitempty"`
	Names    []string                `dynamodbav:"names,omitempty"`
	Attempts []inner                 `dynamodbav:"attempts"`
	Labels   map[string]string       `dynamodbav:"labels,omitempty"`
	Ptr      *inner                  `dynamodbav:"ptr,omitempty"`
	Raw      dynamodb.AttributeValue `dynamodbav:"raw,omitempty"`
	Skipped  string                  `dynamodbav:"-"`
	Untagged string
	hidden   string
	embedded
}

// A struct encodes by its tags (omitempty, stringset, embedded fields,
// "-") and decodes back.
func TestMarshalMapRoundTrip(t *testing.T) {
	in := record{
		PK: "T#1", Version: 3, Count: 2, Small: 255, Ratio: 0.5, Done: true, Data: []byte{1, 2},
		IDs: []string{"a", "b"}, Names: []string{"x"}, Attempts: []inner{{At: 10, Code: "e"}, {At: 11}},
		Labels: map[string]string{"k": "v"}, Ptr: &inner{At: 1}, Raw: &dynamodb.AttributeValueMemberNS{Value: []string{"1.50"}},
		Skipped: "no", Untagged: "u", hidden: "h", embedded: embedded{Shard: "L#3"},
	}
	m, err := dynamodb.MarshalMap(in)
	require.NoError(t, err)
	assert.Equal(t, map[string]av{
		"PK": s("T#1"), "empty": s(""), "version": n("3"), "count": n("2"), "small": n("255"), "ratio": n("0.5"),
		"done": &dynamodb.AttributeValueMemberBOOL{Value: true}, "data": &dynamodb.AttributeValueMemberB{Value: []byte{1, 2}},
		"ids":      &dynamodb.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"names":    &dynamodb.AttributeValueMemberL{Value: []av{s("x")}},
		"attempts": &dynamodb.AttributeValueMemberL{Value: []av{&dynamodb.AttributeValueMemberM{Value: map[string]av{"at": n("10"), "code": s("e")}}, &dynamodb.AttributeValueMemberM{Value: map[string]av{"at": n("11")}}}},
		"labels":   &dynamodb.AttributeValueMemberM{Value: map[string]av{"k": s("v")}},
		"ptr":      &dynamodb.AttributeValueMemberM{Value: map[string]av{"at": n("1")}},
		"raw":      &dynamodb.AttributeValueMemberNS{Value: []string{"1.50"}},
		"Untagged": s("u"), "shard": s("L#3"),
	}, m)

	var out record
	require.NoError(t, dynamodb.UnmarshalMap(m, &out))
	in.Skipped, in.hidden = "", ""
	assert.Equal(t, in, out)
}

// Zero values are left out with omitempty; nil slices without it are
// NULL, which decodes to the zero value; attributes without a field are
// ignored.
func TestMarshalZeroValues(t *testing.T) {
	m, err := dynamodb.MarshalMap(record{})
	require.NoError(t, err)
	null := &dynamodb.AttributeValueMemberNULL{Value: true}
	assert.Equal(t, map[string]av{"PK": s(""), "empty": s(""), "version": n("0"), "small": n("0"), "attempts": null, "Untagged": s("")}, m)

	m["unknown"] = s("x")
	out := record{Version: 9, Attempts: []inner{{}}}
	require.NoError(t, dynamodb.UnmarshalMap(m, &out))
	assert.Equal(t, record{}, out)
}

// A value of another type than its field's is refused, saying which.
func TestUnmarshalMismatch(t *testing.T) {
	tests := []struct {
		item map[string]av
		want string
	}{
		{map[string]av{"version": s("3")}, "version: dynamodb: cannot decode a string (S) into a int64"},
		{map[string]av{"version": n("3.5")}, `decode number "3.5" into a int64`},
		{map[string]av{"small": n("256")}, `decode number "256" into a uint8`},
		{map[string]av{"PK": n("1")}, "cannot decode a number (N) into a string"},
		{map[string]av{"data": s("x")}, "cannot decode a string (S) into a []uint8"},
		{map[string]av{"names": &dynamodb.AttributeValueMemberB{Value: []byte("x")}}, "cannot decode a binary (B) into a []string"},
		{map[string]av{"attempts": &dynamodb.AttributeValueMemberL{Value: []av{s("x")}}}, "attempts: dynamodb: cannot decode a string (S) into a dynamodb_test.inner"},
	}
	for _, tt := range tests {
		var out record
		assert.ErrorContains(t, dynamodb.UnmarshalMap(tt.item, &out), tt.want)
	}
	assert.ErrorContains(t, dynamodb.UnmarshalMap(map[string]av{}, record{}), "not a non-nil pointer")
	_, err := dynamodb.MarshalMap("a string")
	assert.ErrorContains(t, err, "does not encode as an item")
	_, err = dynamodb.Marshal(map[int]string{1: "a"})
	assert.ErrorContains(t, err, "map keys must be strings")
}

// Decoding a task-sized item allocates a bounded number of times.
func BenchmarkUnmarshalMap(b *testing.B) {
	m, err := dynamodb.MarshalMap(record{PK: "T#1", Version: 3, Data: []byte{1}, IDs: []string{"a"}, Attempts: []inner{{At: 1}}, Labels: map[string]string{"k": "v"}})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		var out record
		if err := dynamodb.UnmarshalMap(m, &out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalMap(b *testing.B) {
	in := record{PK: "T#1", Version: 3, Data: []byte{1}, IDs: []string{"a"}, Attempts: []inner{{At: 1}}, Labels: map[string]string{"k": "v"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dynamodb.MarshalMap(in); err != nil {
			b.Fatal(err)
		}
	}
}
