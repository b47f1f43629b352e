package serverless_test

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// traceSQS records the trace header of each job.
type traceSQS struct {
	serverless.SQS
	headers []string
}

func (f *traceSQS) SendMessageBatch(_ context.Context, _ string, batch []sqscall.Message) (sqscall.BatchResult, error) {
	var out sqscall.BatchResult
	for _, e := range batch {
		f.headers = append(f.headers, e.SystemAttributes["AWSTraceHeader"].StringValue)
		out.Successful = append(out.Successful, sqscall.BatchSent{ID: e.ID})
	}
	return out, nil
}

// Delivery jobs carry the push invocation's X-Ray trace header as SQS's
// AWSTraceHeader, so that the deliver function's invocation joins it.
func TestJobsCarryTheTraceHeader(t *testing.T) {
	fake := &traceSQS{}
	decode := func(r events.DynamoDBEventRecord) (*store.TaskChange, error) {
		return &store.TaskChange{Task: a2a.Task{ID: r.EventID}, Version: 2, StatusChanged: true, PushConfigIDs: []string{"a", "b"}}, nil
	}
	f, err := serverless.NewFanout(fake, "https://sqs.example/q", decode, nil)
	require.NoError(t, err)
	const header = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", header) //nolint:staticcheck // aws-lambda-go's key
	_, err = f.Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventID: "t-1"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{header, header}, fake.headers)
}

// With WithTrace, each record's jobs carry the trace header its task was
// changed under, so that the delivery joins the task's trace; a record
// without one keeps the push invocation's.
func TestJobsCarryTheTasksTraceHeader(t *testing.T) {
	fake := &traceSQS{}
	decode := func(r events.DynamoDBEventRecord) (*store.TaskChange, error) {
		return &store.TaskChange{Task: a2a.Task{ID: r.EventID}, Version: 2, StatusChanged: true, PushConfigIDs: []string{"a"}}, nil
	}
	const (
		invocation = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
		task       = "Root=1-6740d2a0-aaaaaaaaaaaaaaaaaaaaaaaa;Parent=1111222233334444;Sampled=1"
	)
	traces := map[string]string{"t-traced": task}
	f, err := serverless.NewFanout(fake, "https://sqs.example/q", decode, nil)
	require.NoError(t, err)
	f = f.WithTrace(func(r events.DynamoDBEventRecord) string { return traces[r.EventID] })
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", invocation) //nolint:staticcheck // aws-lambda-go's key
	_, err = f.Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventID: "t-traced"}, {EventID: "t-untraced"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{task, invocation}, fake.headers)
}

// traceSender records the trace header each delivery attempt runs under.
type traceSender struct {
	mu      sync.Mutex
	headers map[string]string
}

func (s *traceSender) Send(ctx context.Context, j notify.Job, _ int) (push.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.headers[j.TaskID] = tracing.Header(ctx)
	return push.Decision{}, nil
}

// The deliver function runs each message under its AWSTraceHeader (its
// task's trace), whatever the invocation's; one without keeps the
// invocation's.
func TestDeliveryRunsUnderTheJobsTraceHeader(t *testing.T) {
	sender := &traceSender{headers: map[string]string{}}
	d, err := serverless.NewDeliver(sender, &traceSQS{}, "https://sqs.example/q", "https://sqs.example/dlq", nil)
	require.NoError(t, err)
	const (
		invocation = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
		task       = "Root=1-6740d2a0-aaaaaaaaaaaaaaaaaaaaaaaa;Parent=1111222233334444;Sampled=1"
	)
	body := func(taskID string) string {
		b, err := notify.Job{TaskID: taskID, ConfigID: "c", Version: 2}.Encode()
		require.NoError(t, err)
		return string(b)
	}
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", invocation) //nolint:staticcheck // aws-lambda-go's key
	resp, err := d.Handle(ctx, events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: body("t-traced"), Attributes: map[string]string{"AWSTraceHeader": task}},
		{MessageId: "m2", Body: body("t-untraced")},
	}})
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Equal(t, map[string]string{"t-traced": task, "t-untraced": invocation}, sender.headers)
}
