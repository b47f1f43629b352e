package awstest

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
)

// SQS returns an SQS client of the stand-in.
func SQS(t testing.TB) *sqs.Client { return sqs.NewFromConfig(Config(t)) }

// SQSCall returns the push pipeline's SQS client (pkg/internal/sqscall) of
// the stand-in, made with o.
func SQSCall(t testing.TB, o sqscall.Options) *sqscall.Client {
	t.Helper()
	c, err := sqscall.New(Config(t), o)
	if err != nil {
		t.Fatalf("sqscall: %v", err)
	}
	return c
}

// Queues creates a queue and its dead-letter queue (redrive after
// maxReceive receives), as the deployment template does, and returns their
// URLs.
func Queues(t testing.TB, client *sqs.Client, maxReceive int) (queueURL, dlqURL string) {
	t.Helper()
	ctx := context.Background()
	name := UniqueName(t, "q")
	if len(name) > 70 { // SQS names are at most 80 characters
		name = name[len(name)-70:]
	}
	dlq, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")})
	if err != nil {
		t.Fatalf("create queue: %v", err)
	}
	attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatalf("queue attributes: %v", err)
	}
	redrive, err := json.Marshal(map[string]string{"deadLetterTargetArn": attrs.Attributes["QueueArn"], "maxReceiveCount": strconv.Itoa(maxReceive)})
	if err != nil {
		t.Fatal(err)
	}
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: map[string]string{
		"VisibilityTimeout": "30", "RedrivePolicy": string(redrive),
	}})
	if err != nil {
		t.Fatalf("create queue: %v", err)
	}
	return aws.ToString(q.QueueUrl), aws.ToString(dlq.QueueUrl)
}

// Receive reads up to 10 messages of a queue, waiting up to wait seconds,
// as a Lambda event source mapping hands them to a function.
func Receive(t testing.TB, client *sqs.Client, url string, wait int32) []events.SQSMessage {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: wait,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		t.Fatalf("receive from %s: %v", url, err)
	}
	msgs := make([]events.SQSMessage, len(out.Messages))
	for i, m := range out.Messages {
		msgs[i] = events.SQSMessage{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
			Attributes: m.Attributes, EventSource: "aws:sqs", AWSRegion: Region,
			MessageAttributes: map[string]events.SQSMessageAttribute{},
		}
		for k, v := range m.MessageAttributes {
			msgs[i].MessageAttributes[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
		}
	}
	return msgs
}

// SQSHandler handles a batch of messages; *serverless.Deliver is one.
type SQSHandler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// Pump is a Lambda event source mapping with ReportBatchItemFailures: it
// hands the queue's messages to h and deletes those h did not report
// failed, until done says so. It fails the test after timeout.
func Pump(t testing.TB, client *sqs.Client, url string, h SQSHandler, timeout time.Duration, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("the queue did not drain in %v", timeout)
		}
		msgs := Receive(t, client, url, 1)
		if len(msgs) == 0 {
			continue
		}
		resp, err := h(context.Background(), events.SQSEvent{Records: msgs})
		if err != nil {
			t.Fatalf("handler: %v", err)
		}
		failed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		for _, m := range msgs {
			if failed[m.MessageId] {
				continue
			}
			if _, err := client.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(m.ReceiptHandle)}); err != nil {
				t.Fatalf("delete message: %v", err)
			}
		}
	}
}
