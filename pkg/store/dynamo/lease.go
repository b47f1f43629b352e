package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// leaseAttrs are the lease's attributes of the task item.
type leaseAttrs struct {
	LeaseShard   string `dynamodbav:"leaseShard,omitempty"`
	LeaseUntil   int64  `dynamodbav:"leaseUntil,omitempty"`
	LeaseOwner   string `dynamodbav:"leaseOwner,omitempty"`
	LeaseTrigger string `dynamodbav:"leaseTrigger,omitempty"`
	Takeovers    int    `dynamodbav:"takeovers,omitempty"`
}

// A task's lease (store.Lease) lives on its task item, and so does the
// key of the sparse byLease index, present only while the task holds a
// lease:
//
//	index    partition key                       sort key
//	byLease  leaseShard = L or L<k> (the task's   leaseUntil (epoch milliseconds)
//	         shard k among leaseShards, shards.go)
//
// A sweep finds lapsed leases with one Query per shard (leaseUntil < now),
// however many tasks the table keeps; when nothing is stuck it reads
// nothing but the queries' minimum of 0.5 read units each. A terminal or
// interrupted task holds no lease, so the index only ever holds the tasks
// that run or wait for a runner.
const (
	indexByLease     = "byLease"
	attrLeaseShard   = "leaseShard"
	attrLeaseUntil   = "leaseUntil"
	attrLeaseOwner   = "leaseOwner"
	attrLeaseTrigger = "leaseTrigger"
	attrTakeovers    = "takeovers"
)

func newLeaseAttrs(taskID string, l store.Lease) leaseAttrs {
	if !l.Held() {
		return leaseAttrs{}
	}
	return leaseAttrs{LeaseShard: taskLeaseShard(taskID), LeaseUntil: l.Until.UnixMilli(), LeaseOwner: l.Owner, LeaseTrigger: string(l.Trigger)}
}

func (a *leaseAttrs) lease() store.Lease {
	if a.LeaseShard == "" {
		return store.Lease{}
	}
	return store.Lease{Owner: a.LeaseOwner, Until: time.UnixMilli(a.LeaseUntil).UTC(), Trigger: store.Trigger(a.LeaseTrigger)}
}

// leaseUpdate adds u's lease change to an update of the task item: a
// terminal or interrupted status, or ClearLease, removes the lease; Lease
// sets it.
func leaseUpdate(set expression.UpdateBuilder, u *store.Update) expression.UpdateBuilder {
	ends := u.Status != nil && (u.Status.State.Terminal() || u.Status.State.Interrupted())
	switch {
	case ends || (u.ClearLease && !u.Lease.Held()):
		for _, a := range []string{attrLeaseShard, attrLeaseUntil, attrLeaseOwner, attrLeaseTrigger} {
			set = set.Remove(expression.Name(a))
		}
	case u.Lease.Held():
		set = setLease(set, u.TaskID, u.Lease)
	}
	return set
}

// setLease sets a task's lease, in the task's shard of byLease (a lease
// written before sharding moves there).
func setLease(set expression.UpdateBuilder, taskID string, l store.Lease) expression.UpdateBuilder {
	set = set.Set(expression.Name(attrLeaseShard), expression.Value(taskLeaseShard(taskID))).
		Set(expression.Name(attrLeaseUntil), expression.Value(l.Until.UnixMilli()))
	if l.Owner != "" {
		set = set.Set(expression.Name(attrLeaseOwner), expression.Value(l.Owner))
	} else {
		set = set.Remove(expression.Name(attrLeaseOwner))
	}
	if l.Trigger != "" {
		set = set.Set(expression.Name(attrLeaseTrigger), expression.Value(string(l.Trigger)))
	} else {
		set = set.Remove(expression.Name(attrLeaseTrigger))
	}
	return set
}

var leasable = []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}

// RenewLease implements store.LeaseStore: one conditional UpdateItem.
func (s *Store) RenewLease(ctx context.Context, taskID, owner string, until time.Time) error {
	if !validTaskID(taskID) {
		return store.ErrNotFound
	}
	t := s.times()
	set := expression.Set(expression.Name(attrLeaseUntil), expression.Value(until.UnixMilli()))
	cond := s.liveTaskCond(t).
		And(expression.Not(inStates(terminalStates))).
		And(expression.Name(attrLeaseOwner).Equal(expression.Value(owner))).
		And(expression.AttributeExists(expression.Name(attrLeaseShard)))
	return s.leaseWrite(ctx, taskID, set, cond, t, nil)
}

// TakeOver implements store.LeaseStore: one conditional UpdateItem.
func (s *Store) TakeOver(ctx context.Context, l store.LapsedLease, owner string, until time.Time) (int, error) {
	if !validTaskID(l.TaskID) {
		return 0, store.ErrNotFound
	}
	t := s.times()
	set := setLease(expression.Add(expression.Name(attrTakeovers), expression.Value(1)), l.TaskID,
		store.Lease{Owner: owner, Until: until, Trigger: l.Lease.Trigger})
	cond := s.liveTaskCond(t).
		And(inStates(leasable)).
		And(expression.Name(attrLeaseUntil).Equal(expression.Value(l.Lease.Until.UnixMilli())))
	if l.Lease.Owner == "" {
		cond = cond.And(expression.AttributeNotExists(expression.Name(attrLeaseOwner)))
	} else {
		cond = cond.And(expression.Name(attrLeaseOwner).Equal(expression.Value(l.Lease.Owner)))
	}
	var after taskItem
	err := s.leaseWrite(ctx, l.TaskID, set, cond, t, &after)
	return after.Takeovers, err
}

func (s *Store) liveTaskCond(t clockTimes) expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(attrState)).
		And(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix)))
}

// leaseWrite applies a lease change to the task item, explaining a refusal
// from the old image: not found, terminal, or the lease moved. With after,
// it decodes the new image into it.
func (s *Store) leaseWrite(ctx context.Context, taskID string, set expression.UpdateBuilder, cond expression.ConditionBuilder, t clockTimes, after *taskItem) error {
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build lease update: %w", err)
	}
	in := taskUpdateIf(taskID, e)
	if after != nil {
		in.ReturnValues = dynamodb.ReturnValueAllNew
	}
	out, err := s.updateItem(ctx, in)
	old, refused := conditionFailedItem(err)
	if !refused {
		if err != nil {
			return otherFailure(err, "the lease of task "+taskID)
		}
		if after != nil {
			if err := dynamodb.UnmarshalMap(out.Attributes, after); err != nil {
				return fmt.Errorf("dynamo: decode task item: %w", err)
			}
		}
		return nil
	}
	it, err := liveTask(old, t)
	if err != nil {
		return err
	}
	if st := a2a.TaskState(it.State); st.Terminal() {
		return &store.ConflictError{Reason: store.ConflictTerminal, State: st, Version: it.Version}
	}
	return &store.ConflictError{Reason: store.ConflictLease, State: a2a.TaskState(it.State), Version: it.Version}
}

// LapsedLeases implements store.LeaseStore: one Query of each byLease
// shard, at the same time, the oldest lapsed first (eventually consistent:
// a lease renewed a moment ago may still show as lapsed, and TakeOver then
// refuses it).
func (s *Store) LapsedLeases(ctx context.Context, now time.Time, limit int) ([]store.LapsedLease, error) {
	t := s.times()
	items := make([][]map[string]dynamodb.AttributeValue, leaseShards)
	errs := make([]error, leaseShards)
	var wg sync.WaitGroup
	for shard := range leaseShards {
		kc := expression.Key(attrLeaseShard).Equal(expression.Value(leaseShardKey(shard))).
			And(expression.Key(attrLeaseUntil).LessThan(expression.Value(now.UnixMilli())))
		e, err := expression.NewBuilder().WithKeyCondition(kc).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: build lease query: %w", err)
		}
		wg.Go(func() {
			// Each shard's oldest: the oldest of all are among them.
			out, err := s.query(ctx, &dynamodb.QueryInput{
				IndexName: aws.String(indexByLease), KeyConditionExpression: e.KeyCondition(),
				ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
				Limit: aws.Int32(int32(limit) * 2),
			})
			if err != nil {
				errs[shard] = otherFailure(err, "the lapsed leases")
				return
			}
			items[shard] = out.Items
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var lapsed []store.LapsedLease
	for _, shard := range items {
		for _, item := range shard {
			it, err := decodeTaskItem(item)
			if err != nil {
				return nil, err
			}
			l := it.lease()
			if !it.live(t) || !l.Held() || !slices.Contains(leasable, a2a.TaskState(it.State)) {
				continue // an index entry on its way out
			}
			lapsed = append(lapsed, store.LapsedLease{TaskID: taskIDFromPK(it.PK), Lease: l, Takeovers: it.Takeovers})
		}
	}
	slices.SortFunc(lapsed, func(a, b store.LapsedLease) int {
		return cmp.Or(a.Lease.Until.Compare(b.Lease.Until), cmp.Compare(a.TaskID, b.TaskID))
	})
	return lapsed[:min(len(lapsed), limit)], nil
}
