package serverless_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

// Deliveries are counted by outcome: delivered, retried, dead-lettered.
func TestDeliveryMetrics(t *testing.T) {
	var buf bytes.Buffer
	sink := metrics.New(metrics.Config{Dimensions: map[string]string{"Service": "t"}, Out: &buf})
	f := newDeliverFixture(t, threeQuickAttempts)
	f.task(t, "t-m", map[string]string{
		"flaky": f.rcv.Hook("/m-flaky", pushtest.Behaviour{FailFirst: 1}),
		"down":  f.rcv.Hook("/m-down", pushtest.Behaviour{Status: 500}),
	})
	f.enqueue(t, "t-m", "flaky", "down")
	f.send(t, `{"not":"a job"}`)
	handle := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		return f.handler.Handle(metrics.NewContext(ctx, sink), ev)
	}
	var dead int
	awstest.Pump(t, f.client, f.url, handle, 30*time.Second, func() bool {
		dead += len(awstest.Receive(t, f.client, f.dlq, 0))
		return dead == 2 && len(f.rcv.Delivered("/m-flaky")) == 1
	})
	require.NoError(t, sink.Flush())
	got := emftest.Totals(emftest.Documents(t, buf.Bytes()))
	assert.Equal(t, map[string]float64{
		metrics.WebhookDelivered:  1,
		metrics.WebhookRetried:    3, // flaky once, down twice
		metrics.WebhookDeadLetter: 2, // down after 3 attempts, the undecodable message
	}, got)
}
