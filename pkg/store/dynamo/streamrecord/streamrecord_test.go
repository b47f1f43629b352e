package streamrecord

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

type sav = streamtypes.AttributeValue

// Every type of the Streams API's values converts to the store's.
func TestValue(t *testing.T) {
	in := &streamtypes.AttributeValueMemberM{Value: map[string]sav{
		"s": &streamtypes.AttributeValueMemberS{Value: "x"}, "n": &streamtypes.AttributeValueMemberN{Value: "1.50"},
		"b": &streamtypes.AttributeValueMemberB{Value: []byte{1}}, "bool": &streamtypes.AttributeValueMemberBOOL{Value: true},
		"null": &streamtypes.AttributeValueMemberNULL{Value: true}, "ss": &streamtypes.AttributeValueMemberSS{Value: []string{"a"}},
		"ns": &streamtypes.AttributeValueMemberNS{Value: []string{"2"}}, "bs": &streamtypes.AttributeValueMemberBS{Value: [][]byte{{2}}},
		"l": &streamtypes.AttributeValueMemberL{Value: []sav{&streamtypes.AttributeValueMemberS{Value: "y"}}},
	}}
	got, err := value(in)
	require.NoError(t, err)
	assert.Equal(t, &dynamodb.AttributeValueMemberM{Value: map[string]dynamodb.AttributeValue{
		"s": &dynamodb.AttributeValueMemberS{Value: "x"}, "n": &dynamodb.AttributeValueMemberN{Value: "1.50"},
		"b": &dynamodb.AttributeValueMemberB{Value: []byte{1}}, "bool": &dynamodb.AttributeValueMemberBOOL{Value: true},
		"null": &dynamodb.AttributeValueMemberNULL{Value: true}, "ss": &dynamodb.AttributeValueMemberSS{Value: []string{"a"}},
		"ns": &dynamodb.AttributeValueMemberNS{Value: []string{"2"}}, "bs": &dynamodb.AttributeValueMemberBS{Value: [][]byte{{2}}},
		"l": &dynamodb.AttributeValueMemberL{Value: []dynamodb.AttributeValue{&dynamodb.AttributeValueMemberS{Value: "y"}}},
	}}, got)
	_, err = value(&streamtypes.UnknownUnionMember{Tag: "X"})
	assert.ErrorContains(t, err, "unknown attribute value")
}

// A task's update read off the stream is the change webhooks are told of;
// a record of another item, or a removal, is none.
func TestChangeOf(t *testing.T) {
	image := func(state string, version string) map[string]sav {
		return map[string]sav{
			"PK": &streamtypes.AttributeValueMemberS{Value: "T#t1"}, "SK": &streamtypes.AttributeValueMemberS{Value: "H"},
			"contextId": &streamtypes.AttributeValueMemberS{Value: "c1"}, "state": &streamtypes.AttributeValueMemberS{Value: state},
			"status":  &streamtypes.AttributeValueMemberS{Value: `{"state":"` + state + `","timestamp":"2026-11-27T05:00:00Z"}`},
			"version": &streamtypes.AttributeValueMemberN{Value: version}, "createdAt": &streamtypes.AttributeValueMemberN{Value: "1"},
			"pushConfigs": &streamtypes.AttributeValueMemberSS{Value: []string{"p1"}},
		}
	}
	keys := map[string]sav{"PK": &streamtypes.AttributeValueMemberS{Value: "T#t1"}, "SK": &streamtypes.AttributeValueMemberS{Value: "H"}}
	r := streamtypes.Record{EventID: aws.String("e1"), EventName: streamtypes.OperationTypeModify, Dynamodb: &streamtypes.StreamRecord{
		Keys: keys, OldImage: image("submitted", "1"), NewImage: image("working", "2")}}
	c, err := ChangeOf(r)
	require.NoError(t, err)
	require.NotNil(t, c)
	assert.Equal(t, "t1", c.Task.ID)
	assert.Equal(t, a2a.TaskStateWorking, c.Task.Status.State)
	assert.Equal(t, int64(2), c.Version)
	assert.Equal(t, []string{"p1"}, c.PushConfigIDs)

	r.EventName = streamtypes.OperationTypeRemove
	c, err = ChangeOf(r)
	assert.NoError(t, err)
	assert.Nil(t, c, "a removal")

	r.EventName = streamtypes.OperationTypeModify
	r.Dynamodb.Keys = map[string]sav{"PK": &streamtypes.AttributeValueMemberS{Value: "T#t1"}, "SK": &streamtypes.AttributeValueMemberS{Value: "A#x"}}
	c, err = ChangeOf(r)
	assert.NoError(t, err)
	assert.Nil(t, c, "an artifact item")
}
