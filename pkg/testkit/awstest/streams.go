package awstest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
)

// StreamReader reads a table's stream with GetRecords and hands the records
// over as a Lambda event source mapping does: as events.DynamoDBEventRecord,
// decoded from the JSON Lambda would send.
type StreamReader struct {
	client *dynamodbstreams.Client
	arn    string
	// iterators are the next shard iterator of every shard read so far.
	iterators map[string]*string
}

// NewStreamReader returns a reader of the table's stream from its first
// record (TRIM_HORIZON).
func NewStreamReader(t testing.TB, table string) *StreamReader {
	t.Helper()
	out, err := DynamoDB(t).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("describe table %s: %v", table, err)
	}
	if out.Table.LatestStreamArn == nil {
		t.Fatalf("table %s has no stream", table)
	}
	return &StreamReader{
		client:    dynamodbstreams.NewFromConfig(Config(t)),
		arn:       aws.ToString(out.Table.LatestStreamArn),
		iterators: map[string]*string{},
	}
}

// ARN returns the stream's ARN.
func (r *StreamReader) ARN() string { return r.arn }

// Read returns the records written since the last Read, shard by shard.
func (r *StreamReader) Read(ctx context.Context) ([]events.DynamoDBEventRecord, error) {
	desc, err := r.client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(r.arn)})
	if err != nil {
		return nil, fmt.Errorf("describe stream: %w", err)
	}
	var recs []events.DynamoDBEventRecord
	for _, sh := range desc.StreamDescription.Shards {
		id := aws.ToString(sh.ShardId)
		it, known := r.iterators[id]
		if !known {
			out, err := r.client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(r.arn), ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
			})
			if err != nil {
				return nil, fmt.Errorf("shard iterator of %s: %w", id, err)
			}
			it = out.ShardIterator
		}
		for it != nil {
			out, err := r.client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
			if err != nil {
				return nil, fmt.Errorf("get records of %s: %w", id, err)
			}
			for _, rec := range out.Records {
				ev, err := LambdaStreamRecord(rec)
				if err != nil {
					return nil, err
				}
				recs = append(recs, ev)
			}
			r.iterators[id] = out.NextShardIterator
			if len(out.Records) == 0 {
				break
			}
			it = out.NextShardIterator
		}
	}
	return recs, nil
}

// LambdaStreamRecord converts a record read with GetRecords to the record a
// Lambda event source mapping delivers, through the JSON of a Lambda event.
func LambdaStreamRecord(rec streamtypes.Record) (events.DynamoDBEventRecord, error) {
	var ev events.DynamoDBEventRecord
	d := rec.Dynamodb
	if d == nil {
		return ev, fmt.Errorf("stream record %s without its change", aws.ToString(rec.EventID))
	}
	change := map[string]any{
		"Keys":           imageJSON(d.Keys),
		"SequenceNumber": aws.ToString(d.SequenceNumber),
		"SizeBytes":      aws.ToInt64(d.SizeBytes),
		"StreamViewType": string(d.StreamViewType),
	}
	if d.NewImage != nil {
		change["NewImage"] = imageJSON(d.NewImage)
	}
	if d.OldImage != nil {
		change["OldImage"] = imageJSON(d.OldImage)
	}
	if d.ApproximateCreationDateTime != nil {
		change["ApproximateCreationDateTime"] = d.ApproximateCreationDateTime.Unix()
	}
	b, err := json.Marshal(map[string]any{
		"eventID":      aws.ToString(rec.EventID),
		"eventName":    string(rec.EventName),
		"eventSource":  aws.ToString(rec.EventSource),
		"eventVersion": aws.ToString(rec.EventVersion),
		"awsRegion":    aws.ToString(rec.AwsRegion),
		"dynamodb":     change,
	})
	if err != nil {
		return ev, fmt.Errorf("encode stream record: %w", err)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("decode stream record as Lambda does: %w", err)
	}
	return ev, nil
}

func imageJSON(m map[string]streamtypes.AttributeValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = valueJSON(v)
	}
	return out
}

// valueJSON is the DynamoDB JSON of one attribute value ({"S": "..."}).
func valueJSON(v streamtypes.AttributeValue) any {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *streamtypes.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *streamtypes.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *streamtypes.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *streamtypes.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *streamtypes.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *streamtypes.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *streamtypes.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, b := range v.Value {
			bs[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": bs}
	case *streamtypes.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = valueJSON(e)
		}
		return map[string]any{"L": l}
	case *streamtypes.AttributeValueMemberM:
		return map[string]any{"M": imageJSON(v.Value)}
	}
	return map[string]any{"NULL": true}
}
