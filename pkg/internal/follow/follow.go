// Package follow reads a task table's DynamoDB stream for the local
// server, as the push function's event source mapping does in Lambda. It is
// a package of its own so that the functions, which never read the stream
// themselves, do not link it.
package follow

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
)

// Streams is the part of the DynamoDB Streams API Changes reads with;
// *streamscall.Client implements it.
type Streams interface {
	DescribeStream(ctx context.Context, streamARN, exclusiveStartShardID string) (streamscall.Stream, error)
	GetShardIterator(ctx context.Context, streamARN, shardID string, from streamscall.IteratorType, sequenceNumber string) (string, error)
	GetRecords(ctx context.Context, iterator string) (streamscall.Records, error)
}

// Options configure Changes. The zero value is the defaults.
type Options struct {
	// Log receives what went wrong (and was retried); nil discards it.
	Log *slog.Logger
	// Clock paces the polls of the shards and the listings of the
	// stream's shards; nil means the system clock.
	Clock clock.Clock
	// Started, when set, is called once Changes holds a position in each
	// of the stream's shards (after its first listing): every change made
	// after that reaches fn. A server that serves before then may miss
	// the changes its first requests make.
	Started func()
}

// followPoll is how often Changes asks a shard for new records when it had
// none.
const followPoll = 250 * time.Millisecond

// followListShards is how often Changes looks for new shards.
const followListShards = 10 * time.Second

// followListRetry is how soon Changes lists the shards again after its
// first listing failed.
const followListRetry = time.Second

// shard is what Changes knows of one of the stream's shards.
type shard struct {
	parent string
	// iterator reads on; "" when there is none yet, or it must be renewed.
	iterator string
	// last is the sequence number of the last record read of the shard,
	// where a renewed iterator starts after; "" for none.
	last string
	// from is where a renewed iterator starts when no record was read.
	from streamscall.IteratorType
	// closed once the shard is read to its end.
	closed bool
	// gone: the API no longer knows the shard's iterator; not read until
	// a listing of the shards says whether the shard is still there.
	gone bool
}

// follower is the state of one Changes.
type follower struct {
	api       Streams
	streamARN string
	fn        func(store.TaskChange)
	log       *slog.Logger
	clock     clock.Clock
	shards    map[string]*shard
	// listed is whether a listing of the shards succeeded yet: until then,
	// the shards found are followed from their newest record (what
	// happened before the start is not news), then from their first.
	listed bool
}

// Changes reads the table's stream (its ARN: DescribeTable's
// LatestStreamArn) from now on and calls fn with every task change, in the
// stream's order within a shard (and a child shard after its parent),
// until ctx ends. It is the local server's stand-in for the push
// function's event source mapping; in Lambda, the mapping reads the stream,
// and its records go through the same dynamo.ChangeFromStream. Errors are
// logged and retried; an expired iterator is renewed after the last record
// read.
func Changes(ctx context.Context, api Streams, streamARN string, fn func(store.TaskChange), o Options) {
	f := &follower{api: api, streamARN: streamARN, fn: fn, log: cmp.Or(o.Log, slog.New(slog.DiscardHandler)), clock: clock.Or(o.Clock),
		shards: map[string]*shard{}}
	// New shards appear every few hours: list them now and then, not
	// before every read (which made a busy server ask for the table's
	// stream description hundreds of times a second).
	var nextList time.Time
	started := false
	for ctx.Err() == nil {
		if now := f.clock.Now(); !now.Before(nextList) {
			nextList = now.Add(followListShards)
			if err := f.list(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				f.log.WarnContext(ctx, "could not list the table stream's shards", "error", err)
				if !f.listed {
					nextList = now.Add(followListRetry) // no shard to read yet
				}
			}
		}
		if f.listed && !started {
			f.position(ctx)
			started = true
			if o.Started != nil {
				o.Started()
			}
		}
		idle := true
		for id, sh := range f.shards {
			if f.read(ctx, id, sh) {
				idle = false
			}
		}
		if idle {
			_ = clock.Sleep(ctx, f.clock, followPoll)
		}
	}
}

// list adds the stream's new shards and forgets those it no longer has.
func (f *follower) list(ctx context.Context) error {
	seen := map[string]bool{}
	after := ""
	for {
		page, err := f.api.DescribeStream(ctx, f.streamARN, after)
		if err != nil {
			return err
		}
		for _, s := range page.Shards {
			seen[s.ID] = true
			if sh, known := f.shards[s.ID]; known {
				sh.gone = false
				continue
			}
			sh := &shard{parent: s.ParentID, from: streamscall.TrimHorizon}
			if !f.listed {
				sh.from = streamscall.Latest
			}
			f.shards[s.ID] = sh
		}
		if after = page.LastEvaluatedShardID; after == "" {
			break
		}
	}
	for id := range f.shards {
		if !seen[id] {
			delete(f.shards, id) // trimmed: past the stream's 24 hours
		}
	}
	f.listed = true
	return nil
}

// position gets each shard an iterator, which fixes where its reading
// starts, before the first reads.
func (f *follower) position(ctx context.Context) {
	for id, sh := range f.shards {
		if sh.iterator == "" && !sh.closed {
			if err := f.renew(ctx, id, sh); err != nil {
				f.failed(ctx, id, sh, err)
			}
		}
	}
}

// read reads the shard's new records once, and reports whether there
// were any.
func (f *follower) read(ctx context.Context, id string, sh *shard) bool {
	if sh.closed || sh.gone {
		return false
	}
	if p, ok := f.shards[sh.parent]; ok && !p.closed {
		return false // the parent's records come first
	}
	if sh.iterator == "" {
		if err := f.renew(ctx, id, sh); err != nil {
			f.failed(ctx, id, sh, err)
			return false
		}
	}
	out, err := f.api.GetRecords(ctx, sh.iterator)
	if err != nil {
		f.failed(ctx, id, sh, err)
		return false
	}
	sh.iterator = out.NextShardIterator
	sh.closed = out.NextShardIterator == ""
	for _, u := range out.Undecoded {
		f.log.ErrorContext(ctx, "skipped a stream record that does not decode", "shard", id, "event_id", u.EventID, "error", u.Err)
	}
	for _, r := range out.Records {
		sh.last = r.Change.SequenceNumber
		c, err := dynamo.ChangeFromStream(r)
		if err != nil {
			f.log.ErrorContext(ctx, "skipped a stream record that does not decode", "shard", id, "event_id", r.EventID, "error", err)
			continue
		}
		if c != nil {
			f.fn(*c)
		}
	}
	return len(out.Records)+len(out.Undecoded) > 0
}

// failed logs why the shard could not be read, and makes the next read
// start where it can: a new iterator after the last record read when the
// iterator expired, one at the oldest record kept when the records it
// pointed at were dropped, none until the next listing says whether the
// shard is still there when the API no longer knows it.
func (f *follower) failed(ctx context.Context, id string, sh *shard, err error) {
	switch {
	case ctx.Err() != nil:
	case awscall.Refused(err, streamscall.ExpiredIterator):
		// The server stood still for 15 minutes (a laptop asleep).
		f.log.InfoContext(ctx, "renewing an expired iterator of the table stream", "shard", id)
		sh.iterator = ""
	case awscall.Refused(err, streamscall.TrimmedDataAccess):
		f.log.WarnContext(ctx, "the table stream dropped records before they were read: reading on from its oldest", "shard", id, "error", err)
		sh.iterator, sh.last, sh.from = "", "", streamscall.TrimHorizon
	case awscall.Refused(err, streamscall.ResourceNotFound):
		f.log.WarnContext(ctx, "the table stream does not know a shard being read", "shard", id, "error", err)
		sh.iterator, sh.gone = "", true
	default:
		f.log.WarnContext(ctx, "could not read the table stream", "shard", id, "error", err)
	}
}

// renew gets the shard an iterator: after the last record read, else where
// the shard is followed from.
func (f *follower) renew(ctx context.Context, id string, sh *shard) error {
	from, after := sh.from, ""
	if sh.last != "" {
		from, after = streamscall.AfterSequenceNumber, sh.last
	}
	it, err := f.api.GetShardIterator(ctx, f.streamARN, id, from, after)
	if err != nil {
		return fmt.Errorf("shard iterator of %s: %w", id, err)
	}
	sh.iterator = it
	return nil
}
