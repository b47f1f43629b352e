package serverless_test

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// traceSQS records the trace header of each job.
type traceSQS struct {
	serverless.SQS
	headers []string
}

func (f *traceSQS) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		f.headers = append(f.headers, aws.ToString(e.MessageSystemAttributes["AWSTraceHeader"].StringValue))
		out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

// Delivery jobs carry the push invocation's X-Ray trace header as SQS's
// AWSTraceHeader, so that the deliver function's invocation joins it.
func TestJobsCarryTheTraceHeader(t *testing.T) {
	fake := &traceSQS{}
	decode := func(r events.DynamoDBEventRecord) (*service.TaskChange, error) {
		return &service.TaskChange{Task: a2a.Task{ID: r.EventID}, Version: 2, StatusChanged: true, PushConfigIDs: []string{"a", "b"}}, nil
	}
	f, err := serverless.NewFanout(fake, "https://sqs.example/q", decode, nil)
	require.NoError(t, err)
	const header = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", header) //nolint:staticcheck // aws-lambda-go's key
	_, err = f.Handle(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{{EventID: "t-1"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{header, header}, fake.headers)
}
