package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// fixture is a store on a table of its own, with the raw client, a clock
// and the requests the store made.
type fixture struct {
	t      *testing.T
	ctx    context.Context
	client *dynamodb.Client
	table  string
	clock  *clocktest.Clock
	store  *dynamo.Store

	mu    sync.Mutex
	usage []dynamo.Usage
	// read counts the items each Query returned.
	read []int32
}

const ttl = time.Hour

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, ctx: context.Background(), client: awstest.DynamoDB(t), clock: clocktest.New(clocktest.Start(t))}
	f.table = newTable(t, f.client)
	s, err := dynamo.New(recorder{f.client, f}, dynamo.Options{Table: f.table, Clock: f.clock, TaskTTL: ttl,
		OnUsage: func(u dynamo.Usage) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.usage = append(f.usage, u)
		}})
	require.NoError(t, err)
	f.store = s
	return f
}

// recorder counts the items every Query returns.
type recorder struct {
	*dynamodb.Client
	f *fixture
}

func (r recorder) Query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	out, err := r.Client.Query(ctx, in)
	if err == nil {
		r.f.mu.Lock()
		r.f.read = append(r.f.read, out.Count)
		r.f.mu.Unlock()
	}
	return out, err
}

// reset forgets the requests made so far.
func (f *fixture) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage, f.read = nil, nil
}

func (f *fixture) ops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ops := []string{}
	for _, u := range f.usage {
		ops = append(ops, u.Op)
	}
	return ops
}

func (f *fixture) create(taskID string) {
	f.t.Helper()
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + taskID, TaskID: taskID, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hi")}}
	require.NoError(f.t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
		ID: taskID, ContextID: "c", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
}

// createOwn creates alice's task of message messageID, with the id the
// service gives it (store.TaskIDFor), in a new context, holding the text,
// and returns its id.
func (f *fixture) createOwn(messageID, text string) string {
	f.t.Helper()
	id := store.TaskIDFor("alice", messageID)
	m := a2a.Message{Role: a2a.RoleUser, MessageID: messageID, TaskID: id, ContextID: "c-" + messageID, Parts: []a2a.Part{a2a.TextPart("hi" + text)}}
	require.NoError(f.t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", BindingKnown: true, Task: a2a.Task{
		ID: id, ContextID: m.ContextID, History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
	return id
}

func (f *fixture) update(u store.Update) int64 {
	f.t.Helper()
	v, err := f.store.UpdateTask(f.ctx, u)
	require.NoError(f.t, err)
	return v
}

func agentMsg(id string) *a2a.Message {
	return &a2a.Message{Role: a2a.RoleAgent, MessageID: id, Parts: []a2a.Part{a2a.TextPart(id)}}
}

func (f *fixture) status(state a2a.TaskState, msg *a2a.Message) *a2a.TaskStatus {
	return &a2a.TaskStatus{State: state, Message: msg, Timestamp: a2a.FormatTime(f.clock.Now())}
}

// partition reads a task's raw items.
func (f *fixture) partition(taskID string) []map[string]dynamodb.AttributeValue {
	f.t.Helper()
	out, err := f.client.Query(f.ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(f.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":pk": &dynamodb.AttributeValueMemberS{Value: "T#" + taskID}},
		ConsistentRead:            aws.Bool(true),
	})
	require.NoError(f.t, err)
	return out.Items
}

// GetTask reads the items it was asked for, in as few requests as the sort
// keys allow.
func TestGetReadsWhatItNeeds(t *testing.T) {
	f := newFixture(t)
	for _, arts := range []int{0, 1, 2} {
		taskID := fmt.Sprintf("t%d", arts)
		f.create(taskID)
		for i := range 5 { // six messages
			f.update(store.Update{TaskID: taskID, Status: f.status(a2a.TaskStateWorking, agentMsg(fmt.Sprintf("s%d", i)))})
		}
		for i := range arts {
			f.update(store.Update{TaskID: taskID, Artifacts: []a2a.Artifact{{ArtifactID: fmt.Sprintf("a%d", i), Parts: []a2a.Part{a2a.TextPart("x")}}}})
		}
	}
	for _, tc := range []struct {
		taskID   string
		opts     store.GetOptions
		requests int
		items    int32
	}{
		{"t2", store.GetOptions{}, 1, 1},
		{"t2", store.GetOptions{IncludeArtifacts: true}, 1, 3},
		{"t2", store.GetOptions{HistoryLength: 2}, 1, 3},
		// The first message is inside the task item.
		{"t2", store.GetOptions{HistoryLength: -1}, 1, 6},
		{"t2", store.AllHistory, 1, 8},
		{"t1", store.GetOptions{HistoryLength: 2, IncludeArtifacts: true}, 1, 4},
		// Without artifacts, one message more than needed (readAhead).
		{"t0", store.GetOptions{HistoryLength: 2, IncludeArtifacts: true}, 1, 4},
		// More artifacts than expected: a second page for the last message.
		{"t2", store.GetOptions{HistoryLength: 2, IncludeArtifacts: true}, 2, 5},
	} {
		t.Run(fmt.Sprintf("%s %+v", tc.taskID, tc.opts), func(t *testing.T) {
			f.reset()
			rec, err := f.store.GetTask(f.ctx, tc.taskID, tc.opts)
			require.NoError(t, err)
			want := min(6, max(tc.opts.HistoryLength, 0))
			if tc.opts.HistoryLength < 0 {
				want = 6
			}
			assert.Len(t, rec.Task.History, want)
			assert.Equal(t, strings.Fields(strings.Repeat("Query ", tc.requests)), f.ops(), "requests")
			var items int32
			for _, n := range f.read {
				items += n
			}
			assert.Equal(t, tc.items, items, "items read")
		})
	}
}

// Messages and artifacts never expire before their task, however long the
// task lives.
func TestChildrenOutliveTheirTask(t *testing.T) {
	f := newFixture(t)
	f.create("t1")
	f.update(store.Update{TaskID: "t1", Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("x")}}}})
	expiry := func(it map[string]dynamodb.AttributeValue) int64 {
		var v struct {
			ExpiresAt int64 `dynamodbav:"expiresAt"`
		}
		require.NoError(t, dynamodb.UnmarshalMap(it, &v))
		return v.ExpiresAt
	}
	firstChild := int64(0)
	version := int64(2)
	for step := range 6 { // 6 × 50 minutes: five TTLs and more
		f.clock.Advance(50 * time.Minute)
		u := store.Update{TaskID: "t1", Status: f.status(a2a.TaskStateWorking, agentMsg(fmt.Sprintf("s%d", step)))}
		if step%2 == 0 {
			u.IfVersion = version // conditioned writes learn of the expiry from the refused condition
		}
		version = f.update(u)

		items := f.partition("t1")
		var task int64
		children := map[string]int64{}
		for _, it := range items {
			sk := it["SK"].(*dynamodb.AttributeValueMemberS).Value
			if sk == "H" {
				task = expiry(it)
			} else {
				children[sk] = expiry(it)
			}
		}
		require.Equal(t, f.clock.Now().Add(ttl).Unix(), task, "step %d: the task's expiry", step)
		for sk, e := range children {
			assert.GreaterOrEqual(t, e, task, "step %d: %s expires before its task", step, sk)
			assert.LessOrEqual(t, e, task+int64(ttl/time.Second), "step %d: %s outlives its task by more than a TTL", step, sk)
		}
		if step == 0 {
			firstChild = children["A#a"]
		}
	}
	rec, err := f.store.GetTask(f.ctx, "t1", store.AllHistory)
	require.NoError(t, err)
	assert.Len(t, rec.Task.History, 7)
	assert.Len(t, rec.Task.Artifacts, 1)
	assert.Greater(t, expiry(f.partition("t1")[0]), firstChild, "the artifact was never extended")
}

// Content under the per-object limit whose sum exceeds DynamoDB's item
// limit is refused as too large, not as an internal error, and nothing is
// written.
func TestItemLimitIsTooLarge(t *testing.T) {
	chunk := strings.Repeat("z", 250<<10)
	big := &a2a.Message{Role: a2a.RoleAgent, MessageID: "s", Parts: []a2a.Part{a2a.TextPart(chunk)}}
	for _, tc := range []struct {
		name string
		do   func(f *fixture) error
	}{
		{"create: task and request metadata", func(f *fixture) error {
			m := a2a.Message{Role: a2a.RoleUser, MessageID: "m", Parts: []a2a.Part{a2a.TextPart("hi")}}
			return f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", RequestMetadata: a2a.Metadata{"blob": chunk},
				Task: a2a.Task{ID: "t2", History: []a2a.Message{m}, Metadata: a2a.Metadata{"blob": chunk}, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}})
		}},
		{"transaction: status message and request metadata", func(f *fixture) error {
			_, err := f.store.UpdateTask(f.ctx, store.Update{TaskID: "t1", IfVersion: 1,
				Status: f.status(a2a.TaskStateWorking, big), RequestMetadata: a2a.Metadata{"blob": chunk}})
			return err
		}},
		{"single item: request metadata then checkpoint", func(f *fixture) error {
			f.update(store.Update{TaskID: "t1", IfVersion: 1, RequestMetadata: a2a.Metadata{"blob": chunk}})
			_, err := f.store.UpdateTask(f.ctx, store.Update{TaskID: "t1", IfVersion: 2, Checkpoint: []byte(`"` + chunk + `"`)})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.create("t1")
			before, err := f.store.GetTask(f.ctx, "t1", store.AllHistory)
			require.NoError(t, err)
			err = tc.do(f)
			var tl *store.TooLargeError
			require.ErrorAs(t, err, &tl)
			assert.ErrorIs(t, err, store.ErrTooLarge)
			assert.Contains(t, tl.Error(), "DynamoDB")
			after, err := f.store.GetTask(f.ctx, "t1", store.AllHistory)
			require.NoError(t, err)
			assert.Len(t, after.Task.History, 1, "a message of the refused update was stored")
			assert.LessOrEqual(t, after.Version, before.Version+1)
			assert.Nil(t, after.Checkpoint)
			_, err = f.store.GetTask(f.ctx, "t2", store.GetOptions{})
			assert.ErrorIs(t, err, store.ErrNotFound)
		})
	}
}

// Every request is reported to the usage hook, named by its operation.
func TestUsageIsReported(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		do   func()
		ops  []string
	}{
		{"create", func() { f.create("t1") }, []string{"Query", "TransactWriteItems"}},
		{"create its own record", func() { f.createOwn("m-own", "") }, []string{"PutItem"}},
		{"status without message", func() {
			f.update(store.Update{TaskID: "t1", IfVersion: 1, Status: f.status(a2a.TaskStateWorking, nil)})
		},
			[]string{"UpdateItem"}},
		{"status with message", func() {
			f.update(store.Update{TaskID: "t1", IfVersion: 2, Status: f.status(a2a.TaskStateWorking, agentMsg("s"))})
		},
			[]string{"TransactWriteItems"}},
		{"unconditional", func() { f.update(store.Update{TaskID: "t1", Checkpoint: []byte(`{}`)}) }, []string{"GetItem", "UpdateItem"}},
		{"append", func() {
			f.update(store.Update{TaskID: "t1", IfVersion: 4, AppendArtifact: true, Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("x")}}}})
		}, []string{"GetItem", "TransactWriteItems"}},
		{"get", func() { f.store.GetTask(f.ctx, "t1", store.AllHistory) }, []string{"Query"}},
		// A COUNT and a page Query of each of the owner's 4 byOwner shards.
		{"list", func() { f.store.ListTasks(f.ctx, store.ListQuery{Owner: "alice", PageSize: 5}) }, append(slices.Repeat([]string{"Query"}, 8), "BatchGetItem")},
	} {
		f.reset()
		tc.do()
		assert.Equal(t, tc.ops, f.ops(), tc.name)
	}
}

// A cursor stays usable when the task it names changes (its index entry
// moves) before the next page is read.
func TestCursorSurvivesAChange(t *testing.T) {
	f := newFixture(t)
	for i := range 4 {
		f.create(fmt.Sprintf("t%d", i))
		f.clock.Advance(time.Second)
	}
	page, err := f.store.ListTasks(f.ctx, store.ListQuery{Owner: "alice", PageSize: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"t3", "t2"}, ids(page.Tasks))
	f.update(store.Update{TaskID: "t2", Status: f.status(a2a.TaskStateWorking, nil)})

	next, err := f.store.ListTasks(f.ctx, store.ListQuery{Owner: "alice", PageSize: 2, Cursor: page.NextCursor})
	require.NoError(t, err)
	assert.Equal(t, []string{"t1", "t0"}, ids(next.Tasks))
	assert.Empty(t, next.NextCursor)
}

func ids(recs []store.TaskRecord) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.Task.ID)
	}
	return out
}

// Reusing a live task's id is an error, not a duplicate send.
func TestCreateExistingID(t *testing.T) {
	f := newFixture(t)
	f.create("t1")
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "other", Parts: []a2a.Part{a2a.TextPart("hi")}}
	err := f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", Task: a2a.Task{ID: "t1", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}})
	require.Error(t, err)
	var de *store.DuplicateError
	assert.NotErrorAs(t, err, &de)
	assert.Contains(t, err.Error(), "already exists")
}

// The table has the layout the deployment template declares.
func TestCreateTable(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, dynamo.CreateTable(f.ctx, f.client, f.table), "creating an existing table is not an error")
	d, err := f.client.DescribeTable(f.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(f.table)})
	require.NoError(t, err)
	tbl := d.Table
	assert.Equal(t, dynamodb.BillingModePayPerRequest, tbl.BillingModeSummary.BillingMode)
	assert.Equal(t, dynamodb.StreamViewTypeNewAndOldImages, tbl.StreamSpecification.StreamViewType)
	indexes := map[string]string{}
	projects := map[string][]string{
		"byOwner":   {"state", "expiresAt"},
		"byContext": {"state", "expiresAt"},
		"byLease":   {"state", "expiresAt", "leaseOwner", "leaseTrigger", "takeovers"},
	}
	for _, g := range tbl.GlobalSecondaryIndexes {
		indexes[*g.IndexName] = *g.KeySchema[0].AttributeName + "/" + *g.KeySchema[1].AttributeName
		assert.ElementsMatch(t, projects[*g.IndexName], g.Projection.NonKeyAttributes, *g.IndexName)
	}
	assert.Equal(t, map[string]string{"byOwner": "listOwner/listSK", "byContext": "listContext/listSK", "byLease": "leaseShard/leaseUntil"}, indexes)
	ttlDesc, err := f.client.DescribeTimeToLive(f.ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(f.table)})
	require.NoError(t, err)
	assert.Equal(t, dynamodb.TimeToLiveStatusEnabled, ttlDesc.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "expiresAt", aws.ToString(ttlDesc.TimeToLiveDescription.AttributeName))
}

// A deferred job is recorded on the task, read back whole, and cleared by
// the next status change; terminal tasks need none.
func TestDefer(t *testing.T) {
	f := newFixture(t)
	f.create("t1")
	job, _, err := f.store.DeferredJob(f.ctx, "t1")
	require.NoError(t, err)
	assert.Nil(t, job, "a new task awaits nothing yet")

	recorded := []byte(`{"messageId":"m-t1","reply":{"requestId":"r","type":"question","answers":[["yes"]]}}`)
	require.NoError(t, f.store.Defer(f.ctx, "t1", recorded))
	job, since, err := f.store.DeferredJob(f.ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, recorded, job)
	assert.True(t, since.Equal(f.clock.Now()))
	rec, err := f.store.GetTask(f.ctx, "t1", store.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), rec.Version, "deferring is not a task update")

	f.update(store.Update{TaskID: "t1", IfVersion: 1, Status: f.status(a2a.TaskStateWorking, nil)})
	job, _, err = f.store.DeferredJob(f.ctx, "t1")
	require.NoError(t, err)
	assert.Nil(t, job, "a runner took the task")

	f.update(store.Update{TaskID: "t1", Status: f.status(a2a.TaskStateCanceled, nil)})
	assert.NoError(t, f.store.Defer(f.ctx, "t1", recorded), "a terminal task needs no runner")
	job, _, err = f.store.DeferredJob(f.ctx, "t1")
	require.NoError(t, err)
	assert.Nil(t, job)

	assert.ErrorIs(t, f.store.Defer(f.ctx, "nope", recorded), store.ErrNotFound)
	f.create("t2")
	f.clock.Advance(ttl)
	assert.ErrorIs(t, f.store.Defer(f.ctx, "t2", recorded), store.ErrNotFound, "expired")
}

// A message sent to a task whose step writes without pause (an agent
// streaming chunks) joins its inbox at once, and the step's writes go on:
// an inbox append is not conditioned on the task's version and does not
// change it.
func TestInboxBeatsABusyStep(t *testing.T) {
	f := newFixture(t)
	f.create("busy")
	v := f.update(store.Update{TaskID: "busy", Status: f.status(a2a.TaskStateWorking, nil)})

	stop := make(chan struct{})
	stepDone := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				stepDone <- nil
				return
			default:
			}
			next, err := f.store.UpdateTask(f.ctx, store.Update{TaskID: "busy", IfVersion: v, Artifacts: []a2a.Artifact{{
				ArtifactID: "stream", Parts: []a2a.Part{a2a.TextPart(fmt.Sprint(i))},
			}}})
			if err != nil {
				stepDone <- fmt.Errorf("step write %d: %w", i, err)
				return
			}
			v = next
		}
	}()

	const sent = 10
	for i := range sent {
		m := a2a.Message{Role: a2a.RoleUser, MessageID: fmt.Sprintf("more-%d", i), TaskID: "busy", ContextID: "c", Parts: []a2a.Part{a2a.TextPart(fmt.Sprint(i))}}
		_, err := f.store.UpdateTask(f.ctx, store.Update{TaskID: "busy", Messages: []a2a.Message{m}, Inbox: true,
			IfStates: []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, IdempotencyKey: m.MessageID, Owner: "alice"})
		require.NoError(t, err, "message %d", i)
	}
	close(stop)
	require.NoError(t, <-stepDone, "the step never conflicts with a message")
	rec, err := f.store.GetTask(f.ctx, "busy", store.AllHistory)
	require.NoError(t, err)
	assert.Greater(t, rec.Version, int64(sent), "the step wrote while the messages came")
	var history []string
	for _, m := range rec.Task.History[1:] {
		history = append(history, m.MessageID)
	}

	inbox, err := f.store.TakeInbox(f.ctx, "busy")
	require.NoError(t, err)
	got := make([]string, len(inbox))
	for i, m := range inbox {
		got[i] = m.MessageID
	}
	want := make([]string, sent)
	for i := range want {
		want[i] = fmt.Sprintf("more-%d", i)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, want, history, "in the history too, in order")
}

// A task written by the layout before the first message moved into the
// task item (the message as the history item at version 1, no
// firstMessage) reads and updates as before; so does a task whose first
// message is too large to be kept inline.
func TestFirstMessageOfEitherLayout(t *testing.T) {
	f := newFixture(t)
	texts := func(h []a2a.Message) []string {
		s := []string{}
		for _, m := range h {
			s = append(s, m.Parts[0].Text)
		}
		return s
	}
	f.create("new")
	items := f.partition("new")
	require.Len(t, items, 1, "a small first message has no item of its own")
	require.Contains(t, items[0], "firstMessage")

	// old: created now, then rewritten as the old layout wrote it.
	f.create("old")
	task := f.partition("old")[0]
	msg := task["firstMessage"]
	delete(task, "firstMessage")
	child := map[string]dynamodb.AttributeValue{
		"PK": task["PK"], "SK": &dynamodb.AttributeValueMemberS{Value: "H#9999999998#999"},
		"data": msg, "expiresAt": task["childrenExpireAt"],
	}
	for _, it := range []map[string]dynamodb.AttributeValue{task, child} {
		_, err := f.client.PutItem(f.ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: it})
		require.NoError(t, err)
	}

	// large: a first message above the inline bound keeps its own item.
	big := strings.Repeat("x", 2000)
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-large", TaskID: "large", ContextID: "c", Parts: []a2a.Part{a2a.TextPart(big)}}
	require.NoError(t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
		ID: "large", ContextID: "c", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
	require.Len(t, f.partition("large"), 2)
	require.NotContains(t, f.partition("large")[0], "firstMessage")

	for id, firstText := range map[string]string{"new": "hi", "old": "hi", "large": big} {
		f.update(store.Update{TaskID: id, Status: f.status(a2a.TaskStateWorking, agentMsg("s1"))})
		f.update(store.Update{TaskID: id, Status: f.status(a2a.TaskStateWorking, agentMsg("s2"))})
		for _, tc := range []struct {
			opts store.GetOptions
			want []string
		}{
			{store.GetOptions{HistoryLength: -1}, []string{firstText, "s1", "s2"}},
			{store.AllHistory, []string{firstText, "s1", "s2"}},
			{store.GetOptions{HistoryLength: 3, IncludeArtifacts: true}, []string{firstText, "s1", "s2"}},
			{store.GetOptions{HistoryLength: 5}, []string{firstText, "s1", "s2"}},
			{store.GetOptions{HistoryLength: 2}, []string{"s1", "s2"}},
			{store.GetOptions{HistoryLength: 1, IncludeArtifacts: true}, []string{"s2"}},
			{store.GetOptions{}, []string{}},
		} {
			rec, err := f.store.GetTask(f.ctx, id, tc.opts)
			require.NoError(t, err, id)
			assert.Equal(t, tc.want, texts(rec.Task.History), "%s %+v", id, tc.opts)
		}
		// A retried first message is still a duplicate of its task.
		err := f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", Task: a2a.Task{
			ID: id + "-again", ContextID: "c",
			History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m-" + id, Parts: []a2a.Part{a2a.TextPart("hi")}}},
			Status:  a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
		}})
		var dup *store.DuplicateError
		require.ErrorAs(t, err, &dup, id)
		assert.Equal(t, id, dup.TaskID)
	}
}

// A task with the id the service gives it is its own idempotency record:
// one PutItem creates it, a retry is its duplicate, and once it expired the
// id serves a new task, which none of the old one's items joins.
func TestTaskIsItsOwnRecord(t *testing.T) {
	f := newFixture(t)
	id := f.createOwn("m1", "")
	dup := func(nt store.NewTask) {
		t.Helper()
		var de *store.DuplicateError
		require.ErrorAs(t, f.store.CreateTask(f.ctx, nt), &de)
		assert.Equal(t, id, de.TaskID)
	}
	first := a2a.Message{Role: a2a.RoleUser, MessageID: "m1", ContextID: "c", Parts: []a2a.Part{a2a.TextPart("again")}}
	status := a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())}
	dup(store.NewTask{Owner: "alice", BindingKnown: true, Task: a2a.Task{ID: id, ContextID: "c", Status: status, History: []a2a.Message{first}}})
	dup(store.NewTask{Owner: "alice", Task: a2a.Task{ID: "another", ContextID: "c", Status: status, History: []a2a.Message{first}}})
	_, err := f.store.GetTask(f.ctx, "another", store.GetOptions{})
	require.ErrorIs(t, err, store.ErrNotFound)

	// The task takes messages and artifacts of their own items.
	big := strings.Repeat("x", 2000)
	f.update(store.Update{TaskID: id, Messages: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m2", Parts: []a2a.Part{a2a.TextPart(big)}}},
		Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart(big)}}}})
	rec, err := f.store.GetTask(f.ctx, id, store.AllHistory)
	require.NoError(t, err)
	require.Len(t, rec.Task.History, 2)
	require.Len(t, rec.Task.Artifacts, 1)

	f.clock.Advance(ttl)
	f.reset()
	again := f.createOwn("m1", " once more")
	assert.Equal(t, id, again)
	rec, err = f.store.GetTask(f.ctx, id, store.AllHistory)
	require.NoError(t, err)
	assert.Equal(t, int64(1), rec.Version)
	require.Len(t, rec.Task.History, 1, "the expired task's messages are gone")
	assert.Equal(t, "hi once more", rec.Task.History[0].Parts[0].Text)
	assert.Empty(t, rec.Task.Artifacts, "the expired task's artifacts are gone")
	assert.Contains(t, f.ops(), "DeleteItem")
}

// A table written before issue 16: its tasks have no contextSession, and it
// holds context items and idempotency records of their own, which are no
// longer read. Old tasks read, list and make contexts as new ones do.
func TestOldLayoutTable(t *testing.T) {
	f := newFixture(t)
	s := func(v string) dynamodb.AttributeValue { return &dynamodb.AttributeValueMemberS{Value: v} }
	// The task as the old layout wrote it: its own session and no copy of
	// its context's, no record at the key of its message's task.
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-old", TaskID: "old", ContextID: "ctx-old", Parts: []a2a.Part{a2a.TextPart("hi")}}
	require.NoError(t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", SessionID: "old-session", BindingKnown: true, Task: a2a.Task{
		ID: "old", ContextID: "ctx-old", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
	task := f.partition("old")[0]
	delete(task, "contextSession")
	expires := task["expiresAt"]
	for _, it := range []map[string]dynamodb.AttributeValue{
		task,
		{"PK": s("X#" + strings.Repeat("a", 64)), "SK": s("X"), "owner": s("alice"), "contextId": s("ctx-old"), "taskCount": &dynamodb.AttributeValueMemberN{Value: "7"},
			"updatedAtTS": s("2020-01-01T00:00:00.000000Z"), "sessionId": s("old-session"), "expiresAt": expires,
			"listOwner": s("X#alice"), "listSK": s("2020-01-01T00:00:00.000000Z#" + strings.Repeat("a", 64))},
		{"PK": s("I#" + strings.Repeat("b", 64)), "SK": s("I"), "taskId": s("old"), "expiresAt": expires},
	} {
		_, err := f.client.PutItem(f.ctx, &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: it})
		require.NoError(t, err)
	}
	_, err := f.client.DeleteItem(f.ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.table),
		Key: map[string]dynamodb.AttributeValue{"PK": s("T#" + store.TaskIDFor("alice", "m-old")), "SK": s("H")}})
	require.NoError(t, err)

	rec, err := f.store.GetTask(f.ctx, "old", store.AllHistory)
	require.NoError(t, err)
	assert.Equal(t, "old-session", rec.SessionID)
	c, err := f.store.GetContext(f.ctx, "alice", "ctx-old")
	require.NoError(t, err)
	assert.Equal(t, store.ContextRecord{Owner: "alice", ContextID: "ctx-old", TaskCount: 1, UpdatedAt: rec.Task.Status.Timestamp, SessionID: "old-session"}, *c,
		"the context comes from its task, not from the old context item")
	page, err := f.store.ListContexts(f.ctx, store.ContextQuery{Owner: "alice", PageSize: 10})
	require.NoError(t, err)
	require.Len(t, page.Contexts, 1)
	assert.Equal(t, "ctx-old", page.Contexts[0].ContextID)

	// A new task in the old context keeps the old task's session bound.
	f.clock.Advance(time.Second)
	m2 := a2a.Message{Role: a2a.RoleUser, MessageID: "m-new", ContextID: "ctx-old", Parts: []a2a.Part{a2a.TextPart("more")}}
	require.NoError(t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", SessionID: "new-session", Task: a2a.Task{
		ID: store.TaskIDFor("alice", "m-new"), ContextID: "ctx-old", History: []a2a.Message{m2},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
	c, err = f.store.GetContext(f.ctx, "alice", "ctx-old")
	require.NoError(t, err)
	assert.Equal(t, 2, c.TaskCount)
	assert.Equal(t, "old-session", c.SessionID)

	// The old idempotency record is not read: the message, sent again as
	// a new task, makes one (see docs/dynamodb.md, "Migrations").
	require.NoError(t, f.store.CreateTask(f.ctx, store.NewTask{Owner: "alice", BindingKnown: true, Task: a2a.Task{
		ID: store.TaskIDFor("alice", "m-old"), ContextID: "ctx-2", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())},
	}}))
}

// A retried blocking send's refused write returns the task its first send
// created finished, whole (messages and artifacts inside its item): the
// retry answers with it without reading it. A task that is not whole in its
// item (at work, or with items of its own) is refused without it.
func TestDuplicateOfAFinishedTaskCarriesIt(t *testing.T) {
	f := newFixture(t)
	id := store.TaskIDFor("alice", "m1")
	first := a2a.Message{Role: a2a.RoleUser, MessageID: "m1", TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hello")}}
	done := a2a.Message{Role: a2a.RoleAgent, MessageID: "s1", TaskID: id, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("done")}}
	finished := store.NewTask{Owner: "alice", BindingKnown: true, SessionID: "sess", Task: a2a.Task{ID: id, ContextID: "c",
		Status:    a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: &done, Timestamp: a2a.FormatTime(f.clock.Now())},
		History:   []a2a.Message{first, done},
		Artifacts: []a2a.Artifact{{ArtifactID: "a", Parts: []a2a.Part{a2a.TextPart("echo: hello")}}},
	}}
	require.NoError(t, f.store.CreateTask(f.ctx, finished))
	stored, err := f.store.GetTask(f.ctx, id, store.AllHistory)
	require.NoError(t, err)

	var de *store.DuplicateError
	require.ErrorAs(t, f.store.CreateTask(f.ctx, finished), &de)
	require.NotNil(t, de.Task, "the refused write returned the whole task")
	assert.Equal(t, stored.Task, de.Task.Task)
	assert.Equal(t, "alice", de.Task.Owner)
	assert.Equal(t, "sess", de.Task.SessionID)

	// A task still at work is refused without it.
	at := store.TaskIDFor("alice", "m2")
	second := a2a.Message{Role: a2a.RoleUser, MessageID: "m2", TaskID: at, ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hi")}}
	working := store.NewTask{Owner: "alice", BindingKnown: true, Task: a2a.Task{ID: at, ContextID: "c",
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(f.clock.Now())}, History: []a2a.Message{second}}}
	require.NoError(t, f.store.CreateTask(f.ctx, working))
	require.ErrorAs(t, f.store.CreateTask(f.ctx, working), &de)
	assert.Equal(t, at, de.TaskID)
	assert.Nil(t, de.Task)
}
