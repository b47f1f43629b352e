package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The inbox of a task is one item per message, in the task's partition,
// sort key N#<sequence> (ascending: oldest first). An append writes, in one
// transaction, the message's inbox item, its history item and the task
// item's inbox count and sequence (inboxSeq), conditioned on the task being
// at work and on the sequence it read, not on the task's version: a step
// that writes all the time (an agent streaming chunks) never makes a
// message to its task lose a race, and the append never makes the step's
// next write conflict. Appends among themselves are ordered by the
// sequence: of two at once, one is refused and writes again after it.
//
// The history item is keyed at the task's version as read, at a message
// index from inboxHistoryBase up (an update's own messages take the ones
// below), so the message reads as sent after what the task had written
// then and before what it writes next. The first exactInboxAttempts
// attempts are also conditioned on that version being current (without
// changing it), so the history shows the exact order in which the message
// and the step's writes committed; a refused attempt writes again at once
// against the version the refusal showed. Only against a step that writes
// faster than that round trip does a later attempt go without it: the
// message then reads as sent up to a few step writes early. The version is
// left alone; the task's expiry is extended as by any update (see
// expiry.go).
//
// A take removes the oldest items and lowers the count in one transaction
// whose deletes are conditioned on the items existing: of two concurrent
// takes, one removes a message and the other is refused and reads again,
// so every message is taken exactly once. The count lets a step skip the
// read when the inbox is empty (most steps), so the inbox costs nothing
// then.

// maxInboxAttempts bounds the reads of a take that lost races.
const maxInboxAttempts = 5

// exactInboxAttempts is how many attempts of an append keep the history's
// exact order (see above).
const exactInboxAttempts = 3

// inboxHistoryBase is the first message index of inbox messages in the
// history (see above); maxTransactItems keeps an update's own below it.
const inboxHistoryBase = 500

func inboxSK(seq int64) string { return fmt.Sprintf("%s%012d", skInboxPrefix, seq) }

// inboxHistorySK is the history key of the inbox message with sequence seq
// appended at version. Appends at one version take successive indexes;
// after maxIndex-inboxHistoryBase+1 of them with no other write between,
// the index comes round and the conditional put refuses the append.
func inboxHistorySK(version, seq int64) string {
	return messageSK(version, inboxHistoryBase+int(seq%(maxIndex-inboxHistoryBase+1)))
}

// appendInbox is UpdateTask for an update with Inbox set (see above): it
// returns the task's version, which it does not change.
func (s *Store) appendInbox(ctx context.Context, u *store.Update, c *updateContent) (int64, error) {
	if u.Status != nil || len(u.Artifacts) > 0 || u.Checkpoint != nil || u.RequestMetadata != nil || u.Pending != nil || u.Lease.Held() || u.ClearLease {
		return 0, fmt.Errorf("dynamo: an inbox update of task %s carries only messages", u.TaskID)
	}
	// seen is what the last refused attempt saw of the task.
	var seen *taskItem
	for attempt := 1; ; attempt++ {
		it := seen
		if it == nil {
			var err error
			if it, err = s.readTask(ctx, u.TaskID); err != nil {
				return 0, err
			}
		}
		seen = nil
		if u.IfVersion != 0 && it.Version != u.IfVersion {
			return 0, &store.ConflictError{Reason: store.ConflictVersion, State: a2a.TaskState(it.State), Version: it.Version}
		}
		t := s.times()
		extend := it.ChildrenExpireAt < t.taskExpiry
		if extend {
			if err := s.extendChildren(ctx, u.TaskID, t); err != nil {
				return 0, err
			}
		}
		items, idem, err := s.inboxWrites(u, c, it, t, extend, attempt <= exactInboxAttempts)
		if err != nil {
			return 0, err
		}
		err = s.transact(ctx, items)
		if err == nil {
			return it.Version, nil
		}
		reasons := cancellation(err)
		switch {
		case idem >= 0 && failedCondition(reasons, idem):
			// A retried message, whatever became of the task since.
			return 0, duplicateOf(reasons[idem].Item)
		case failedCondition(reasons, 0):
			old, err := liveTask(reasons[0].Item, t)
			if err != nil {
				return 0, err
			}
			if err := conflictOf(old, u); err != nil {
				return 0, err
			}
			seen = old // a step's write or another message got in first: write after it
		case slices.ContainsFunc(reasons, func(r dynamodb.CancellationReason) bool { return aws.ToString(r.Code) == "ConditionalCheckFailed" }):
			// A history key taken (the index came round): read again.
		default:
			if err := otherFailure(err, "the message to task "+u.TaskID); !errors.Is(err, errContention) {
				return 0, err
			}
		}
		if attempt == maxAppendAttempts {
			return 0, fmt.Errorf("dynamo: message to task %s: gave up after %d attempts: %w", u.TaskID, attempt, err)
		}
		// Appends race for the task's inbox sequence: a burst of messages
		// to one task takes one round each. The first retry after a step's
		// write follows it at once; beyond it, every loser backs off,
		// jittered, so that the burst spreads out instead of colliding again.
		if seen == nil || attempt > 1 {
			if err := pause(ctx, attempt); err != nil {
				return 0, err
			}
		}
	}
}

// maxAppendAttempts bounds the writes of one append to an inbox: a burst
// of n messages to one task takes up to n rounds, each won by one of them
// (pause spreads the rest): 40 cover a burst of 20 at once with room,
// within a few seconds at most.
const maxAppendAttempts = 40

// inboxWrites returns the transaction of an append to the inbox of it: the
// task item first, then the history and inbox items, then the idempotency
// record (its index in idem, -1 without one).
func (s *Store) inboxWrites(u *store.Update, c *updateContent, it *taskItem, t clockTimes, extend, exact bool) (items []dynamodb.TransactWriteItem, idem int, err error) {
	n := int64(len(u.Messages))
	seqCond := expression.Name(attrInboxSeq).Equal(expression.Value(it.InboxSeq))
	if it.InboxSeq == 0 {
		seqCond = expression.AttributeNotExists(expression.Name(attrInboxSeq))
	}
	cond := s.liveTaskCond(t).And(expression.Not(inStates(terminalStates))).And(seqCond)
	if exact {
		cond = cond.And(expression.Name(attrVersion).Equal(expression.Value(it.Version)))
	}
	if len(u.IfStates) > 0 {
		cond = cond.And(inStates(u.IfStates))
	}
	set := expression.Set(expression.Name(attrInboxSeq), expression.Value(it.InboxSeq+n)).
		Set(expression.Name(attrExpiresAt), expression.Value(t.taskExpiry)).
		Add(expression.Name(attrInbox), expression.Value(n))
	up, err := taskUpdate(u.TaskID, set, cond, extend, t)
	if err != nil {
		return nil, -1, fmt.Errorf("dynamo: build inbox append: %w", err)
	}
	items = []dynamodb.TransactWriteItem{up}
	free, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrSK))).Build()
	if err != nil {
		return nil, -1, fmt.Errorf("dynamo: build inbox append: %w", err)
	}
	for i, m := range c.messages {
		seq := it.InboxSeq + int64(i)
		for _, sk := range []string{inboxHistorySK(it.Version, seq), inboxSK(seq)} {
			item, err := marshalItem(childItem{PK: taskPK(u.TaskID), SK: sk, Data: m, ExpiresAt: t.childExpiry})
			if err != nil {
				return nil, -1, err
			}
			items = append(items, dynamodb.TransactWriteItem{Put: &dynamodb.Put{
				Item: item, ConditionExpression: free.Condition(), ExpressionAttributeNames: free.Names(),
			}})
		}
	}
	idem = -1
	if u.IdempotencyKey != "" {
		put, err := s.recordPut(u.Owner, u.IdempotencyKey, u.TaskID, u.Fingerprint, t)
		if err != nil {
			return nil, -1, err
		}
		idem = len(items)
		items = append(items, put)
	}
	if len(items) > maxTransactItems {
		return nil, -1, fmt.Errorf("dynamo: a message to task %s writes %d items, more than the %d of one transaction", u.TaskID, len(items), maxTransactItems)
	}
	return items, idem, nil
}

var _ store.InboxStore = (*Store)(nil)

// TakeInbox implements store.InboxStore.
func (s *Store) TakeInbox(ctx context.Context, taskID string) ([]a2a.Message, error) {
	if !validTaskID(taskID) {
		return nil, nil
	}
	e, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(attrPK).Equal(expression.Value(taskPK(taskID))).And(expression.Key(attrSK).BeginsWith(skInboxPrefix))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build inbox query: %w", err)
	}
	de, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build inbox delete: %w", err)
	}
	for attempt := 1; ; attempt++ {
		out, err := s.query(ctx, &dynamodb.QueryInput{
			KeyConditionExpression: e.KeyCondition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
			ConsistentRead: aws.Bool(true), Limit: aws.Int32(store.MaxInboxTake),
		})
		if err != nil {
			return nil, err
		}
		if len(out.Items) == 0 {
			return nil, nil
		}
		msgs := make([]a2a.Message, len(out.Items))
		items := make([]dynamodb.TransactWriteItem, 0, len(out.Items)+1)
		for i, it := range out.Items {
			var c childItem
			if err := dynamodb.UnmarshalMap(it, &c); err != nil {
				return nil, fmt.Errorf("dynamo: decode inbox item of task %s: %w", taskID, err)
			}
			if err := json.Unmarshal([]byte(c.Data), &msgs[i]); err != nil {
				return nil, fmt.Errorf("dynamo: decode inbox message %s of task %s: %w", c.SK, taskID, err)
			}
			items = append(items, dynamodb.TransactWriteItem{Delete: &dynamodb.Delete{
				Key: key(c.PK, c.SK), ConditionExpression: de.Condition(), ExpressionAttributeNames: de.Names(),
			}})
		}
		t := s.times()
		ue, err := expression.NewBuilder().
			WithUpdate(expression.Add(expression.Name(attrInbox), expression.Value(-len(msgs)))).
			WithCondition(s.liveTaskCond(t)).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: build inbox count update: %w", err)
		}
		items = append(items, dynamodb.TransactWriteItem{Update: &dynamodb.Update{
			Key: taskKey(taskID), UpdateExpression: ue.Update(), ConditionExpression: ue.Condition(),
			ExpressionAttributeNames: ue.Names(), ExpressionAttributeValues: ue.Values(),
		}})
		err = s.transact(ctx, items)
		if err == nil {
			return msgs, nil
		}
		reasons := cancellation(err)
		if reasons == nil {
			return nil, otherFailure(err, "the inbox take of task "+taskID)
		}
		if failedCondition(reasons, len(items)-1) {
			return nil, nil // the task is gone or expired: no inbox
		}
		if attempt == maxInboxAttempts {
			return nil, fmt.Errorf("dynamo: inbox take of task %s: gave up after %d attempts: %w", taskID, attempt, err)
		}
		// Another take removed some of these messages first: read again.
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
}
