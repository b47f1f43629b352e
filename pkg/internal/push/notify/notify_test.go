package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/memqueue"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
)

const issuer = "https://agent.example.com"

func change() store.TaskChange {
	return store.TaskChange{
		Task: a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: "2026-11-22T10:00:00.000Z"},
			History: []a2a.Message{{MessageID: "m"}}},
		Version: 3, StatusChanged: true, PushConfigIDs: []string{"a", "b"},
	}
}

func TestJobs(t *testing.T) {
	jobs := notify.Jobs(change())
	require.Len(t, jobs, 2)
	for i, id := range []string{"a", "b"} {
		j := jobs[i]
		assert.Equal(t, "t1", j.TaskID)
		assert.Equal(t, id, j.ConfigID)
		assert.Equal(t, "t1:3", j.EventID())
		assert.Empty(t, j.Task.History, "a job carries no history")
	}

	c := change()
	c.PushConfigIDs = nil
	assert.Nil(t, notify.Jobs(c), "a task without configs has nobody to tell")
	c = change()
	c.StatusChanged = false
	assert.Nil(t, notify.Jobs(c), "nor does a change that is not notable")
	c.ArtifactIDs = []string{"art"}
	assert.Len(t, notify.Jobs(c), 2, "a completed artifact is notable")
}

func TestJobEncoding(t *testing.T) {
	j := notify.Jobs(change())[0]
	b, err := j.Encode()
	require.NoError(t, err)
	assert.NotContains(t, string(b), "token", "a job holds no secret")
	back, err := notify.DecodeJob(b)
	require.NoError(t, err)
	assert.Equal(t, j, back)

	big := change()
	big.Task.Status.Message = &a2a.Message{Role: a2a.RoleAgent, MessageID: "s", Parts: []a2a.Part{a2a.TextPart(strings.Repeat("x", notify.MaxJobBytes))}}
	j = notify.Jobs(big)[0]
	b, err = j.Encode()
	require.NoError(t, err)
	assert.Less(t, len(b), 1024, "a snapshot too large for a queue message is left out")
	back, err = notify.DecodeJob(b)
	require.NoError(t, err)
	assert.Nil(t, back.Task)
	assert.Equal(t, int64(3), back.Version)

	for _, bad := range []string{`{`, `{}`, `{"taskId":"t1","configId":"a"}`, `{"taskId":"t1","configId":"a","version":2,"task":{"id":"t2"}}`} {
		_, err := notify.DecodeJob([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// fixture is a memory store with one working task and configs, and a key
// set.
type fixture struct {
	store *memory.Store
	keys  *keys.Set
}

// newKeys generates a signing key set for a test.
func newKeys(t *testing.T) *keys.Set {
	t.Helper()
	ks, err := keys.Generate(keys.AlgES256)
	require.NoError(t, err)
	return ks
}

func newFixture(t *testing.T, configs ...store.PushConfig) *fixture {
	t.Helper()
	ks := newKeys(t)
	ts := memory.New(memory.Options{})
	ctx := context.Background()
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "alice", PushConfigs: configs, Task: a2a.Task{
		ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}},
	}}))
	return &fixture{store: ts, keys: ks}
}

// delivery is the logged delivery of t1 to configID (one event).
func (f *fixture) delivery(t *testing.T, configID string) store.Delivery {
	t.Helper()
	page, err := f.store.ListDeliveries(context.Background(), store.DeliveryQuery{TaskID: "t1", PageSize: 10})
	require.NoError(t, err)
	for _, d := range page.Deliveries {
		if d.ConfigID == configID {
			return d
		}
	}
	require.Failf(t, "no delivery logged", "for %s", configID)
	return store.Delivery{}
}

func config(id, url string, protocol a2a.Version) store.PushConfig {
	return store.PushConfig{TaskID: "t1", ProtocolVersion: protocol, Config: a2a.PushNotificationConfig{ID: id, URL: url, Token: "tok-" + id}}
}

func TestResolve(t *testing.T) {
	f := newFixture(t, config("a", "https://hooks.example.com/a", a2a.V03), config("b", "https://hooks.example.com/b", a2a.V10))
	ctx := context.Background()
	_, err := f.store.UpdateTask(ctx, store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{
		{ArtifactID: "done", Parts: []a2a.Part{a2a.TextPart("result")}},
	}})
	require.NoError(t, err)
	_, err = f.store.UpdateTask(ctx, store.Update{TaskID: "t1", AppendArtifact: true, Artifacts: []a2a.Artifact{
		{ArtifactID: "partial", Parts: []a2a.Part{a2a.TextPart("so far")}},
	}})
	require.NoError(t, err)

	stream := func(task *a2a.Task) (string, []byte, error) {
		return push.ContentTypeA2AJSON, []byte(`{"task":{"id":"` + task.ID + `"}}`), nil
	}
	r := notify.NewResolver(f.store, map[a2a.Version]notify.Body{a2a.V10: stream})
	c := change()
	c.ArtifactIDs = []string{"done"}
	jobs := notify.Jobs(c)

	n, err := r.Resolve(ctx, jobs[0])
	require.NoError(t, err)
	assert.Equal(t, "https://hooks.example.com/a", n.Config.URL)
	assert.Equal(t, "tok-a", n.Config.Token, "the notification carries the stored secrets")
	assert.Equal(t, push.ContentTypeJSON, n.ContentType)
	assert.Equal(t, "t1:3", n.EventID())
	var task a2a.Task
	require.NoError(t, json.Unmarshal(n.Body, &task))
	assert.Contains(t, string(n.Body), `"kind":"task"`, "0.3 sends the Task object")
	assert.Equal(t, a2a.TaskStateWorking, task.Status.State, "the state of the change, not of the store")
	require.Len(t, task.Artifacts, 1, "only the artifacts the change completed")
	assert.Equal(t, "result", task.Artifacts[0].Parts[0].Text)
	assert.Empty(t, task.History)

	n, err = r.Resolve(ctx, jobs[1])
	require.NoError(t, err)
	assert.Equal(t, push.ContentTypeA2AJSON, n.ContentType, "a config registered under 1.0 gets its body")
	assert.JSONEq(t, `{"task":{"id":"t1"}}`, string(n.Body))

	noSnapshot := jobs[0]
	noSnapshot.Task = nil
	n, err = r.Resolve(ctx, noSnapshot)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(n.Body, &task))
	assert.Equal(t, a2a.TaskStateSubmitted, task.Status.State, "without a snapshot the task is read as it is")

	require.NoError(t, f.store.DeletePushConfig(ctx, "t1", "a"))
	_, err = r.Resolve(ctx, jobs[0])
	assert.ErrorIs(t, err, notify.ErrGone)
	missing := jobs[1]
	missing.TaskID, missing.Task = "nope", nil
	_, err = r.Resolve(ctx, missing)
	assert.ErrorIs(t, err, notify.ErrGone)
}

// stubDeliverer answers from a list of results and counts attempts.
type stubDeliverer struct {
	mu       sync.Mutex
	outcomes []push.Outcome
	got      []push.Notification
}

func (d *stubDeliverer) Deliver(_ context.Context, n push.Notification) push.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, n)
	o := d.outcomes[min(len(d.got), len(d.outcomes))-1]
	r := push.Result{Outcome: o, At: time.Now(), StatusCode: 204}
	if o != push.Delivered {
		r.StatusCode, r.Err = 503, errors.New("hooks.example.com answered 503")
	}
	return r
}

func TestSender(t *testing.T) {
	f := newFixture(t, config("a", "https://hooks.example.com/a", a2a.V03))
	ctx := context.Background()
	d := &stubDeliverer{outcomes: []push.Outcome{push.Retryable, push.Delivered}}
	s := notify.NewSender(notify.NewResolver(f.store, nil), d, push.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second}, f.store, nil)
	job := notify.Jobs(change())[0]

	dec, err := s.Send(ctx, job, 1)
	require.NoError(t, err)
	assert.True(t, dec.Retry)
	assert.GreaterOrEqual(t, dec.Delay, 500*time.Millisecond)
	dl := f.delivery(t, "a")
	assert.Equal(t, "retrying", dl.State)
	require.Len(t, dl.Attempts, 1)
	a := dl.Attempts[0]
	assert.Equal(t, store.DeliveryAttempt{ConfigID: "a", Version: 3, Attempt: 1, At: a.At, StatusCode: 503, Error: "hooks.example.com answered 503",
		State: "retrying", NextAttemptAt: dec.Status.NextAttemptAt}, a)
	assert.False(t, a.NextAttemptAt.IsZero())

	dec, err = s.Send(ctx, job, 2)
	require.NoError(t, err)
	assert.False(t, dec.Retry)
	assert.Equal(t, push.StateDelivered, dec.Status.State)
	dl = f.delivery(t, "a")
	assert.Equal(t, "delivered", dl.State)
	assert.Len(t, dl.Attempts, 2)
	assert.Nil(t, dl.Job)

	d.outcomes = []push.Outcome{push.Retryable}
	dec, err = s.Send(ctx, job, 3)
	require.NoError(t, err)
	assert.False(t, dec.Retry, "the last attempt is not retried")
	assert.Equal(t, push.StateFailed, dec.Status.State)
	dl = f.delivery(t, "a")
	assert.Equal(t, "failed", dl.State)
	assert.True(t, dl.DeadLettered)
	assert.True(t, dl.Attempts[2].DeadLettered)
	kept, err := notify.DecodeJob(dl.Job)
	require.NoError(t, err)
	assert.Equal(t, job, kept, "the log keeps the job that failed, snapshot and all, to redrive it")

	require.NoError(t, f.store.DeletePushConfig(ctx, "t1", "a"))
	_, err = s.Send(ctx, job, 1)
	assert.ErrorIs(t, err, notify.ErrGone)
}

// localPipeline is the local server's pipeline: memory store changes ->
// notify.Local -> memqueue -> a real push.Deliverer -> a receiver that
// verifies against the fixture's keys; the queue's recorder logs the
// deliveries, with their jobs, in the store.
type localPipeline struct {
	*fixture
	rcv   *pushtest.Receiver
	queue *memqueue.Queue
	local *notify.Local
}

func newLocalPipeline(t *testing.T, retry push.RetryPolicy) *localPipeline {
	t.Helper()
	ks := newKeys(t)
	p := &localPipeline{rcv: pushtest.NewReceiver(t, ks, issuer)}
	p.fixture = &fixture{store: memory.New(memory.Options{OnChange: func(c store.TaskChange) { p.local.OnChange(c) }}), keys: ks}
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: issuer, Policy: egress.Policy{AllowInsecure: true}})
	require.NoError(t, err)
	rec := notify.NewRecorder(p.store, nil)
	p.queue, err = memqueue.New(memqueue.Options{Deliverer: d, Retry: retry, Recorder: rec})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.queue.Close(context.Background()) })
	p.local = notify.NewLocal(notify.NewResolver(p.store, nil), p.queue, rec, nil)
	return p
}

func TestLocalRetriesUntilDelivered(t *testing.T) {
	f := newLocalPipeline(t, push.RetryPolicy{MaxAttempts: 5, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond})
	ts, rcv, q := f.store, f.rcv, f.queue
	url := rcv.Hook("/flaky", pushtest.Behaviour{FailFirst: 3, Token: "tok-flaky"})

	ctx := context.Background()
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
		ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}},
	}}))
	require.NoError(t, ts.PutPushConfig(ctx, config("flaky", url, a2a.V03)))
	_, err := ts.UpdateTask(ctx, store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: a2a.FormatTime(time.Now())}})
	require.NoError(t, err)
	require.NoError(t, q.Wait(ctx))

	attempts := rcv.Attempts("/flaky")
	require.Len(t, attempts, 4, "three failures, then the delivery")
	delivered := rcv.Delivered("/flaky")
	require.Len(t, delivered, 1, "exactly one successful delivery")
	assert.Equal(t, "t1:2", delivered[0].EventID)
	for _, a := range attempts {
		require.NotNil(t, a.Notification, "every attempt verifies: %v", a.Err)
		assert.Equal(t, "t1:2", a.Notification.EventID, "the event id is the same on every retry")
	}
	dl := f.delivery(t, "flaky")
	assert.Equal(t, "delivered", dl.State)
	require.Len(t, dl.Attempts, 4, "four attempts logged")
	assert.Equal(t, 204, dl.Attempts[3].StatusCode)
	assert.Equal(t, 503, dl.Attempts[0].StatusCode)
	assert.Empty(t, q.DeadLetters())
}

func TestLocalHangingWebhookDelaysNobodyElse(t *testing.T) {
	p := newLocalPipeline(t, push.RetryPolicy{MaxAttempts: 1})
	ts, rcv := p.store, p.rcv
	release := make(chan struct{})
	defer close(release)
	slow := rcv.Hook("/slow", pushtest.Behaviour{Hang: release})
	fast := rcv.Hook("/fast", pushtest.Behaviour{})

	ctx := context.Background()
	for _, tc := range []struct{ task, url string }{{"slow-task", slow}, {"fast-task", fast}} {
		require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
			ID: tc.task, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
			History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + tc.task, Parts: []a2a.Part{a2a.TextPart("hi")}}},
		}}))
		c := config("hook", tc.url, a2a.V03)
		c.TaskID = tc.task
		require.NoError(t, ts.PutPushConfig(ctx, c))
		_, err := ts.UpdateTask(ctx, store.Update{TaskID: tc.task, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(time.Now())}})
		require.NoError(t, err)
	}
	rcv.WaitAttempts("/fast", 1, 5*time.Second)
	assert.Len(t, rcv.Delivered("/fast"), 1, "the fast webhook got its notification")
	assert.Empty(t, rcv.Attempts("/slow"), "while the slow one still hangs")
}

// A notification the local queue dead-letters is logged with its job, and
// Local.Redrive sends that job again, through the same queue and
// deliverer, with the same event id and body.
func TestLocalRedrive(t *testing.T) {
	f := newLocalPipeline(t, push.RetryPolicy{MaxAttempts: 3})
	ts, rcv, q, local := f.store, f.rcv, f.queue, f.local
	url := rcv.Hook("/hook", pushtest.Behaviour{Status: 410, Token: "tok-hook"})

	ctx := context.Background()
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: "alice", PushConfigs: []store.PushConfig{config("hook", url, a2a.V03)}, Task: a2a.Task{
		ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", Parts: []a2a.Part{a2a.TextPart("hi")}}},
	}}))
	_, err := ts.UpdateTask(ctx, store.Update{TaskID: "t1", Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(time.Now()),
		Message: &a2a.Message{Role: a2a.RoleAgent, MessageID: "s1", Parts: []a2a.Part{a2a.TextPart("step 1")}}}})
	require.NoError(t, err)
	require.NoError(t, q.Wait(ctx))
	require.Len(t, rcv.Attempts("/hook"), 1, "a permanent failure is not retried")
	dl := f.delivery(t, "hook")
	require.Equal(t, "failed", dl.State)
	require.NotEmpty(t, dl.Job)
	_, err = ts.UpdateTask(ctx, store.Update{TaskID: "t1", Checkpoint: []byte(`{"later":true}`), Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(time.Now())}})
	require.NoError(t, err)

	rcv.Hook("/hook", pushtest.Behaviour{Token: "tok-hook"}) // the webhook is fixed
	queued, err := ts.RedriveDelivery(ctx, "t1", "hook", 2)
	require.NoError(t, err)
	require.NoError(t, local.Redrive(ctx, *queued))
	require.NoError(t, q.Wait(ctx))

	got := rcv.Delivered("/hook")
	require.Len(t, got, 1)
	assert.Equal(t, "t1:2", got[0].EventID, "the redrive sends the same event")
	var task a2a.Task
	require.NoError(t, json.Unmarshal(got[0].Body, &task))
	assert.Equal(t, "step 1", task.Status.Message.Text(), "with the task as it was at that event")
	dl = f.delivery(t, "hook")
	assert.Equal(t, "delivered", dl.State)
	assert.Equal(t, 1, dl.Redrives)
	require.Len(t, dl.Attempts, 2)
	assert.Equal(t, 410, dl.Attempts[0].StatusCode)
	assert.Equal(t, 204, dl.Attempts[1].StatusCode)

	queued.Job = []byte(`{"taskId":"t1","configId":"other","version":2}`)
	assert.Error(t, local.Redrive(ctx, *queued), "a job of another delivery is refused")
}
