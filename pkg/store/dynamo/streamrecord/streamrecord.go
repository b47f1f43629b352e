// Package streamrecord reads the task changes of the store's table stream
// from records of the AWS SDK's DynamoDB Streams client (the local
// server's follower, pkg/internal/follow). It lives apart from
// pkg/store/dynamo so that the Lambda functions, which get their records
// from Lambda's event source mapping (dynamo.ChangeFromStream), do not link
// the SDK's Streams packages.
package streamrecord

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

// ChangeOf is dynamo.ChangeFromStream for a record read with the Streams
// API's GetRecords.
func ChangeOf(r streamtypes.Record) (*store.TaskChange, error) {
	d := r.Dynamodb
	insert := r.EventName == streamtypes.OperationTypeInsert
	if (!insert && r.EventName != streamtypes.OperationTypeModify) || d == nil {
		return nil, nil
	}
	return dynamo.ChangeOfImages(aws.ToString(r.EventID), insert, d.Keys, d.NewImage, d.OldImage, value)
}

// item converts a map value.
func item(m map[string]streamtypes.AttributeValue) (map[string]dynamodb.AttributeValue, error) {
	out := make(map[string]dynamodb.AttributeValue, len(m))
	for k, v := range m {
		av, err := value(v)
		if err != nil {
			return nil, fmt.Errorf("streamrecord: attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

func value(v streamtypes.AttributeValue) (dynamodb.AttributeValue, error) {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return &dynamodb.AttributeValueMemberS{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberN:
		return &dynamodb.AttributeValueMemberN{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberB:
		return &dynamodb.AttributeValueMemberB{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberBOOL:
		return &dynamodb.AttributeValueMemberBOOL{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberNULL:
		return &dynamodb.AttributeValueMemberNULL{Value: true}, nil
	case *streamtypes.AttributeValueMemberSS:
		return &dynamodb.AttributeValueMemberSS{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberNS:
		return &dynamodb.AttributeValueMemberNS{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberBS:
		return &dynamodb.AttributeValueMemberBS{Value: v.Value}, nil
	case *streamtypes.AttributeValueMemberL:
		l := make([]dynamodb.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			av, err := value(e)
			if err != nil {
				return nil, err
			}
			l[i] = av
		}
		return &dynamodb.AttributeValueMemberL{Value: l}, nil
	case *streamtypes.AttributeValueMemberM:
		m, err := item(v.Value)
		if err != nil {
			return nil, err
		}
		return &dynamodb.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown attribute value %T", v)
}
