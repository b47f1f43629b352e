package follow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/syncbuf"
)

// fakeStreams is a stream in memory: shards with their records, whose
// iterators are "shard@position". It records the calls made of it, and
// refuses the calls it is told to.
type fakeStreams struct {
	mu     sync.Mutex
	shards []streamscall.Shard
	// page is how many shards DescribeStream lists at once (0: all).
	page    int
	records map[string][]events.DynamoDBEventRecord
	// closed shards end after their records.
	closed map[string]bool
	// refuse is the error the next call of the operation (with the shard,
	// for GetRecords: "GetRecords shard") fails with.
	refuse map[string]error
	calls  []string
}

func newFakeStreams(shards ...streamscall.Shard) *fakeStreams {
	return &fakeStreams{shards: shards, records: map[string][]events.DynamoDBEventRecord{}, closed: map[string]bool{}, refuse: map[string]error{}}
}

func (f *fakeStreams) DescribeStream(_ context.Context, arn, after string) (streamscall.Stream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, strings.TrimSpace("DescribeStream "+after))
	if err := f.refused("DescribeStream"); err != nil {
		return streamscall.Stream{}, err
	}
	i := 0
	if after != "" {
		i = slices.IndexFunc(f.shards, func(s streamscall.Shard) bool { return s.ID == after }) + 1
	}
	j := len(f.shards)
	if f.page > 0 && i+f.page < j {
		j = i + f.page
	}
	out := streamscall.Stream{Status: "ENABLED", Shards: slices.Clone(f.shards[i:j])}
	if j < len(f.shards) {
		out.LastEvaluatedShardID = f.shards[j-1].ID
	}
	return out, nil
}

func (f *fakeStreams) GetShardIterator(_ context.Context, arn, shard string, from streamscall.IteratorType, seq string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, strings.TrimSpace(fmt.Sprintf("GetShardIterator %s %s %s", shard, from, seq)))
	if err := f.refused("GetShardIterator"); err != nil {
		return "", err
	}
	recs := f.records[shard]
	pos := 0
	switch from {
	case streamscall.Latest:
		pos = len(recs)
	case streamscall.AfterSequenceNumber:
		pos = slices.IndexFunc(recs, func(r events.DynamoDBEventRecord) bool { return r.Change.SequenceNumber == seq }) + 1
	}
	return fmt.Sprintf("%s@%d", shard, pos), nil
}

func (f *fakeStreams) GetRecords(_ context.Context, it string) (streamscall.Records, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	shard, at, _ := strings.Cut(it, "@")
	f.calls = append(f.calls, "GetRecords "+it)
	if err := f.refused("GetRecords " + shard); err != nil {
		return streamscall.Records{}, err
	}
	pos, _ := strconv.Atoi(at)
	recs := f.records[shard]
	out := streamscall.Records{Records: slices.Clone(recs[pos:])}
	if !f.closed[shard] {
		out.NextShardIterator = fmt.Sprintf("%s@%d", shard, len(recs))
	}
	return out, nil
}

func (f *fakeStreams) refused(call string) error {
	err := f.refuse[call]
	delete(f.refuse, call)
	return err
}

// add appends records of tasks named by their sequence numbers to shard.
func (f *fakeStreams) add(shard string, seqs ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, seq := range seqs {
		f.records[shard] = append(f.records[shard], taskRecord(seq))
	}
}

func (f *fakeStreams) set(fn func(f *fakeStreams)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// took returns the calls made since the last took.
func (f *fakeStreams) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// taskRecord is the stream record of task "t"+seq going from submitted to
// working, with a webhook: a change to tell.
func taskRecord(seq string) events.DynamoDBEventRecord {
	image := func(state string, version string) map[string]events.DynamoDBAttributeValue {
		return map[string]events.DynamoDBAttributeValue{
			"PK": events.NewStringAttribute("T#t" + seq), "SK": events.NewStringAttribute("H"),
			"contextId": events.NewStringAttribute("c"), "state": events.NewStringAttribute(state),
			"status":  events.NewStringAttribute(`{"state":"` + state + `","timestamp":"2026-11-22T10:00:00Z"}`),
			"version": events.NewNumberAttribute(version), "createdAt": events.NewNumberAttribute("1"),
			"pushConfigs": events.NewStringSetAttribute([]string{"h"}),
		}
	}
	return events.DynamoDBEventRecord{EventID: "e" + seq, EventName: "MODIFY", Change: events.DynamoDBStreamRecord{
		Keys:     map[string]events.DynamoDBAttributeValue{"PK": events.NewStringAttribute("T#t" + seq), "SK": events.NewStringAttribute("H")},
		OldImage: image("submitted", "1"), NewImage: image("working", "2"), SequenceNumber: seq,
	}}
}

// run is a follower of a fake stream on a fake clock, with the ids of the
// tasks whose changes it passed on and its logs.
type run struct {
	t     *testing.T
	clock *clocktest.Clock
	logs  *syncbuf.Buffer
	mu    sync.Mutex
	seen  []string
}

func start(t *testing.T, api Streams) *run {
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{t: t, clock: clocktest.New(clocktest.Start(t)), logs: &syncbuf.Buffer{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Changes(ctx, api, "arn", func(c store.TaskChange) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.seen = append(r.seen, c.Task.ID)
		}, Options{Clock: r.clock, Log: slog.New(slog.NewJSONHandler(r.logs, nil))})
	}()
	t.Cleanup(func() { cancel(); <-done })
	r.idle()
	return r
}

// idle waits until the follower waits for its next poll.
func (r *run) idle() {
	r.t.Helper()
	require.Eventually(r.t, func() bool { return r.clock.Timers() == 1 }, 5*time.Second, time.Millisecond, "the follower waits for its next poll")
}

// poll lets d pass, and waits for the follower to be idle again.
func (r *run) poll(d time.Duration) {
	r.t.Helper()
	r.clock.Advance(d)
	r.idle()
}

func (r *run) took() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}

func listed(id, parent string) streamscall.Shard { return streamscall.Shard{ID: id, ParentID: parent} }

// The follower starts at the newest records of the shards it finds first,
// lists the shards again every 10 s only (over every page of them), reads a
// shard found later from its first record but only once its parent is
// read to its end, and forgets the shards the stream no longer lists.
func TestChangesFollowsShards(t *testing.T) {
	api := newFakeStreams(listed("s1", ""), listed("s0", ""))
	api.page = 1
	api.add("s1", "10") // before the start: not news
	r := start(t, api)
	calls := api.took()
	require.Len(t, calls, 6)
	assert.Equal(t, []string{"DescribeStream", "DescribeStream s1"}, calls[:2], "both pages of shards")
	assert.ElementsMatch(t, []string{"GetShardIterator s0 LATEST", "GetShardIterator s1 LATEST", "GetRecords s0@0", "GetRecords s1@1"}, calls[2:])
	assert.Empty(t, r.took())

	api.add("s1", "11", "12")
	r.poll(followPoll)
	assert.Equal(t, []string{"t11", "t12"}, r.took())
	assert.NotContains(t, api.took(), "DescribeStream", "no listing before 10 s")

	for range followListShards/followPoll - 2 {
		r.poll(followPoll)
	}
	assert.NotContains(t, api.took(), "DescribeStream", "not yet")
	// At the next listing, s1 has closed after one more record, which it
	// fails to give at first; its child s2 has records already.
	api.add("s1", "13")
	api.add("s2", "20", "21")
	api.set(func(f *fakeStreams) {
		f.closed["s1"] = true
		f.shards = append(f.shards, listed("s2", "s1"))
		f.refuse["GetRecords s1"] = errors.New("timeout")
	})
	r.poll(followPoll)
	assert.Equal(t, 3, countPrefix(api.took(), "DescribeStream"), "a listing, of three pages")
	assert.Empty(t, r.took(), "the child waits for its parent")
	r.poll(followPoll)
	assert.Equal(t, []string{"t13", "t20", "t21"}, r.took(), "the parent's records first, then the child's from its first")
	assert.Contains(t, api.took(), "GetShardIterator s2 TRIM_HORIZON")

	// s1 is past the stream's 24 hours: it is forgotten; s2 goes on.
	api.set(func(f *fakeStreams) { f.shards = f.shards[1:] })
	api.add("s2", "22")
	r.poll(followListShards)
	assert.Equal(t, []string{"t22"}, r.took())
	api.add("s2", "23")
	r.poll(followPoll)
	assert.Equal(t, []string{"t23"}, r.took())
}

// An expired iterator is renewed after the last record read (or where the
// shard was followed from, when none was); trimmed records make the
// follower read on from the oldest record kept; a shard the API no longer
// knows is left alone until a listing says it is still there.
func TestChangesRenewsIterators(t *testing.T) {
	api := newFakeStreams(listed("s1", ""), listed("s2", ""))
	api.add("s1", "10")
	r := start(t, api)
	api.add("s1", "11")
	r.poll(followPoll)
	require.Equal(t, []string{"t11"}, r.took())
	api.took()

	expired := &awscall.Error{Code: streamscall.ExpiredIterator, Message: "Iterator expired", StatusCode: 400}
	api.set(func(f *fakeStreams) { f.refuse["GetRecords s1"], f.refuse["GetRecords s2"] = expired, expired })
	api.add("s1", "12")
	r.poll(followPoll)
	r.poll(followPoll)
	assert.Equal(t, []string{"t12"}, r.took())
	calls := api.took()
	assert.Contains(t, calls, "GetShardIterator s1 AFTER_SEQUENCE_NUMBER 11")
	assert.Contains(t, calls, "GetShardIterator s2 LATEST", "nothing read of s2: from where it was followed")
	assert.Contains(t, r.logs.String(), "renewing an expired iterator of the table stream")

	api.set(func(f *fakeStreams) {
		f.refuse["GetRecords s1"] = &awscall.Error{Code: streamscall.TrimmedDataAccess, Message: "trimmed", StatusCode: 400}
	})
	r.poll(followPoll)
	r.poll(followPoll)
	assert.Contains(t, api.took(), "GetShardIterator s1 TRIM_HORIZON")
	assert.Equal(t, []string{"t10", "t11", "t12"}, r.took(), "what the stream still has")
	assert.Contains(t, r.logs.String(), "the table stream dropped records before they were read")

	api.set(func(f *fakeStreams) {
		f.refuse["GetRecords s1"] = &awscall.Error{Code: streamscall.ResourceNotFound, Message: "not found", StatusCode: 400}
	})
	api.add("s1", "13")
	r.poll(followPoll)
	r.poll(followPoll)
	assert.Empty(t, r.took())
	assert.Equal(t, 1, countPrefix(api.took(), "GetRecords s1"), "not read again before a listing")
	r.poll(followListShards)
	assert.Equal(t, []string{"t13"}, r.took(), "listed again: read on after the last record read")
	assert.Contains(t, api.took(), "GetShardIterator s1 AFTER_SEQUENCE_NUMBER 12")
}

// Other errors are logged and retried: a listing that failed at the start
// within a second (the shards it then finds are still followed from their
// newest record), a later one at the next listing, a read at the next poll
// with the same iterator.
// Records that do not decode are logged and skipped; the others arrive.
func TestChangesLogsAndRetries(t *testing.T) {
	api := newFakeStreams(listed("s1", ""))
	api.add("s1", "10")
	api.refuse["DescribeStream"] = &awscall.Error{Code: "InternalServerError", Message: "oops", StatusCode: 500}
	r := start(t, api)
	assert.Equal(t, []string{"DescribeStream"}, api.took())
	assert.Contains(t, r.logs.String(), "could not list the table stream's shards")
	r.poll(followPoll)
	assert.NotContains(t, api.took(), "DescribeStream", "not at once")
	for range followListRetry / followPoll {
		r.poll(followPoll)
	}
	assert.Contains(t, api.took(), "GetShardIterator s1 LATEST")
	assert.Empty(t, r.took())
	// Later, a failed listing waits for the next one, 10 s on.
	api.set(func(f *fakeStreams) { f.refuse["DescribeStream"] = errors.New("timeout") })
	r.poll(followListShards)
	assert.Equal(t, 1, countPrefix(api.took(), "DescribeStream"))
	r.poll(followListShards - followPoll)
	assert.Zero(t, countPrefix(api.took(), "DescribeStream"))
	r.poll(followPoll)
	assert.Equal(t, 1, countPrefix(api.took(), "DescribeStream"))

	api.set(func(f *fakeStreams) { f.refuse["GetRecords s1"] = errors.New("connection reset") })
	api.add("s1", "11")
	r.poll(followPoll)
	assert.Contains(t, r.logs.String(), "could not read the table stream")
	assert.Contains(t, r.logs.String(), "connection reset")
	r.poll(followPoll)
	assert.Equal(t, []string{"t11"}, r.took())
	assert.Equal(t, []string{"GetRecords s1@1", "GetRecords s1@1", "GetRecords s1@2"}, api.took(),
		"the same iterator again; after records, the next at once")

	broken := taskRecord("12")
	broken.Change.OldImage = nil
	api.set(func(f *fakeStreams) {
		f.records["s1"] = append(f.records["s1"], broken, taskRecord("13"))
	})
	r.poll(followPoll)
	assert.Equal(t, []string{"t13"}, r.took())
	assert.Contains(t, r.logs.String(), `"msg":"skipped a stream record that does not decode","shard":"s1","event_id":"e12"`)
}

// A shard's undecoded records are logged with their ids; the others of the
// answer arrive.
func TestChangesSkipsUndecodedRecords(t *testing.T) {
	api := &undecoded{fakeStreams: newFakeStreams(listed("s1", ""))}
	r := start(t, api)
	api.add("s1", "10")
	r.poll(followPoll)
	assert.Equal(t, []string{"t10"}, r.took())
	assert.Contains(t, r.logs.String(), `"msg":"skipped a stream record that does not decode","shard":"s1","event_id":"e-bad"`)
}

// undecoded adds a record that did not decode to every answer with
// records.
type undecoded struct{ *fakeStreams }

func (u *undecoded) GetRecords(ctx context.Context, it string) (streamscall.Records, error) {
	out, err := u.fakeStreams.GetRecords(ctx, it)
	if len(out.Records) > 0 {
		out.Undecoded = append(out.Undecoded, streamscall.Undecoded{EventID: "e-bad", SequenceNumber: "9", Err: errors.New("unknown type VECTOR")})
	}
	return out, err
}

func countPrefix(calls []string, prefix string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// Started is called once, when every shard of the first listing has its
// iterator (its position), before any read; a first listing that fails
// delays it.
func TestChangesStartsOnceEveryShardHasAPosition(t *testing.T) {
	api := newFakeStreams(listed("s0", ""), listed("s1", ""))
	api.refuse["DescribeStream"] = errors.New("timeout")
	clk := clocktest.New(clocktest.Start(t))
	started := make(chan []string, 2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Changes(ctx, api, "arn", func(store.TaskChange) {}, Options{Clock: clk, Started: func() { started <- api.took() }})
	}()
	t.Cleanup(func() { cancel(); <-done })

	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond, "waits after the failed listing")
	assert.Empty(t, started, "not started without a listing")
	api.set(func(f *fakeStreams) { delete(f.refuse, "DescribeStream") })
	clk.Advance(followListRetry)
	var calls []string
	select {
	case calls = <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("not started after a listing")
	}
	assert.ElementsMatch(t, []string{"DescribeStream", "DescribeStream", "GetShardIterator s0 LATEST", "GetShardIterator s1 LATEST"}, calls,
		"every shard has its position, nothing was read yet")
	clk.Advance(followListShards)
	require.Eventually(t, func() bool { return clk.Timers() == 1 }, 5*time.Second, time.Millisecond)
	assert.Empty(t, started, "started once")
}
