package infra_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// streamFilters returns the patterns of the push function's stream mapping.
func streamFilters(t *testing.T) []string {
	tpl := load(t)
	var filters []struct {
		Pattern string `yaml:"Pattern"`
	}
	decode(t, tpl.Resources["PushStreamMapping"].Prop("FilterCriteria", "Filters"), &filters)
	require.NotEmpty(t, filters)
	var out []string
	for _, f := range filters {
		var p map[string]any
		require.NoError(t, json.Unmarshal([]byte(f.Pattern), &p))
		for k := range p {
			assert.Equal(t, "dynamodb", k, "DynamoDB event source mappings filter only on the dynamodb key")
		}
		out = append(out, f.Pattern)
	}
	return out
}

// The push function's stream filter lets through every record that can
// notify (ChangeFromStream reports a change) and only updates of task
// items: a task's life on a real table's stream (inserts of the task,
// its messages and push configs, updates, deletions as TTL makes them).
func TestStreamFilter(t *testing.T) {
	filters := streamFilters(t)
	ctx := context.Background()
	table := awstest.UniqueName(t, "filter")
	db := awstest.DynamoDB(t)
	require.NoError(t, dynamo.CreateTable(ctx, db, table))
	ts, err := dynamo.New(db, dynamo.Options{Table: table})
	require.NoError(t, err)

	now := func() string { return a2a.FormatTime(time.Now()) }
	msg := func(id, text string) *a2a.Message {
		return &a2a.Message{Role: a2a.RoleAgent, MessageID: id, TaskID: "t-f", ContextID: "c-f", Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", Task: a2a.Task{
		ID: "t-f", ContextID: "c-f", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
		History: []a2a.Message{*msg("m-1", "hi")},
	}, PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "h1", URL: "https://hooks.example.com/1"}, ProtocolVersion: a2a.V03}}}))
	require.NoError(t, ts.PutPushConfig(ctx, store.PushConfig{TaskID: "t-f", Config: a2a.PushNotificationConfig{ID: "h2", URL: "https://hooks.example.com/2"}, ProtocolVersion: a2a.V03}))
	for _, u := range []store.Update{
		{TaskID: "t-f", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: msg("s-1", "step 1"), Timestamp: now()}},
		{TaskID: "t-f", Checkpoint: []byte(`{"step":1}`)},
		{TaskID: "t-f", Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("42")}}}, ArtifactLastChunk: true},
		{TaskID: "t-f", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: msg("s-2", "done"), Timestamp: now()}},
	} {
		_, err := ts.UpdateTask(ctx, u)
		require.NoError(t, err)
	}
	require.NoError(t, ts.DeletePushConfig(ctx, "t-f", "h2"))
	// The delivery log: attempts, a dead letter, and its redrive.
	for _, a := range []store.DeliveryAttempt{
		{ConfigID: "h1", Version: 2, Attempt: 1, StatusCode: 503, State: a2a.DeliveryRetrying, NextAttemptAt: time.Now()},
		{ConfigID: "h1", Version: 2, Attempt: 2, StatusCode: 200, State: a2a.DeliveryDelivered},
		{ConfigID: "h1", Version: 3, Attempt: 1, StatusCode: 410, State: a2a.DeliveryFailed, DeadLettered: true, Job: []byte(`{"taskId":"t-f","configId":"h1","version":3}`)},
	} {
		a.At = time.Now()
		require.NoError(t, ts.LogDelivery(ctx, "t-f", a))
	}
	_, err = ts.RedriveDelivery(ctx, "t-f", "h1", 3)
	require.NoError(t, err)
	require.NoError(t, ts.LogDelivery(ctx, "t-f", store.DeliveryAttempt{ConfigID: "h1", Version: 3, Attempt: 1, StatusCode: 200, State: a2a.DeliveryDelivered, At: time.Now()}))
	// A task its first step finished before it was stored: one insert,
	// which notifies.
	done := msg("s-done", "done at once")
	done.TaskID = "t-once"
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", BindingKnown: true, Task: a2a.Task{
		ID: "t-once", ContextID: "c-once", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: done, Timestamp: now()},
		History: []a2a.Message{*msg("m-once", "hi"), *done}, Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("42")}}},
	}, PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "h1", URL: "https://hooks.example.com/1"}, ProtocolVersion: a2a.V03}}}))
	// The same life for tasks without webhooks, most tasks: none of their
	// records may invoke the push function.
	quiet := func(id string) *a2a.Message { m := msg(id, "quiet"); m.TaskID = "t-quiet"; return m }
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", Task: a2a.Task{
		ID: "t-quiet", ContextID: "c-q", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
		History: []a2a.Message{*quiet("q-1")},
	}}))
	for _, u := range []store.Update{
		{TaskID: "t-quiet", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: quiet("q-2"), Timestamp: now()}},
		{TaskID: "t-quiet", Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("42")}}}, ArtifactLastChunk: true},
		{TaskID: "t-quiet", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: quiet("q-3"), Timestamp: now()}},
	} {
		_, err := ts.UpdateTask(ctx, u)
		require.NoError(t, err)
	}
	quietDone := msg("q-done", "done at once")
	quietDone.TaskID = "t-quiet-once"
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", BindingKnown: true, Task: a2a.Task{
		ID: "t-quiet-once", ContextID: "c-q", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: quietDone, Timestamp: now()},
		History: []a2a.Message{*msg("m-q-once", "hi"), *quietDone},
	}}))
	// TTL deletes every item of the task: the stream has a REMOVE for each.
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: ptr("PK = :pk"),
		ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":pk": &dynamodb.AttributeValueMemberS{Value: "T#t-f"}}})
	require.NoError(t, err)
	for _, item := range out.Items {
		_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]dynamodb.AttributeValue{"PK": item["PK"], "SK": item["SK"]}})
		require.NoError(t, err)
	}

	recs, err := awstest.NewStreamReader(t, table).Read(ctx)
	require.NoError(t, err)
	seen := map[string]int{}
	changes, redrives := 0, 0
	for _, r := range recs {
		pass, err := awstest.FilterPasses(filters, r)
		require.NoError(t, err)
		sk := r.Change.Keys["SK"].String()
		state := r.Change.NewImage["state"]
		hasPush := r.Change.NewImage["hasPush"]
		webhooks := hasPush.DataType() == events.DataTypeBoolean && hasPush.Boolean()
		taskUpdate := sk == "H" && (r.EventName == string(events.DynamoDBOperationTypeModify) ||
			(r.EventName == string(events.DynamoDBOperationTypeInsert) && state.DataType() == events.DataTypeString && state.String() != "submitted"))
		delivery := r.Change.NewImage["deliveryState"]
		redrive := strings.HasPrefix(sk, "W#") && delivery.DataType() == events.DataTypeString && delivery.String() == a2a.DeliveryQueued
		pk := r.Change.Keys["PK"].String()
		seen[fmt.Sprintf("%s %v", r.EventName, pass)]++
		if strings.HasPrefix(pk, "T#t-quiet") {
			seen["quiet"]++
			assert.False(t, pass, "%s of %s %s: a task without webhooks never reaches the push function", r.EventName, pk, sk)
		}
		assert.Equal(t, (taskUpdate && webhooks) || redrive, pass, "%s of %s %s: only updates of task items with webhooks, such tasks created past submitted, and redriven deliveries reach the push function", r.EventName, pk, sk)
		c, err := dynamo.ChangeFromStream(r)
		require.NoError(t, err)
		if c != nil {
			changes++
			assert.True(t, pass, "a record that notifies (%s of %s) is filtered out", r.EventName, sk)
		}
		d, err := dynamo.RedriveFromStream(r)
		require.NoError(t, err)
		if d != nil {
			redrives++
			assert.True(t, pass, "a redrive (%s of %s) is filtered out", r.EventName, sk)
			assert.Equal(t, "t-f:3", d.EventID())
			assert.JSONEq(t, `{"taskId":"t-f","configId":"h1","version":3}`, string(d.Job), "the record carries the job to enqueue")
		}
	}
	assert.Positive(t, changes, "the task's changes notify")
	assert.Equal(t, 1, redrives, "the redrive is one record; the log's other writes are none")
	assert.Equal(t, 1, seen["INSERT true"], "the task created finished notifies")
	assert.Positive(t, seen["INSERT false"], "inserts are dropped")
	assert.Positive(t, seen["REMOVE false"], "deletions are dropped")
	assert.Positive(t, seen["MODIFY true"], seen)
	assert.GreaterOrEqual(t, seen["quiet"], 5, "the tasks without webhooks wrote records")
}

func ptr[T any](v T) *T { return &v }
