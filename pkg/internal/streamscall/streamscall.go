// Package streamscall calls the three DynamoDB Streams operations the local
// server's follower of a task table's stream (pkg/internal/follow) makes
// (DescribeStream, GetShardIterator, GetRecords) over plain HTTP, signed
// with the SDK's Signature Version 4 signer (pkg/internal/awscall), in the
// AWS JSON 1.0 protocol the API speaks. It stands in for the SDK's
// DynamoDB Streams client, whose packages Go initialized at every start of
// the local server (its schemas, endpoints and types took about 0.18 ms,
// GODEBUG=inittrace=1). A test compares its requests with the SDK client's.
//
// GetRecords hands its records over as Lambda's event source mapping does,
// as events.DynamoDBEventRecord: the API's Record and the event's record
// have the same members, by the same names, so that the records of both
// go through dynamo.ChangeFromStream.
//
// The requests go to the client's endpoint (AWS_ENDPOINT_URL, else the
// region's streams.dynamodb endpoint); they are signed for "dynamodb".
package streamscall

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// Options configure a Client (see awscall.Options).
type Options = awscall.Options

// Client is a DynamoDB Streams client of the follower's three operations.
// It is safe for concurrent use.
type Client struct {
	api *awscall.Client
}

// service is DynamoDB Streams' API: its endpoints are streams.dynamodb.*,
// its requests are signed as DynamoDB's; "DynamoDB Streams" is the SDK's
// service id.
var service = awscall.Service{SigningName: "dynamodb", EndpointPrefix: "streams.dynamodb", ID: "DynamoDB Streams"}

// New returns a client with cfg's region, credentials and endpoint.
func New(cfg aws.Config, o Options) (*Client, error) {
	api, err := awscall.New(cfg, service, o)
	if err != nil {
		return nil, err
	}
	return &Client{api: api}, nil
}

// Codes of DynamoDB Streams' refusals that the follower tells apart.
const (
	// ExpiredIterator: the shard iterator is older than 15 minutes; get
	// another one.
	ExpiredIterator = "ExpiredIteratorException"
	// TrimmedDataAccess: the records the iterator (or the sequence number
	// asked for) points at are older than the stream keeps (24 hours).
	TrimmedDataAccess = "TrimmedDataAccessException"
	// ResourceNotFound: no such stream or shard (any more).
	ResourceNotFound = "ResourceNotFoundException"
)

// Stream is one page of a stream's description.
type Stream struct {
	// Status is ENABLING, ENABLED, DISABLING or DISABLED.
	Status string `json:"StreamStatus"`
	// ViewType is what its records hold of an item (NEW_AND_OLD_IMAGES...).
	ViewType string  `json:"StreamViewType"`
	Shards   []Shard `json:"Shards"`
	// LastEvaluatedShardID is the shard to list more after, "" when this
	// page is the last.
	LastEvaluatedShardID string `json:"LastEvaluatedShardId"`
}

// Shard is a shard of a stream. A shard is closed (it gets no more
// records) once it has an ending sequence number; its child, if any, names
// it as its parent.
type Shard struct {
	ID                  string `json:"ShardId"`
	ParentID            string `json:"ParentShardId"`
	SequenceNumberRange struct {
		Starting string `json:"StartingSequenceNumber"`
		Ending   string `json:"EndingSequenceNumber"`
	} `json:"SequenceNumberRange"`
}

// DescribeStream returns the page of the description of the stream
// streamARN whose shards come after the shard exclusiveStartShardID ("":
// the first page).
func (c *Client) DescribeStream(ctx context.Context, streamARN, exclusiveStartShardID string) (Stream, error) {
	in := struct {
		StreamArn             string `json:"StreamArn"`
		ExclusiveStartShardID string `json:"ExclusiveStartShardId,omitempty"`
	}{streamARN, exclusiveStartShardID}
	var out struct {
		StreamDescription Stream `json:"StreamDescription"`
	}
	if err := c.call(ctx, "DescribeStream", in, &out); err != nil {
		return Stream{}, err
	}
	return out.StreamDescription, nil
}

// IteratorType says where in a shard an iterator starts.
type IteratorType string

// Where an iterator starts: at the shard's oldest record it keeps, after
// its newest one, or at or after a record's sequence number.
const (
	TrimHorizon         IteratorType = "TRIM_HORIZON"
	Latest              IteratorType = "LATEST"
	AtSequenceNumber    IteratorType = "AT_SEQUENCE_NUMBER"
	AfterSequenceNumber IteratorType = "AFTER_SEQUENCE_NUMBER"
)

// GetShardIterator returns an iterator of the shard shardID of the stream
// streamARN, starting from, at or after sequenceNumber for the types that
// take one ("" for the others). It is valid for 15 minutes.
func (c *Client) GetShardIterator(ctx context.Context, streamARN, shardID string, from IteratorType, sequenceNumber string) (string, error) {
	in := struct {
		StreamArn         string       `json:"StreamArn"`
		ShardID           string       `json:"ShardId"`
		ShardIteratorType IteratorType `json:"ShardIteratorType"`
		SequenceNumber    string       `json:"SequenceNumber,omitempty"`
	}{streamARN, shardID, from, sequenceNumber}
	var out struct {
		ShardIterator string `json:"ShardIterator"`
	}
	if err := c.call(ctx, "GetShardIterator", in, &out); err != nil {
		return "", err
	}
	return out.ShardIterator, nil
}

// Records is GetRecords' answer.
type Records struct {
	// Records are the shard's records from the iterator on, in order.
	Records []events.DynamoDBEventRecord
	// Undecoded are the records that are not records of DynamoDB's data
	// types (a type newer than this client), with why: skipping them is
	// the caller's choice, the others are read all the same.
	Undecoded []Undecoded
	// NextShardIterator reads on after these records; "" once the shard is
	// closed and read to its end.
	NextShardIterator string
}

// Undecoded is a record of GetRecords' answer that did not decode.
type Undecoded struct {
	EventID, SequenceNumber string
	Err                     error
}

// GetRecords returns the records of a shard from iterator on: at most 1,000
// records or 1 MB, none when the shard has none there yet.
func (c *Client) GetRecords(ctx context.Context, iterator string) (Records, error) {
	in := struct {
		ShardIterator string `json:"ShardIterator"`
	}{iterator}
	var out Records
	err := c.call(ctx, "GetRecords", in, &out)
	return out, err
}

// UnmarshalJSON decodes GetRecords' answer record by record, so that a
// record that does not decode neither hides the others nor the iterator
// past them.
func (r *Records) UnmarshalJSON(b []byte) error {
	var answer struct {
		Records           []json.RawMessage `json:"Records"`
		NextShardIterator *string           `json:"NextShardIterator"`
	}
	if err := json.Unmarshal(b, &answer); err != nil {
		return err
	}
	*r = Records{NextShardIterator: aws.ToString(answer.NextShardIterator), Records: make([]events.DynamoDBEventRecord, 0, len(answer.Records))}
	for _, raw := range answer.Records {
		var rec events.DynamoDBEventRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			// Its names, as far as they go.
			var id struct {
				EventID  string `json:"eventID"`
				Dynamodb struct {
					SequenceNumber string `json:"SequenceNumber"`
				} `json:"dynamodb"`
			}
			_ = json.Unmarshal(raw, &id)
			r.Undecoded = append(r.Undecoded, Undecoded{EventID: id.EventID, SequenceNumber: id.Dynamodb.SequenceNumber, Err: err})
			continue
		}
		r.Records = append(r.Records, rec)
	}
	return nil
}

// call makes one AWS JSON 1.0 call of operation with in as its body, and
// decodes the answer into out. DynamoDB Streams' refusal is an
// *awscall.Error: its Code is the error's type (see awscall.Refused), its
// StatusCode 4xx when the API blames the request rather than itself.
// Throttling (LimitExceededException) and the API's failures
// (InternalServerError) are tried again first.
func (c *Client) call(ctx context.Context, operation string, in, out any) error {
	if err := c.api.CallJSONWithin(ctx, "1.0", "DynamoDBStreams_20120810."+operation, in, out, maxAnswer); err != nil {
		return fmt.Errorf("dynamodb streams %s: %w", operation, err)
	}
	return nil
}

// maxAnswer bounds the answer read: GetRecords returns at most 1 MB of
// records, which their JSON may inflate (escapes, base64). An empty answer
// fails (awscall.Client.CallJSONWithin).
const maxAnswer = 8 << 20
