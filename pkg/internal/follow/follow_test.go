package follow_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/follow"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// The local server follows the table's stream as the push function's
// event source mapping does, filter included: the changes of a task with a
// webhook reach the push pipeline, those of a task without one never do.
func TestFollowerSkipsTasksWithoutWebhooks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "follow")
	require.NoError(t, dynamo.CreateTable(ctx, db, table))
	ts, err := dynamo.New(db, dynamo.Options{Table: table})
	require.NoError(t, err)
	arn := awstest.NewStreamReader(t, table).ARN()

	var (
		mu      sync.Mutex
		changes []store.TaskChange
	)
	api, err := streamscall.New(awstest.Config(t), streamscall.Options{})
	require.NoError(t, err)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		follow.Changes(ctx, api, arn, func(c store.TaskChange) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, c)
		}, follow.Options{})
	}()
	now := func() string { return a2a.FormatTime(time.Now()) }
	life := func(id string, push []store.PushConfig) {
		require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "o", PushConfigs: push, Task: a2a.Task{
			ID: id, ContextID: "c-" + id, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
			History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + id, TaskID: id, ContextID: "c-" + id, Parts: []a2a.Part{a2a.TextPart("hi")}}},
		}}))
		for _, st := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted} {
			_, err := ts.UpdateTask(ctx, store.Update{TaskID: id, Status: &a2a.TaskStatus{State: st, Timestamp: now(),
				Message: &a2a.Message{Role: a2a.RoleAgent, MessageID: string(st) + "-" + id, TaskID: id, ContextID: "c-" + id, Parts: []a2a.Part{a2a.TextPart(string(st))}}}})
			require.NoError(t, err)
		}
	}
	hook := func(id string) []store.PushConfig {
		return []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "h", URL: "https://hooks.example.com/" + id}, ProtocolVersion: a2a.V03}}
	}
	finished := func(id string) func() bool {
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			for _, c := range changes {
				if c.Task.ID == id && c.Task.Status.State == a2a.TaskStateCompleted {
					return true
				}
			}
			return false
		}
	}
	// The follower starts at the stream's latest records: a first task with
	// a webhook, written until the follower sees it, shows that it reads.
	require.Eventually(t, func() bool {
		life(fmt.Sprint("first-", time.Now().UnixNano()), hook("first"))
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		return len(changes) > 0
	}, 20*time.Second, time.Millisecond, "the follower reads the stream")
	// Then a task without a webhook, and one with: the second's records
	// come after the first's in the stream (one shard), so once it is seen
	// the first has been read.
	life("quiet", nil)
	life("hooked", hook("hooked"))
	require.Eventually(t, finished("hooked"), 20*time.Second, 50*time.Millisecond, "the task with a webhook is followed to its end")
	cancel()
	<-followed
	mu.Lock()
	defer mu.Unlock()
	var states []a2a.TaskState
	for _, c := range changes {
		assert.NotEqual(t, "quiet", c.Task.ID, "a task without webhooks has no changes")
		assert.Equal(t, []string{"h"}, c.PushConfigIDs)
		if c.Task.ID == "hooked" {
			states = append(states, c.Task.Status.State)
		}
	}
	assert.Equal(t, []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted}, states)
}
