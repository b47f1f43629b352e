package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// The local server's change source on DynamoDB reads the table's stream
// at the configured endpoint, as make run does with push notifications on:
// a task with a webhook that moves on arrives. A table without a stream is
// refused with what it needs.
func TestDynamoChanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "changes")
	require.NoError(t, dynamo.CreateTable(ctx, db, table))
	ts, err := dynamo.New(db, dynamo.Options{Table: table})
	require.NoError(t, err)
	cfg := config.Config{TaskStore: config.TaskStore{Backend: config.BackendDynamoDB, Table: table}}
	changes, err := app.DynamoChanges(ctx, cfg, awstest.Config(t), nil)
	require.NoError(t, err)
	got := make(chan store.TaskChange, 16)
	started := make(chan struct{})
	go changes(ctx, func(c store.TaskChange) { got <- c }, func() { close(started) })

	// The source starts at the stream's end: a task changed once it has
	// started is seen.
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the change source did not start")
	}
	id := fmt.Sprint("t-", time.Now().UnixNano())
	now := a2a.FormatTime(time.Now())
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", Task: a2a.Task{ID: id, ContextID: "c",
		Status:  a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + id, Parts: []a2a.Part{a2a.TextPart("hi")}}}},
		PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "hook", URL: "https://hooks.example.com/"}}}}))
	_, err = ts.UpdateTask(ctx, store.Update{TaskID: id, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: now}})
	require.NoError(t, err)
	var seen store.TaskChange
	select {
	case seen = <-got:
	case <-ctx.Done():
		t.Fatal("the task's change was not seen")
	}
	assert.Equal(t, id, seen.Task.ID)
	assert.Equal(t, a2a.TaskStateWorking, seen.Task.Status.State)
	assert.Equal(t, []string{"hook"}, seen.PushConfigIDs)

	plain := awstest.UniqueName(t, "nostream")
	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(plain), BillingMode: dynamodb.BillingModePayPerRequest,
		AttributeDefinitions: []dynamodb.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: dynamodb.ScalarAttributeTypeS}},
		KeySchema:            []dynamodb.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: dynamodb.KeyTypeHash}}})
	require.NoError(t, err)
	cfg.TaskStore.Table = plain
	_, err = app.DynamoChanges(ctx, cfg, awstest.Config(t), nil)
	assert.ErrorContains(t, err, "table "+plain+" has no stream: push notifications need one (NEW_AND_OLD_IMAGES)")
}
