package dynamo

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"
)

// Write sharding of the byOwner and byLease indexes. A partition of a
// global secondary index takes at most 1,000 write units and 3,000 read
// units a second, and every write of a task item that changes its index
// entry is a write there (a status change two: the old entry deleted, the
// new one put). An index partition key held by every task of a busy caller
// (byOwner) or by every running task (byLease, whose sort key, the lease's
// end, only ever grows, so DynamoDB cannot split the partition by it)
// throttles its index at a few hundred tasks a second, and index
// throttling backs up into the table's writes. So each task's entry goes to
// one of several partition keys, the shard chosen from its id (the same
// shard for its whole life), and reads query every shard and merge:
//
//	index    shard 0 (the key of tables written before sharding)   shard k (1 ≤ k < n)
//	byOwner  O#<owner>                                              O<k>#<owner>   (n = ownerShards)
//	byLease  L                                                      L<k>           (n = leaseShards)
//
// Shard 0 keeps the unsharded key, so items written before sharding are in
// it and found with no migration. The counts may grow in a later version
// (reads then cover the new shards too); they must never shrink, which would
// hide the tasks of the shards dropped. byContext stays unsharded: one
// context's tasks come one after the other. Interrupt bindings
// (listOwner R#<owner>) are one per interrupt: unsharded too.
const (
	// ownerShards spreads one caller's list entries: 4 partitions take
	// 4,000 index writes a second, some 500 multi-step tasks a second
	// (five to eight entry writes each) or 4,000 one-step blocking ones,
	// of one caller; a tasks/list reads 4 partitions (see ListTasks).
	// byOwner carries one caller's tasks, where byLease carries every
	// running task of the table: it needs fewer shards, and every list
	// pays for each.
	ownerShards = 4
	// leaseShards spreads the running tasks' leases: 16 partitions take
	// 16,000 index writes a second, some 8,000 leased tasks a second (a
	// lease put and removed: two entry writes each, two more per renewal
	// of a long step), above what a table's default on-demand quota of
	// 40,000 write units a second lets tasks do (five or more units each).
	// A sweep reads 16 partitions (8 read units when nothing is stuck).
	leaseShards = 16
)

// shardOf is the shard of a task among n: the same for its whole life.
func shardOf(taskID string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(taskID))
	return int(h.Sum32() % uint32(n))
}

// listOwnerKey is the byOwner partition key of shard of owner's tasks.
func listOwnerKey(owner string, shard int) string {
	if shard == 0 {
		return "O#" + owner
	}
	return "O" + strconv.Itoa(shard) + "#" + owner
}

// taskListOwnerKey is the byOwner partition key of a task's entry.
func taskListOwnerKey(owner, taskID string) string {
	return listOwnerKey(owner, shardOf(taskID, ownerShards))
}

// ownerPartitions are the byOwner partition keys of owner's tasks.
func ownerPartitions(owner string) []string {
	keys := make([]string, ownerShards)
	for i := range keys {
		keys[i] = listOwnerKey(owner, i)
	}
	return keys
}

// leaseShardKey is the byLease partition key of a shard.
func leaseShardKey(shard int) string {
	if shard == 0 {
		return "L"
	}
	return "L" + strconv.Itoa(shard)
}

// taskLeaseShard is the byLease partition key of a task's lease.
func taskLeaseShard(taskID string) string { return leaseShardKey(shardOf(taskID, leaseShards)) }

// entriesPerReadUnit is about how many list index entries (~150 bytes)
// one 4 KB read unit holds: a Query of one partition reads that many for
// the minimum it costs anyway.
const entriesPerReadUnit = 24

// chunkOf is how many entries to read of each of n partitions at a time
// for a walk of want entries: at least its share of them and what the
// minimum read unit pays for, at most want.
func chunkOf(want, n int) int {
	return min(want, max(want/n+2, entriesPerReadUnit))
}

// partitionQuery is the Query of one index partition.
type partitionQuery func(partition string) (*dynamodb.QueryInput, error)

// indexQuery builds the Query of one partition of a list index (byOwner or
// byContext, on listSK), newest first: its entries with a sort key above
// lowest (when set) and below before (when set), that filter keeps.
func indexQuery(index, partitionAttr, lowest, before string, filter expression.ConditionBuilder) partitionQuery {
	return func(partition string) (*dynamodb.QueryInput, error) {
		kc := expression.Key(partitionAttr).Equal(expression.Value(partition))
		sk := expression.Key(attrListSK)
		switch {
		case lowest != "" && before != "":
			// Both ends are inclusive: the walk drops the entry at before,
			// and no entry is at lowest (<timestamp>$ is no sort key).
			kc = kc.And(sk.Between(expression.Value(lowest), expression.Value(before)))
		case lowest != "":
			kc = kc.And(sk.GreaterThan(expression.Value(lowest)))
		case before != "":
			kc = kc.And(sk.LessThan(expression.Value(before)))
		}
		e, err := expression.NewBuilder().WithKeyCondition(kc).WithFilter(filter).Build()
		if err != nil {
			return nil, err
		}
		return &dynamodb.QueryInput{
			IndexName: aws.String(index), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(), ScanIndexForward: aws.Bool(false),
		}, nil
	}
}

// indexWalk reads the entries of several partitions of a list index as
// one list, newest first (descending sort key; sort keys are unique: they
// end with the task id). Each partition is read a chunk at a time, and
// only as far as the merge needs: a partition is read on only when its
// last entry read is about to be taken.
type indexWalk struct {
	s      *Store
	before string
	parts  []*partitionReader
}

type partitionReader struct {
	in   *dynamodb.QueryInput
	buf  []listed
	done bool
}

// listed is an index entry and its sort key.
type listed struct {
	item map[string]dynamodb.AttributeValue
	sk   string
}

// walkIndex starts a walk of partitions, read chunk entries at a time,
// without the entries at or above before (when set).
func (s *Store) walkIndex(partitions []string, query partitionQuery, chunk int, before string) (*indexWalk, error) {
	w := &indexWalk{s: s, before: before}
	for _, p := range partitions {
		in, err := query(p)
		if err != nil {
			return nil, err
		}
		in.Limit = aws.Int32(int32(max(chunk, 1)))
		w.parts = append(w.parts, &partitionReader{in: in})
	}
	return w, nil
}

// fill reads on, at the same time, every partition whose entries read so
// far are all taken and that has more.
func (w *indexWalk) fill(ctx context.Context) error {
	var (
		wg   sync.WaitGroup
		errs = make([]error, len(w.parts))
	)
	for i, p := range w.parts {
		if len(p.buf) > 0 || p.done {
			continue
		}
		wg.Go(func() {
			for len(p.buf) == 0 && !p.done {
				out, err := w.s.query(ctx, p.in)
				if err != nil {
					errs[i] = err
					return
				}
				for _, m := range out.Items {
					sk, _ := m[attrListSK].(*dynamodb.AttributeValueMemberS)
					if sk == nil {
						errs[i] = errors.New("dynamo: list index entry without its sort key")
						return
					}
					if w.before != "" && sk.Value >= w.before {
						continue
					}
					p.buf = append(p.buf, listed{item: m, sk: sk.Value})
				}
				p.in.ExclusiveStartKey = out.LastEvaluatedKey
				p.done = out.LastEvaluatedKey == nil
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// next returns up to n more entries, newest first, and whether more
// follow.
func (w *indexWalk) next(ctx context.Context, n int) ([]listed, bool, error) {
	var out []listed
	for {
		if err := w.fill(ctx); err != nil {
			return nil, false, err
		}
		var top *partitionReader
		for _, p := range w.parts {
			if len(p.buf) > 0 && (top == nil || p.buf[0].sk > top.buf[0].sk) {
				top = p
			}
		}
		if top == nil {
			return out, false, nil
		}
		if len(out) == n {
			return out, true, nil
		}
		out = append(out, top.buf[0])
		top.buf = top.buf[1:]
	}
}

// countIndex counts the entries query matches in every partition, the
// partitions counted at the same time.
func (s *Store) countIndex(ctx context.Context, partitions []string, query partitionQuery) (int, error) {
	counts := make([]int, len(partitions))
	errs := make([]error, len(partitions))
	var wg sync.WaitGroup
	for i, p := range partitions {
		in, err := query(p)
		if err != nil {
			return 0, err
		}
		wg.Go(func() { counts[i], errs[i] = s.count(ctx, in) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	return total, nil
}
