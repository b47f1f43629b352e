package dynamo_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
)

// attr reads a string attribute of a task item as stored.
func (f *fixture) attr(taskID, name string) string {
	f.t.Helper()
	out, err := f.client.GetItem(f.ctx, &dynamodb.GetItemInput{TableName: aws.String(f.table), ConsistentRead: aws.Bool(true),
		Key: map[string]dynamodb.AttributeValue{"PK": &dynamodb.AttributeValueMemberS{Value: "T#" + taskID}, "SK": &dynamodb.AttributeValueMemberS{Value: "H"}}})
	require.NoError(f.t, err)
	v, _ := out.Item[name].(*dynamodb.AttributeValueMemberS)
	if v == nil {
		return ""
	}
	return v.Value
}

// setAttr writes a string attribute of a task item, as an earlier version
// of the store wrote it.
func (f *fixture) setAttr(taskID, name, value string) {
	f.t.Helper()
	_, err := f.client.UpdateItem(f.ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.table),
		Key:                      map[string]dynamodb.AttributeValue{"PK": &dynamodb.AttributeValueMemberS{Value: "T#" + taskID}, "SK": &dynamodb.AttributeValueMemberS{Value: "H"}},
		UpdateExpression:         aws.String("SET #a = :v"),
		ExpressionAttributeNames: map[string]string{"#a": name}, ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":v": &dynamodb.AttributeValueMemberS{Value: value}}})
	require.NoError(f.t, err)
}

// pageAll reads pages from fetch, from no cursor on, until one has no next
// cursor, checking that only the last page is short; it returns the ids.
func pageAll(t *testing.T, pageSize int, fetch func(cursor string) (ids []string, next string)) []string {
	t.Helper()
	var all []string
	cursor := ""
	for range 100 {
		ids, next := fetch(cursor)
		all = append(all, ids...)
		if next == "" {
			return all
		}
		require.Len(t, ids, pageSize, "only the last page is short")
		cursor = next
	}
	t.Fatal("paging does not end")
	return nil
}

// listed pages through alice's tasks and returns their ids in order,
// checking each page's total.
func (f *fixture) listed(q store.ListQuery, pageSize, total int) []string {
	f.t.Helper()
	q.Owner, q.PageSize = "alice", pageSize
	return pageAll(f.t, pageSize, func(cursor string) ([]string, string) {
		q.Cursor = cursor
		page, err := f.store.ListTasks(f.ctx, q)
		require.NoError(f.t, err)
		assert.Equal(f.t, total, page.Total)
		var ids []string
		for _, r := range page.Tasks {
			ids = append(ids, r.Task.ID)
		}
		return ids, page.NextCursor
	})
}

// contexts pages through alice's contexts and returns their ids in order.
func (f *fixture) contexts(pageSize int) []string {
	f.t.Helper()
	return pageAll(f.t, pageSize, func(cursor string) ([]string, string) {
		page, err := f.store.ListContexts(f.ctx, store.ContextQuery{Owner: "alice", PageSize: pageSize, Cursor: cursor})
		require.NoError(f.t, err)
		var ids []string
		for _, c := range page.Contexts {
			ids = append(ids, c.ContextID)
		}
		return ids, page.NextCursor
	})
}

// One caller's tasks are written to several byOwner partitions (shards),
// and read back as one list: newest status first across shards, every
// page size, every filter, totals, cursors, contexts.
func TestListAcrossShards(t *testing.T) {
	f := newFixture(t)
	type task struct {
		id, context, status string
		working             bool
	}
	var tasks []task
	for i := range 24 {
		id := f.createOwn(fmt.Sprintf("m-%02d", i), "")
		tasks = append(tasks, task{id: id, context: "c-" + fmt.Sprintf("m-%02d", i), status: a2a.FormatTime(f.clock.Now())})
		f.clock.Advance(time.Second)
	}
	for i := 0; i < 24; i += 3 { // every third moves up the list
		f.update(store.Update{TaskID: tasks[i].id, IfVersion: 1, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(f.clock.Now())}})
		tasks[i].status, tasks[i].working = a2a.FormatTime(f.clock.Now()), true
		f.clock.Advance(time.Second)
	}
	shards := map[string]bool{}
	for _, tk := range tasks {
		key := f.attr(tk.id, "listOwner")
		require.True(t, strings.HasSuffix(key, "#alice"), key)
		shards[key] = true
	}
	assert.Len(t, shards, 4, "alice's 24 tasks spread over the shards: %v", shards)

	slices.SortFunc(tasks, func(a, b task) int { return cmp.Or(cmp.Compare(b.status, a.status), cmp.Compare(b.id, a.id)) })
	var all, working, recent, contexts []string
	after := tasks[15].status
	for _, tk := range tasks {
		all, contexts = append(all, tk.id), append(contexts, tk.context)
		if tk.working {
			working = append(working, tk.id)
		}
		if tk.status > after {
			recent = append(recent, tk.id)
		}
	}
	for _, size := range []int{1, 5, 100} {
		assert.Equal(t, all, f.listed(store.ListQuery{}, size, 24), "page size %d", size)
	}
	for _, size := range []int{3, 100} {
		assert.Equal(t, working, f.listed(store.ListQuery{State: a2a.TaskStateWorking}, size, len(working)), "working, page size %d", size)
		assert.Equal(t, recent, f.listed(store.ListQuery{StatusAfter: after}, size, len(recent)), "after, page size %d", size)
	}
	for _, size := range []int{1, 7, 50} {
		assert.Equal(t, contexts, f.contexts(size), "contexts, page size %d", size)
	}
}

// A table written before sharding keeps working: entries under the
// unsharded keys (listOwner O#<owner>, leaseShard L) are shard 0, listed
// and swept with the others; a lease taken over moves to its task's shard.
func TestIndexKeysWrittenBeforeSharding(t *testing.T) {
	f := newFixture(t)
	var ids []string
	for i := range 12 {
		id := f.createOwn(fmt.Sprintf("m-%02d", i), "")
		ids = append(ids, id)
		f.clock.Advance(time.Second)
	}
	// As an earlier version wrote them: every entry under O#alice, and
	// leases under L.
	for _, id := range ids[:6] {
		f.setAttr(id, "listOwner", "O#alice")
	}
	var leased []string
	for i, id := range ids[6:] {
		lease := store.Lease{Owner: "runner", Until: f.clock.Now().Add(time.Duration(i+1) * time.Second), Trigger: store.TriggerMessage}
		f.update(store.Update{TaskID: id, IfVersion: 1, Status: &a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(f.clock.Now())}, Lease: lease})
		f.setAttr(id, "leaseShard", "L")
		leased = append(leased, id)
	}
	assert.Len(t, f.listed(store.ListQuery{}, 5, 12), 12, "old and new entries are listed together")

	f.clock.Advance(time.Minute)
	lapsed, err := f.store.LapsedLeases(f.ctx, f.clock.Now(), 10)
	require.NoError(t, err)
	var found []string
	for _, l := range lapsed {
		found = append(found, l.TaskID)
	}
	assert.Equal(t, leased, found, "leases under L are found, the oldest first")

	// Taken over, a lease moves to its task's shard, where the sweep finds
	// it again when it lapses.
	moved := 0
	for _, l := range lapsed {
		_, err := f.store.TakeOver(f.ctx, l, "sweeper", f.clock.Now().Add(time.Second))
		require.NoError(t, err)
		if f.attr(l.TaskID, "leaseShard") != "L" {
			moved++
		}
	}
	assert.Positive(t, moved, "leases moved out of L")
	f.clock.Advance(time.Minute)
	lapsed, err = f.store.LapsedLeases(f.ctx, f.clock.Now(), 10)
	require.NoError(t, err)
	assert.Len(t, lapsed, len(leased))
}

// What reading over shards costs, in requests and estimated read units
// (pkg/testkit/dynamocost: DynamoDB's published rules on the items' real
// sizes): a tasks/list page reads every byOwner shard of its caller (a
// COUNT and a page Query each, at least 0.5 read units apiece), a sweep
// every byLease shard. Run with -v for the figures.
func TestReadingOverShardsCosts(t *testing.T) {
	f := newFixture(t)
	meter, err := dynamocost.New(f.ctx, f.client, f.table)
	require.NoError(t, err)
	ts, err := dynamo.New(meter, dynamo.Options{Table: f.table, Clock: f.clock, TaskTTL: ttl})
	require.NoError(t, err)
	created := 0
	for _, tc := range []struct {
		tasks   int
		maxRead float64
	}{
		{20, 11},
		{100, 12},
	} {
		for ; created < tc.tasks; created++ {
			f.createOwn(fmt.Sprintf("cost-%03d", created), "")
			f.clock.Advance(time.Millisecond)
		}
		meter.Reset()
		page, err := ts.ListTasks(f.ctx, store.ListQuery{Owner: "alice", PageSize: 10})
		require.NoError(t, err)
		require.Len(t, page.Tasks, 10)
		require.Equal(t, tc.tasks, page.Total)
		c := meter.Counts()
		t.Logf("tasks/list of 10 of %d tasks: %s, %.1f read units", tc.tasks, c.Ops(), c.Read)
		assert.Equal(t, "1×BatchGetItem, 8×Query", c.Ops(), "a COUNT and a page Query of each of alice's 4 shards")
		assert.LessOrEqual(t, c.Read, tc.maxRead)
	}
	meter.Reset()
	lapsed, err := ts.LapsedLeases(f.ctx, f.clock.Now(), 10)
	require.NoError(t, err)
	require.Empty(t, lapsed)
	c := meter.Counts()
	t.Logf("a sweep with nothing stuck: %s, %.1f read units", c.Ops(), c.Read)
	assert.Equal(t, "16×Query", c.Ops())
	assert.Equal(t, 8.0, c.Read)
}
