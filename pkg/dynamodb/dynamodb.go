// Package dynamodb is a DynamoDB client of the operations the task store
// (pkg/store/dynamo) makes: items (GetItem, Query, Scan, PutItem, UpdateItem,
// DeleteItem, TransactWriteItems, BatchGetItem) and its table
// (CreateTable, DescribeTable, DeleteTable, DescribeTimeToLive,
// UpdateTimeToLive), over signed HTTP (the AWS JSON 1.0 protocol), with the
// attribute values of DynamoDB's data types, the typed errors the store
// acts on, a codec between Go structs and items (Marshal, UnmarshalMap)
// and, in pkg/dynamodb/expression, a builder of expressions.
//
// It replaces the AWS SDK's DynamoDB client in the Lambda functions: Go
// runs every linked package's initialization at each cold start, and the
// SDK's DynamoDB packages cost about 0.8 ms of it (their service model
// tables) and 2 MB of every binary. Requests and answers keep the API's
// member names, as the SDK has them.
package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// Options configure a Client. The zero value is the defaults.
type Options struct {
	// Endpoint is the API's base URL. Empty: the config's BaseEndpoint
	// (AWS_ENDPOINT_URL), else the region's public endpoint.
	Endpoint string
	// HTTPClient makes the calls; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
	// Clock tells the signing time and paces the waits between attempts;
	// nil means the system clock.
	Clock clock.Clock
	// MaxAttempts bounds the calls made for one request: a throttled one
	// (ThrottlingException, ProvisionedThroughputExceededException,
	// RequestLimitExceeded...), one DynamoDB failed (HTTP 5xx) or one
	// that did not reach it is tried again after a jittered wait.
	// Default: 3.
	MaxAttempts int
	// BaseDelay and MaxBackoff pace the attempts: the wait before attempt
	// n+1 is random between zero and BaseDelay doubled n-1 times, at most
	// MaxBackoff. Defaults: 200 ms, one second.
	BaseDelay, MaxBackoff time.Duration
}

// Client calls DynamoDB in one region. It is safe for concurrent use.
type Client struct {
	api *awscall.Client
}

var service = awscall.Service{SigningName: "dynamodb", EndpointPrefix: "dynamodb", ID: "DynamoDB"}

// New returns a client of DynamoDB with cfg's region and credentials.
func New(cfg aws.Config, o Options) (*Client, error) {
	api, err := awscall.New(cfg, service, awscall.Options{Endpoint: o.Endpoint, HTTPClient: o.HTTPClient, Clock: o.Clock,
		MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxBackoff: o.MaxBackoff})
	if err != nil {
		return nil, err
	}
	return &Client{api: api}, nil
}

// GetItem reads one item.
func (c *Client) GetItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	return call[GetItemOutput](ctx, c, "GetItem", in)
}

// Query reads one page of a partition.
func (c *Client) Query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	return call[QueryOutput](ctx, c, "Query", in)
}

// Scan reads one page of a whole table or index.
func (c *Client) Scan(ctx context.Context, in *ScanInput) (*ScanOutput, error) {
	return call[ScanOutput](ctx, c, "Scan", in)
}

// PutItem writes an item whole.
func (c *Client) PutItem(ctx context.Context, in *PutItemInput) (*PutItemOutput, error) {
	return call[PutItemOutput](ctx, c, "PutItem", in)
}

// UpdateItem changes an item's attributes.
func (c *Client) UpdateItem(ctx context.Context, in *UpdateItemInput) (*UpdateItemOutput, error) {
	return call[UpdateItemOutput](ctx, c, "UpdateItem", in)
}

// DeleteItem deletes an item.
func (c *Client) DeleteItem(ctx context.Context, in *DeleteItemInput) (*DeleteItemOutput, error) {
	return call[DeleteItemOutput](ctx, c, "DeleteItem", in)
}

// TransactWriteItems writes up to 100 items, all or none.
func (c *Client) TransactWriteItems(ctx context.Context, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	return call[TransactWriteItemsOutput](ctx, c, "TransactWriteItems", in)
}

// BatchGetItem reads up to 100 items by key.
func (c *Client) BatchGetItem(ctx context.Context, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	return call[BatchGetItemOutput](ctx, c, "BatchGetItem", in)
}

// CreateTable creates a table (it is active later: see DescribeTable).
func (c *Client) CreateTable(ctx context.Context, in *CreateTableInput) (*CreateTableOutput, error) {
	return call[CreateTableOutput](ctx, c, "CreateTable", in)
}

// DescribeTable describes a table.
func (c *Client) DescribeTable(ctx context.Context, in *DescribeTableInput) (*DescribeTableOutput, error) {
	return call[DescribeTableOutput](ctx, c, "DescribeTable", in)
}

// DeleteTable deletes a table.
func (c *Client) DeleteTable(ctx context.Context, in *DeleteTableInput) (*DeleteTableOutput, error) {
	return call[DeleteTableOutput](ctx, c, "DeleteTable", in)
}

// DescribeTimeToLive describes a table's TTL.
func (c *Client) DescribeTimeToLive(ctx context.Context, in *DescribeTimeToLiveInput) (*DescribeTimeToLiveOutput, error) {
	return call[DescribeTimeToLiveOutput](ctx, c, "DescribeTimeToLive", in)
}

// UpdateTimeToLive turns a table's TTL on or off.
func (c *Client) UpdateTimeToLive(ctx context.Context, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	return call[UpdateTimeToLiveOutput](ctx, c, "UpdateTimeToLive", in)
}

// maxAnswer bounds the answer read: a Query or BatchGetItem returns at
// most 1 MB or 16 MB of items, which their JSON may double.
const maxAnswer = 40 << 20

// call makes op with in as its body and decodes its answer.
func call[Out any](ctx context.Context, c *Client, op string, in any) (*Out, error) {
	resp, err := c.api.PostJSON(ctx, "1.0", "DynamoDB_20120810."+op, in)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: %s: %w", op, err)
	}
	answer, err := readAnswer(resp)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: %s: %w", op, err)
	}
	if resp.StatusCode/100 != 2 {
		err := decodeError(resp, answer)
		if e, ok := err.(*Error); ok {
			err = c.api.Tried(ctx, e)
		}
		return nil, err
	}
	out := new(Out)
	if err := decodeAnswer(answer, out); err != nil {
		return nil, fmt.Errorf("dynamodb: %s: decode the answer: %w", op, err)
	}
	return out, nil
}

// decodeAnswer reads an answer into out: the reads' (GetItem, Query) in
// one pass of the decoder once jsonread.Valid has checked their syntax (where
// json.Unmarshal would scan them twice before calling their UnmarshalJSON:
// half the CPU of a 3 KB Query's), the others with encoding/json.
func decodeAnswer(b []byte, out any) error {
	r, ok := out.(interface{ readAnswer([]byte) error })
	if !ok || !jsonread.Valid(b) {
		return json.Unmarshal(b, out) // or the syntax error
	}
	return r.readAnswer(b)
}

// readAnswer reads resp's body, checked against the CRC32 DynamoDB sends
// of it (X-Amz-Crc32) when it was not compressed on the way (the gzip
// reader checks what was).
func readAnswer(resp *http.Response) ([]byte, error) {
	b, err := awscall.ReadAnswer(resp, maxAnswer)
	if err != nil {
		return nil, err
	}
	if h := resp.Header.Get("X-Amz-Crc32"); h != "" && !resp.Uncompressed {
		want, err := strconv.ParseUint(h, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("the answer's X-Amz-Crc32 %q is not a number", h)
		}
		if got := crc32.ChecksumIEEE(b); got != uint32(want) {
			return nil, fmt.Errorf("the answer's CRC32 is %d, not %d as its X-Amz-Crc32 says: it was damaged on the way", got, want)
		}
	}
	return b, nil
}
