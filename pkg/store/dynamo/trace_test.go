package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// A task created or changed inside a trace keeps its trace header, which
// the stream's records carry (dynamo.TraceFromStream); a change outside a
// trace keeps the last one.
func TestTaskKeepsItsTraceHeader(t *testing.T) {
	client := awstest.DynamoDB(t)
	table := newTable(t, client)
	s, err := dynamo.New(client, dynamo.Options{Table: table})
	require.NoError(t, err)
	stream := awstest.NewStreamReader(t, table)
	const (
		send   = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"
		worker = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=1111222233334444;Sampled=1"
	)
	now := func() string { return a2a.FormatTime(time.Now()) }
	ctx := tracing.WithHeader(context.Background(), send)
	require.NoError(t, s.CreateTask(ctx, store.NewTask{Owner: "alice", Task: a2a.Task{ID: "t1", ContextID: "c1",
		Status:  a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}}}}))
	_, err = s.UpdateTask(context.Background(), store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: now()}})
	require.NoError(t, err)
	_, err = s.UpdateTask(tracing.WithHeader(context.Background(), worker), store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: now()}})
	require.NoError(t, err)

	recs, err := stream.Read(context.Background())
	require.NoError(t, err)
	var got []string
	for _, r := range recs {
		if r.Change.Keys["SK"].String() != "H" || r.Change.NewImage["recordOf"].DataType() == events.DataTypeString {
			continue // the task's other items, and the idempotency record of its first message
		}
		got = append(got, r.EventName+" "+dynamo.TraceFromStream(r))
	}
	assert.Equal(t, []string{"INSERT " + send, "MODIFY " + send, "MODIFY " + worker}, got,
		"the create's header, kept by the untraced update, then the worker's")
}
