package dynamo_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/follow"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/storetest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// newTable creates a table of its own for the test and drops it afterwards.
func newTable(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	name := awstest.UniqueName(t, "tasks")
	require.NoError(t, dynamo.CreateTable(context.Background(), client, name))
	t.Cleanup(func() {
		client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

func newStore(t *testing.T, o storetest.Options) *dynamo.Store {
	t.Helper()
	client := awstest.DynamoDB(t)
	s, err := dynamo.New(client, dynamo.Options{Table: newTable(t, client), Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
	require.NoError(t, err)
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, o storetest.Options) store.Store { return newStore(t, o) })
}

// TestChanges reads the table's stream with GetRecords and turns its
// records into changes with dynamo.ChangeFromStream, as the push function
// does.
func TestChanges(t *testing.T) {
	storetest.RunChanges(t, func(t *testing.T, o storetest.Options) (store.Store, func() []store.TaskChange) {
		client := awstest.DynamoDB(t)
		table := newTable(t, client)
		s, err := dynamo.New(client, dynamo.Options{Table: table, Clock: o.Clock, TaskTTL: o.TaskTTL, IdempotencyTTL: o.IdempotencyTTL})
		require.NoError(t, err)
		stream := awstest.NewStreamReader(t, table)
		return s, func() []store.TaskChange {
			recs, err := stream.Read(context.Background())
			require.NoError(t, err)
			var changes []store.TaskChange
			for _, r := range recs {
				c, err := dynamo.ChangeFromStream(r)
				require.NoError(t, err)
				if c != nil {
					changes = append(changes, *c)
				}
			}
			return changes
		}
	})
}

// TestFollow is the local server's reading of the stream: changes made
// after it starts arrive, earlier ones do not.
func TestFollow(t *testing.T) {
	client := awstest.DynamoDB(t)
	table := newTable(t, client)
	s, err := dynamo.New(client, dynamo.Options{Table: table})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := func() string { return a2a.FormatTime(time.Now()) }
	require.NoError(t, s.CreateTask(ctx, store.NewTask{Owner: "alice", Task: a2a.Task{ID: "t1", ContextID: "c1",
		Status:  a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}}},
		PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "hook", URL: "https://hooks.example.com/"}}}}))
	_, err = s.UpdateTask(ctx, store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: now()}})
	require.NoError(t, err)

	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	var (
		mu      sync.Mutex
		changes []store.TaskChange
	)
	api, err := streamscall.New(awstest.Config(t), streamscall.Options{})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		follow.Changes(ctx, api, aws.ToString(desc.Table.LatestStreamArn), func(c store.TaskChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, c)
		}, follow.Options{})
	}()
	time.Sleep(300 * time.Millisecond) // let it take its place at the stream's end
	_, err = s.UpdateTask(ctx, store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: now()}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(changes) > 0
	}, 5*time.Second, 20*time.Millisecond)
	cancel()
	<-done
	require.Len(t, changes, 1, "only what happened after the start")
	assert.Equal(t, int64(3), changes[0].Version)
	assert.Equal(t, a2a.TaskStateCompleted, changes[0].Task.Status.State)
	assert.Equal(t, []string{"hook"}, changes[0].PushConfigIDs)
}

// TestAcrossEpochs runs the store contract again with its clocks far in the
// past and far in the future: TTLs and expiry follow the injected clock.
func TestAcrossEpochs(t *testing.T) {
	clocktest.RunAcrossEpochs(t, "^(TestContract|TestChanges|TestChildrenOutliveTheirTask)$")
}
