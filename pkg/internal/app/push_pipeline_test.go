package app_test

import (
	"context"
	"io"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/deliverfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/pushfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

const pipelineIssuer = "https://agent.example.com"

// pushEnv is the environment of the push and deliver functions on a new
// table and new queues of the stand-in.
func pushEnv(t *testing.T) map[string]string {
	env := lambdaEnv(t)
	env["A2A_PUSH_DELIVERY_QUEUE_URL"], env["A2A_PUSH_DEAD_LETTER_QUEUE_URL"] = awstest.Queues(t, awstest.SQS(t), 12)
	_, env["A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL"] = awstest.Queues(t, awstest.SQS(t), 1)
	env["A2A_PUSH_SIGNING_KEYS"] = keystest.PEM(t, "pipeline")
	env["A2A_PUBLIC_URL"] = pipelineIssuer
	return env
}

// loopbackDelivery is the deliverer of the deliver function as its main
// assembles it from env, but for the egress policy (the receiver listens on
// loopback, which Lambda never allows), and a receiver that verifies every
// notification against the stack's signing keys.
func loopbackDelivery(t *testing.T, env map[string]string) (*push.Deliverer, *pushtest.Receiver) {
	ks, err := keys.Parse([]byte(env["A2A_PUSH_SIGNING_KEYS"]))
	require.NoError(t, err)
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: pipelineIssuer, Policy: egress.Policy{AllowInsecure: true}})
	require.NoError(t, err)
	return d, pushtest.NewReceiver(t, ks, pipelineIssuer)
}

// TestPushPipelineEndToEnd follows task changes through the deployment's
// pipeline on the stand-in: writes to the table, its stream read with
// GetRecords, the push function, the delivery queue, the deliver function,
// and a receiver that verifies every notification against the agent's keys.
func TestPushPipelineEndToEnd(t *testing.T) {
	env := pushEnv(t)
	ts := storeOf(t, env)
	d, rcv := loopbackDelivery(t, env)
	hook := rcv.Hook("/hook", pushtest.Behaviour{Token: "hook-token"})

	ctx := context.Background()
	now := func() string { return a2a.FormatTime(time.Now()) }
	agentSays := func(text string) *a2a.Message {
		return &a2a.Message{Role: a2a.RoleAgent, MessageID: "s-" + text, TaskID: "t-pipe", ContextID: "c-pipe", Parts: []a2a.Part{a2a.TextPart(text)}}
	}
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: eventsOwner, Task: a2a.Task{
		ID: "t-pipe", ContextID: "c-pipe", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: now()},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-pipe", TaskID: "t-pipe", ContextID: "c-pipe", Parts: []a2a.Part{a2a.TextPart("long 1")}}},
	}, PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "hook", URL: hook, Token: "hook-token"}, ProtocolVersion: a2a.V03}}}))
	for _, u := range []store.Update{
		{TaskID: "t-pipe", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Message: agentSays("Step 1 of 1"), Timestamp: now()}},
		{TaskID: "t-pipe", Checkpoint: []byte(`{"step":1}`)},
		{TaskID: "t-pipe", Artifacts: []a2a.Artifact{{ArtifactID: "result", Parts: []a2a.Part{a2a.TextPart("42")}}}, ArtifactLastChunk: true},
		{TaskID: "t-pipe", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: agentSays("Done."), Timestamp: now()}},
	} {
		_, err := ts.UpdateTask(ctx, u)
		require.NoError(t, err)
	}

	// The stream, as the event source mapping reads it.
	pushFunction(ctx, t, env)()

	// The deliver function, with the loopback deliverer.
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	var (
		mu  sync.Mutex
		ops []string
	)
	deliverStore, err := app.OpenDynamoStore(ctx, cfg, app.StoreOptions{OnUsage: func(u dynamo.Usage) {
		mu.Lock()
		defer mu.Unlock()
		ops = append(ops, u.Op)
	}})
	require.NoError(t, err)
	deliver, err := deliverfn.NewDeliver(cfg, deliverStore, awstest.SQSCall(t, sqscall.Options{}), d, nil, nil)
	require.NoError(t, err)
	awstest.Pump(t, awstest.SQS(t), env["A2A_PUSH_DELIVERY_QUEUE_URL"], deliver.Handle, 30*time.Second,
		func() bool { return len(rcv.Delivered("/hook")) == 3 })

	var seen []string
	for _, d := range rcv.DeliveredTasks("/hook") {
		assert.Equal(t, "t-pipe", d.Task.ID)
		desc := d.EventID + " " + string(d.Task.Status.State)
		for _, a := range d.Task.Artifacts {
			desc += " artifact " + a.ArtifactID + "=" + a.Parts[0].Text
		}
		seen = append(seen, desc)
	}
	assert.Equal(t, []string{
		"t-pipe:2 working",                      // the status change
		"t-pipe:4 working artifact result=42",   // the completed artifact (the checkpoint, version 3, is not a change)
		"t-pipe:5 completed artifact result=42", // the last one holds the whole result
	}, seen)
	// What delivering costs in DynamoDB: the config (with the task's
	// liveness) in one BatchGetItem, the task's artifacts when the
	// notification carries them, and the outcome.
	sort.Strings(ops)
	assert.Equal(t, []string{"BatchGetItem", "BatchGetItem", "BatchGetItem", "Query", "Query", "UpdateItem", "UpdateItem", "UpdateItem"}, ops,
		"3 notifications, 2 of them with artifacts")

	log, err := ts.ListDeliveries(ctx, store.DeliveryQuery{TaskID: "t-pipe", PageSize: 10})
	require.NoError(t, err)
	require.Len(t, log.Deliveries, 3, "the delivery log holds each notification")
	for _, d := range log.Deliveries {
		assert.Equal(t, "delivered", d.State)
		assert.Len(t, d.Attempts, 1)
	}
}

// pushFunction is the push function on the task table's stream, as the
// event source mapping feeds it: each call hands it the records written
// since the previous one, and checks that it failed none.
func pushFunction(ctx context.Context, t *testing.T, env map[string]string) func() {
	stream := awstest.NewStreamReader(t, env["A2A_TASK_STORE_TABLE"])
	fanout, err := pushfn.New(ctx, getenv(env), io.Discard)
	require.NoError(t, err)
	return func() {
		t.Helper()
		recs, err := stream.Read(ctx)
		require.NoError(t, err)
		resp, err := fanout.Handle(ctx, events.DynamoDBEvent{Records: recs})
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
	}
}

// TestDeliveryRedriveOnLambda: a notification the deliver function
// dead-letters is logged with its job; the tasks function's redrive route
// queues the delivery; its stream record takes the push function to put
// the job back on the delivery queue; and the deliver function delivers it,
// signed and verified, with the event id of the first attempt.
func TestDeliveryRedriveOnLambda(t *testing.T) {
	env := pushEnv(t)
	ts := storeOf(t, env)
	d, rcv := loopbackDelivery(t, env)
	hook := rcv.Hook("/hook", pushtest.Behaviour{Token: "hook-token", Status: 404})
	ctx := context.Background()
	const taskID = "t-redrive"
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: eventsOwner, Task: a2a.Task{
		ID: taskID, ContextID: "c-redrive", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-redrive", TaskID: taskID, ContextID: "c-redrive", Parts: []a2a.Part{a2a.TextPart("hi")}}},
	}, PushConfigs: []store.PushConfig{{Config: a2a.PushNotificationConfig{ID: "hook", URL: hook, Token: "hook-token"}, ProtocolVersion: a2a.V03}}}))
	_, err := ts.UpdateTask(ctx, store.Update{TaskID: taskID, Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: a2a.FormatTime(time.Now())}})
	require.NoError(t, err)

	pushRecords := pushFunction(ctx, t, env)
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	deliver, err := deliverfn.NewDeliver(cfg, ts, awstest.SQSCall(t, sqscall.Options{}), d, nil, nil)
	require.NoError(t, err)
	queue, dlq := env["A2A_PUSH_DELIVERY_QUEUE_URL"], env["A2A_PUSH_DEAD_LETTER_QUEUE_URL"]

	pushRecords()
	var dead []events.SQSMessage
	awstest.Pump(t, awstest.SQS(t), queue, deliver.Handle, 30*time.Second, func() bool {
		dead = append(dead, awstest.Receive(t, awstest.SQS(t), dlq, 0)...)
		return len(dead) == 1
	})
	require.Len(t, rcv.Attempts("/hook"), 1, "a 404 is a permanent failure")

	tasks := startFunction(t, env, httpapi.RoutesTasks)
	rest := func(method, path, body string) events.APIGatewayV2HTTPResponse {
		t.Helper()
		ev := loadEvent(t, "tasks/rest-tasks-cancel.json")
		ev.RawPath, ev.RequestContext.HTTP.Path, ev.RequestContext.HTTP.Method = path, path, method
		ev.RouteKey, ev.RequestContext.RouteKey = method+" /rest/{proxy+}", method+" /rest/{proxy+}"
		ev.PathParameters = map[string]string{"proxy": path[len("/rest/"):]}
		ev.Body = body
		resp, err := tasks(ctx, ev)
		require.NoError(t, err)
		return resp
	}
	var log a2a.ListDeliveriesResult
	restResult(t, rest("GET", "/rest/v1/tasks/"+taskID+"/deliveries", ""), &log)
	require.Len(t, log.Deliveries, 1)
	assert.Equal(t, "failed", log.Deliveries[0].State)
	assert.True(t, log.Deliveries[0].DeadLettered)
	assert.Equal(t, 404, log.Deliveries[0].Attempts[0].StatusCode)

	rcv.Hook("/hook", pushtest.Behaviour{Token: "hook-token"}) // the webhook is fixed
	var redriven a2a.RedriveDeliveriesResult
	restResult(t, rest("POST", "/rest/v1/tasks/"+taskID+"/deliveries:redrive", `{"eventId":"`+taskID+`:2"}`), &redriven)
	require.Len(t, redriven.Redriven, 1)
	assert.Equal(t, "queued", redriven.Redriven[0].State)
	assert.Empty(t, awstest.Receive(t, awstest.SQS(t), queue, 0), "the tasks function links no SQS client: the stream carries the redrive")

	pushRecords()
	awstest.Pump(t, awstest.SQS(t), queue, deliver.Handle, 30*time.Second, func() bool { return len(rcv.Delivered("/hook")) == 1 })
	got := rcv.DeliveredTasks("/hook")
	require.Len(t, got, 1)
	assert.Equal(t, taskID+":2", got[0].EventID, "the redrive sends the same event")
	assert.Equal(t, a2a.TaskStateCompleted, got[0].Task.Status.State)

	restResult(t, rest("GET", "/rest/v1/tasks/"+taskID+"/deliveries", ""), &log)
	require.Len(t, log.Deliveries, 1)
	dl := log.Deliveries[0]
	assert.Equal(t, "delivered", dl.State)
	assert.Equal(t, 1, dl.Redrives)
	require.Len(t, dl.Attempts, 2)
	assert.Equal(t, 404, dl.Attempts[0].StatusCode)
	assert.Equal(t, 204, dl.Attempts[1].StatusCode)
	assert.Equal(t, 1, dl.Attempts[1].Attempt, "a redrive is a new message: its attempts count from 1")
	assert.Empty(t, awstest.Receive(t, awstest.SQS(t), dlq, 0), "nothing more was dead-lettered")
}

func TestPushAndDeliverFunctionConfiguration(t *testing.T) {
	env := pushEnv(t)
	ctx := context.Background()
	_, err := deliverfn.New(ctx, getenv(env), io.Discard)
	require.NoError(t, err, "the deliver function starts on its environment")

	for name, tc := range map[string]struct {
		change map[string]string
		push   bool
		want   string
	}{
		"push without its queue":        {map[string]string{"A2A_PUSH_DELIVERY_QUEUE_URL": ""}, true, "A2A_PUSH_DELIVERY_QUEUE_URL is required"},
		"push without its dead letters": {map[string]string{"A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL": ""}, true, "A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL is required"},
		"deliver without its queues":    {map[string]string{"A2A_PUSH_DEAD_LETTER_QUEUE_URL": ""}, false, "A2A_PUSH_DEAD_LETTER_QUEUE_URL are required"},
		"deliver without an issuer":     {map[string]string{"A2A_PUBLIC_URL": ""}, false, "A2A_PUSH_ISSUER (or A2A_PUBLIC_URL) is required"},
		"deliver with loopback allowed": {map[string]string{"A2A_PUSH_ALLOW_INSECURE": "true"}, false, "A2A_PUSH_ALLOW_INSECURE=true is for local development"},
		"deliver without a key":         {map[string]string{"A2A_PUSH_SIGNING_KEYS": ""}, false, "A2A_PUSH_SIGNING_KEYS is required"},
		"deliver without DynamoDB":      {map[string]string{"A2A_TASK_STORE_BACKEND": "memory", "A2A_TASK_STORE_TABLE": "", "A2A_TASK_STORE_CREATE_TABLE": ""}, false, "A2A_TASK_STORE_BACKEND=memory: a Lambda function forgets everything"},
	} {
		t.Run(name, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range env {
				e[k] = v
			}
			for k, v := range tc.change {
				e[k] = v
			}
			if tc.push {
				_, err = pushfn.New(ctx, getenv(e), io.Discard)
			} else {
				_, err = deliverfn.New(ctx, getenv(e), io.Discard)
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
