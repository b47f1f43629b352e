package serverless_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

const issuer = "https://agent.example.com"

// The task of the sample events (events/push, events/deliver).
const (
	sampleTask    = "4f6c1a52-7d2e-4a47-9b1e-2f9d3c8e5a10"
	sampleContext = "c5e2b7d4-1f3a-4c8e-a9d6-7b0e2f4a6c81"
)

func loadEvent(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "events", name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

func TestFanoutSendsOneJobPerConfig(t *testing.T) {
	client := awstest.SQS(t)
	url, _ := awstest.Queues(t, client, 5)
	f, err := serverless.NewFanout(awstest.SQSCall(t, sqscall.Options{}), url, dynamo.ChangeFromStream, nil)
	require.NoError(t, err)

	var ev events.DynamoDBEvent
	loadEvent(t, "push/stream-batch.json", &ev)
	resp, err := f.Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)

	msgs := awstest.Receive(t, client, url, 1)
	require.Len(t, msgs, 2, "one job per config of the one status change in the batch; a new config and a checkpoint are not changes")
	configs := map[string]notify.Job{}
	for _, m := range msgs {
		j, err := notify.DecodeJob([]byte(m.Body))
		require.NoError(t, err)
		configs[j.ConfigID] = j
	}
	require.Contains(t, configs, "ops-webhook")
	require.Contains(t, configs, "audit")
	j := configs["ops-webhook"]
	assert.Equal(t, sampleTask, j.TaskID)
	assert.Equal(t, int64(2), j.Version)
	assert.Equal(t, a2a.TaskStateWorking, j.Task.Status.State)
	assert.Equal(t, "Working: step 1 of 3", j.Task.Status.Message.Text())
	assert.NotContains(t, msgs[0].Body, "secret-token", "jobs carry no secrets")
}

// fakeSQS fails SendMessageBatch as told.
type fakeSQS struct {
	serverless.SQS
	mu      sync.Mutex
	calls   int
	failAt  map[int]error // call number -> error
	refuse  map[int]bool  // call number -> refuse every entry (retryable)
	entries []string
}

func (f *fakeSQS) SendMessageBatch(_ context.Context, _ string, batch []sqscall.Message) (sqscall.BatchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if err := f.failAt[f.calls]; err != nil {
		return sqscall.BatchResult{}, err
	}
	var out sqscall.BatchResult
	for _, e := range batch {
		if f.refuse[f.calls] {
			out.Failed = append(out.Failed, sqscall.BatchFailed{ID: e.ID, Code: "InternalError", Message: "try again"})
			continue
		}
		f.entries = append(f.entries, e.Body)
		out.Successful = append(out.Successful, sqscall.BatchSent{ID: e.ID})
	}
	return out, nil
}

func TestFanoutFailures(t *testing.T) {
	change := func(taskID string) *store.TaskChange {
		return &store.TaskChange{Task: a2a.Task{ID: taskID}, Version: 2, StatusChanged: true, PushConfigIDs: []string{"a"}}
	}
	decode := func(r events.DynamoDBEventRecord) (*store.TaskChange, error) {
		if r.EventID == "poison" {
			return nil, errors.New("not a task item")
		}
		return change(r.EventID), nil
	}
	record := func(id, seq string) events.DynamoDBEventRecord {
		return events.DynamoDBEventRecord{EventID: id, Change: events.DynamoDBStreamRecord{SequenceNumber: seq}}
	}
	batch := events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{record("t1", "100"), record("poison", "101"), record("t2", "102"), record("t3", "103")}}

	t.Run("a record whose jobs cannot be sent is reported, and nothing after it is sent", func(t *testing.T) {
		fake := &fakeSQS{failAt: map[int]error{2: errors.New("throttled"), 3: errors.New("throttled"), 4: errors.New("throttled")}}
		f, err := serverless.NewFanout(fake, "https://sqs.example/q", decode, nil)
		require.NoError(t, err)
		resp, err := f.Handle(context.Background(), batch)
		require.NoError(t, err)
		assert.Equal(t, []events.DynamoDBBatchItemFailure{{ItemIdentifier: "102"}}, resp.BatchItemFailures)
		require.Len(t, fake.entries, 1, "t1's job was sent, the undecodable record skipped, t3 left for the retry")
		assert.Contains(t, fake.entries[0], `"taskId":"t1"`)
	})
	t.Run("refused entries are sent again", func(t *testing.T) {
		fake := &fakeSQS{refuse: map[int]bool{1: true}}
		f, err := serverless.NewFanout(fake, "https://sqs.example/q", decode, nil)
		require.NoError(t, err)
		resp, err := f.Handle(context.Background(), batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Len(t, fake.entries, 3)
	})
	_, err := serverless.NewFanout(nil, "", nil, nil)
	assert.Error(t, err)
}

// threeQuickAttempts gives up after three attempts a millisecond apart.
var threeQuickAttempts = push.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}

// deliverFixture is a deliver function on the stand-in's queues, a memory
// store and a receiver.
type deliverFixture struct {
	client   *sqs.Client
	url, dlq string
	store    *memory.Store
	rcv      *pushtest.Receiver
	handler  *serverless.Deliver
}

func newDeliverFixture(t *testing.T, retry push.RetryPolicy) *deliverFixture {
	t.Helper()
	ks, err := keys.Generate(keys.AlgEdDSA)
	require.NoError(t, err)
	f := &deliverFixture{client: awstest.SQS(t), store: memory.New(memory.Options{}), rcv: pushtest.NewReceiver(t, ks, issuer)}
	f.url, f.dlq = awstest.Queues(t, f.client, retry.MaxAttemptsOrDefault()+2)
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: issuer, Policy: egress.Policy{AllowInsecure: true}, Client: egress.NewClient(egress.Policy{AllowInsecure: true}, 5*time.Second)})
	require.NoError(t, err)
	sender := notify.NewSender(notify.NewResolver(f.store, nil), d, retry, f.store, nil)
	f.handler, err = serverless.NewDeliver(sender, awstest.SQSCall(t, sqscall.Options{}), f.url, f.dlq, nil)
	require.NoError(t, err)
	return f
}

// task stores a working task with one config per hook.
func (f *deliverFixture) task(t *testing.T, taskID string, hooks map[string]string) {
	t.Helper()
	ctx := context.Background()
	var configs []store.PushConfig
	for id, url := range hooks {
		configs = append(configs, store.PushConfig{Config: a2a.PushNotificationConfig{ID: id, URL: url, Token: "tok-" + id}, ProtocolVersion: a2a.V03})
	}
	require.NoError(t, f.store.CreateTask(ctx, store.NewTask{Owner: "alice", PushConfigs: configs, Task: a2a.Task{
		ID: taskID, ContextID: sampleContext, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + taskID, Parts: []a2a.Part{a2a.TextPart("long 3")}}},
	}}))
}

// enqueue sends the jobs of a status change of taskID to the delivery queue.
func (f *deliverFixture) enqueue(t *testing.T, taskID string, configs ...string) {
	t.Helper()
	for _, j := range notify.Jobs(store.TaskChange{Task: a2a.Task{ID: taskID, ContextID: sampleContext,
		Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: a2a.FormatTime(time.Now())}}, Version: 2, StatusChanged: true, PushConfigIDs: configs}) {
		b, err := j.Encode()
		require.NoError(t, err)
		f.send(t, string(b))
	}
}

// send puts one message body on the delivery queue.
func (f *deliverFixture) send(t *testing.T, body string) {
	t.Helper()
	_, err := f.client.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(f.url), MessageBody: aws.String(body)})
	require.NoError(t, err)
}

// delivery is the logged delivery of taskID's version 2 to configID.
func (f *deliverFixture) delivery(t *testing.T, taskID, configID string) store.Delivery {
	t.Helper()
	page, err := f.store.ListDeliveries(context.Background(), store.DeliveryQuery{TaskID: taskID, PageSize: 10})
	require.NoError(t, err)
	for _, d := range page.Deliveries {
		if d.ConfigID == configID && d.Version == 2 {
			return d
		}
	}
	require.Failf(t, "no delivery logged", "for %s", configID)
	return store.Delivery{}
}

// lastStatus is the status code of a delivery's latest attempt.
func lastStatus(d store.Delivery) int { return d.Attempts[len(d.Attempts)-1].StatusCode }

func TestDeliverSample(t *testing.T) {
	f := newDeliverFixture(t, push.RetryPolicy{})
	f.task(t, sampleTask, map[string]string{
		"ops-webhook": f.rcv.Hook("/ops", pushtest.Behaviour{Token: "tok-ops-webhook"}),
		"audit":       f.rcv.Hook("/audit", pushtest.Behaviour{Token: "tok-audit"}),
	})
	var ev events.SQSEvent
	loadEvent(t, "deliver/sqs-batch.json", &ev)
	resp, err := f.handler.Handle(context.Background(), ev)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)

	for _, path := range []string{"/ops", "/audit"} {
		got := f.rcv.Delivered(path)
		require.Len(t, got, 1, path)
		assert.Equal(t, sampleTask+":2", got[0].EventID)
		var task a2a.Task
		require.NoError(t, json.Unmarshal(got[0].Body, &task))
		assert.Equal(t, "Working: step 1 of 3", task.Status.Message.Text(), "the snapshot of the change")
	}
	d := f.delivery(t, sampleTask, "ops-webhook")
	assert.Equal(t, "delivered", d.State)
	assert.Len(t, d.Attempts, 1)
}

func TestDeliverRetriesThroughTheQueue(t *testing.T) {
	f := newDeliverFixture(t, push.RetryPolicy{MaxAttempts: 6, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	f.task(t, "t-flaky", map[string]string{"hook": f.rcv.Hook("/flaky", pushtest.Behaviour{FailFirst: 3})})
	f.enqueue(t, "t-flaky", "hook")

	awstest.Pump(t, f.client, f.url, f.handler.Handle, 30*time.Second, func() bool { return len(f.rcv.Delivered("/flaky")) == 1 })
	attempts := f.rcv.Attempts("/flaky")
	require.Len(t, attempts, 4, "three failures, then the delivery")
	for _, a := range attempts {
		require.NotNil(t, a.Notification, "%v", a.Err)
		assert.Equal(t, "t-flaky:2", a.Notification.EventID)
	}
	d := f.delivery(t, "t-flaky", "hook")
	assert.Equal(t, "delivered", d.State)
	require.Len(t, d.Attempts, 4, "every attempt is logged")
	for i, a := range d.Attempts {
		assert.Equal(t, i+1, a.Attempt, "the attempts are the message's receive count")
	}
	assert.Equal(t, "retrying", d.Attempts[0].State)
	assert.Nil(t, d.Job, "a delivered job is not kept")
	assert.Empty(t, awstest.Receive(t, f.client, f.url, 0), "the delivered job left the queue")
	assert.Empty(t, awstest.Receive(t, f.client, f.dlq, 0))
}

func TestDeliverDeadLetters(t *testing.T) {
	f := newDeliverFixture(t, threeQuickAttempts)
	f.task(t, "t-broken", map[string]string{
		"down": f.rcv.Hook("/down", pushtest.Behaviour{Status: 500}),
		"gone": f.rcv.Hook("/gone", pushtest.Behaviour{Status: 410}),
	})
	f.enqueue(t, "t-broken", "down", "gone")
	f.send(t, `{"not":"a job"}`)

	var dead []events.SQSMessage
	awstest.Pump(t, f.client, f.url, f.handler.Handle, 30*time.Second, func() bool {
		dead = append(dead, awstest.Receive(t, f.client, f.dlq, 0)...)
		return len(dead) == 3
	})
	assert.Len(t, f.rcv.Attempts("/down"), 3, "a failing webhook gets every attempt")
	assert.Len(t, f.rcv.Attempts("/gone"), 1, "a permanent failure is not retried")
	reasons := map[string]string{}
	for _, m := range dead {
		reasons[*m.MessageAttributes["reason"].StringValue] = m.Body
	}
	assert.Contains(t, reasons, "undecodable")
	assert.Contains(t, reasons, "delivery failed")
	for _, m := range dead {
		if j, err := notify.DecodeJob([]byte(m.Body)); err == nil {
			assert.Equal(t, "t-broken", j.TaskID, "the dead letter is the job itself, nothing lost")
		}
	}
	d := f.delivery(t, "t-broken", "down")
	assert.Equal(t, "failed", d.State)
	assert.True(t, d.DeadLettered)
	assert.Len(t, d.Attempts, 3)
	assert.Equal(t, 500, lastStatus(d))
	j, err := notify.DecodeJob(d.Job)
	require.NoError(t, err, "a dead-lettered delivery keeps its job")
	assert.Equal(t, "t-broken:2", j.EventID())
	assert.Equal(t, "down", j.ConfigID)
	assert.Equal(t, 410, lastStatus(f.delivery(t, "t-broken", "gone")))
	assert.Empty(t, awstest.Receive(t, f.client, f.url, 0), "nothing is left in the delivery queue")
}

func TestDeliverHangingWebhookDelaysNobodyElse(t *testing.T) {
	f := newDeliverFixture(t, push.RetryPolicy{MaxAttempts: 1})
	release := make(chan struct{})
	f.task(t, "t-slow", map[string]string{"hook": f.rcv.Hook("/slow", pushtest.Behaviour{Hang: release})})
	f.task(t, "t-fast", map[string]string{"hook": f.rcv.Hook("/fast", pushtest.Behaviour{})})
	f.enqueue(t, "t-slow", "hook")
	f.enqueue(t, "t-fast", "hook")
	var msgs []events.SQSMessage
	for len(msgs) < 2 {
		msgs = append(msgs, awstest.Receive(t, f.client, f.url, 1)...)
	}

	done := make(chan events.SQSEventResponse)
	go func() {
		resp, _ := f.handler.Handle(context.Background(), events.SQSEvent{Records: msgs})
		done <- resp
	}()
	f.rcv.WaitAttempts("/fast", 1, 5*time.Second)
	assert.Len(t, f.rcv.Delivered("/fast"), 1, "the fast webhook got its notification")
	assert.Empty(t, f.rcv.Attempts("/slow"), "while the slow one still hangs")
	close(release)
	resp := <-done
	assert.Empty(t, resp.BatchItemFailures)
}
