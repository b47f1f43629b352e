// Package sqscall calls the three SQS operations the push pipeline of
// pkg/internal/push/serverless makes (SendMessage, SendMessageBatch,
// ChangeMessageVisibility) over plain HTTP, signed with the SDK's Signature
// Version 4 signer (pkg/internal/awscall), in the AWS JSON 1.0 protocol SQS
// speaks. It stands in for the SDK's SQS client, whose packages Go
// initializes at every cold start of the push and deliver functions (its
// schemas and endpoints took about 0.35 ms, GODEBUG=inittrace=1). A test
// compares its requests with the SDK client's.
//
// Queue URLs go in the requests as given; the requests go to the client's
// endpoint (AWS_ENDPOINT_URL, else the region's).
package sqscall

import (
	"context"
	"crypto/md5" //nolint:gosec // SQS's digest of a message body, not a security check
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// Options configure a Client (see awscall.Options).
type Options = awscall.Options

// Client is an SQS client of the push pipeline's three operations. It is
// safe for concurrent use.
type Client struct {
	api *awscall.Client
}

// service is SQS's API; "SQS" is the SDK's service id.
var service = awscall.Service{SigningName: "sqs", EndpointPrefix: "sqs", ID: "SQS"}

// New returns a client with cfg's region, credentials and endpoint.
func New(cfg aws.Config, o Options) (*Client, error) {
	api, err := awscall.New(cfg, service, o)
	if err != nil {
		return nil, err
	}
	return &Client{api: api}, nil
}

// Attribute is a message attribute or a message system attribute (such as
// AWSTraceHeader): a String or Number value.
type Attribute struct {
	// DataType is String or Number, optionally with a custom suffix
	// (String.x).
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue"`
}

// String is a String attribute of v.
func String(v string) Attribute { return Attribute{DataType: "String", StringValue: v} }

// Message is a message to send: its body and attributes. Its ID names it in
// a batch (unique in the batch; letters, digits, '-' and '_').
type Message struct {
	ID               string               `json:"Id,omitempty"`
	Body             string               `json:"MessageBody"`
	Attributes       map[string]Attribute `json:"MessageAttributes,omitempty"`
	SystemAttributes map[string]Attribute `json:"MessageSystemAttributes,omitempty"`
}

// SendMessage sends m to the queue at queueURL and returns its message id.
func (c *Client) SendMessage(ctx context.Context, queueURL string, m Message) (string, error) {
	m.ID = "" // not a field of SendMessage
	in := struct {
		QueueURL string `json:"QueueUrl"`
		Message
	}{queueURL, m}
	var out struct {
		MessageID string `json:"MessageId"`
		MD5       string `json:"MD5OfMessageBody"`
	}
	if err := c.call(ctx, "SendMessage", in, &out); err != nil {
		return "", err
	}
	if !bodyMatches(out.MD5, m.Body) {
		return "", fmt.Errorf("sqs SendMessage: %w (message %s: MD5 %s, sent %s)", ErrBodyChanged, out.MessageID, out.MD5, md5Hex(m.Body))
	}
	return out.MessageID, nil
}

// ErrBodyChanged is why a message SQS says it took is refused: the MD5
// digest of the body SQS took is not that of the body sent (the SDK's SQS
// client checks it too). The message may be in the queue, changed on the
// way: sending it again is the caller's choice (deliveries are at least
// once).
var ErrBodyChanged = errors.New("SQS took a different message body than was sent")

// bodyMatches reports whether SQS's MD5 digest of a body (lower-case hex,
// as the SDK compares it; "" when it gave none) is that of body.
func bodyMatches(digest, body string) bool {
	return digest == "" || digest == md5Hex(body)
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// BatchResult is SQS's answer to a SendMessageBatch: the messages it took
// and those it did not, by their batch ids (every message is in one).
type BatchResult struct {
	Successful []BatchSent   `json:"Successful"`
	Failed     []BatchFailed `json:"Failed"`
}

// BatchSent is a message of a batch SQS took.
type BatchSent struct {
	ID        string `json:"Id"`
	MessageID string `json:"MessageId"`
}

// BatchFailed is a message of a batch SQS did not take, and why: its error
// code (InvalidParameterValue, InternalError...), and whether SQS blames the
// message (SenderFault) rather than itself.
type BatchFailed struct {
	ID          string `json:"Id"`
	Code        string `json:"Code"`
	Message     string `json:"Message"`
	SenderFault bool   `json:"SenderFault"`
}

// SendMessageBatch sends up to ten messages to the queue at queueURL in one
// request. SQS answers for each message on its own: an error is a refusal
// of the whole batch (or no answer), and the messages it refused one by one
// are in the result's Failed; so is a message whose body SQS took changed
// (Code BodyChangedCode, not the sender's fault: see ErrBodyChanged).
func (c *Client) SendMessageBatch(ctx context.Context, queueURL string, batch []Message) (BatchResult, error) {
	in := struct {
		QueueURL string    `json:"QueueUrl"`
		Entries  []Message `json:"Entries"`
	}{queueURL, batch}
	var answer struct {
		Successful []struct {
			BatchSent
			MD5 string `json:"MD5OfMessageBody"`
		} `json:"Successful"`
		Failed []BatchFailed `json:"Failed"`
	}
	if err := c.call(ctx, "SendMessageBatch", in, &answer); err != nil {
		return BatchResult{}, err
	}
	out := BatchResult{Failed: answer.Failed}
	for _, s := range answer.Successful {
		// A batch holds ten messages at most: looked up, not indexed.
		if i := slices.IndexFunc(batch, func(m Message) bool { return m.ID == s.ID }); i >= 0 && !bodyMatches(s.MD5, batch[i].Body) {
			out.Failed = append(out.Failed, BatchFailed{ID: s.ID, Code: BodyChangedCode,
				Message: fmt.Sprintf("%s (message %s: MD5 %s, sent %s)", ErrBodyChanged, s.MessageID, s.MD5, md5Hex(batch[i].Body))})
			continue
		}
		out.Successful = append(out.Successful, s.BatchSent)
	}
	return out, nil
}

// BodyChangedCode is the Code of a batch's message whose body SQS took
// changed (see ErrBodyChanged).
const BodyChangedCode = "MD5OfMessageBodyMismatch"

// ChangeMessageVisibility makes the message received with receiptHandle
// from the queue at queueURL visible again after seconds (0 to 43200).
func (c *Client) ChangeMessageVisibility(ctx context.Context, queueURL, receiptHandle string, seconds int32) error {
	in := struct {
		QueueURL          string `json:"QueueUrl"`
		ReceiptHandle     string `json:"ReceiptHandle"`
		VisibilityTimeout int32  `json:"VisibilityTimeout"`
	}{queueURL, receiptHandle, seconds}
	return c.call(ctx, "ChangeMessageVisibility", in, nil)
}

// call makes one AWS JSON 1.0 call of operation with in as its body, and
// decodes the answer into out (nil: ignored). SQS's refusal is an
// *awscall.Error: its Code is the error's type in the JSON protocol
// (QueueDoesNotExist, InvalidParameterValue, RequestThrottled,
// KmsThrottled...), its StatusCode 4xx when SQS blames the request (or the
// caller) rather than itself.
func (c *Client) call(ctx context.Context, operation string, in, out any) error {
	if err := c.api.CallJSON(ctx, "1.0", "AmazonSQS."+operation, in, out); err != nil {
		return fmt.Errorf("sqs %s: %w", operation, err)
	}
	return nil
}
