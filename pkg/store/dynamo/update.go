package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

const (
	// maxTransactItems bounds the items one update writes: the task, its
	// new messages and artifacts, and the idempotency record. DynamoDB
	// takes 100 per transaction; moto 5.2.1, which the tests use, 25. It
	// also keeps message indexes within an update below maxIndex.
	maxTransactItems = 25
	// maxUpdateAttempts bounds the writes of one update that lost a race
	// it may retry (see UpdateTask).
	maxUpdateAttempts = 12
	// artifactOrderStride spaces the order keys of artifacts first stored
	// by successive versions.
	artifactOrderStride = 1000
)

var terminalStates = []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateCanceled, a2a.TaskStateFailed, a2a.TaskStateRejected}

// UpdateTask implements store.TaskStore. The task item is changed by one
// UpdateItem, or, when the update also appends messages, stores artifacts
// or records an idempotency key, by one transaction with those items. An
// update that finishes the task with at most its status message and small
// whole artifacts (what most steps end with) is one UpdateItem too: they
// are kept inside the task item, which nothing changes after it is
// terminal (see finishesInPlace).
//
// The write is conditioned on: the task existing and not expired
// (otherwise store.ErrNotFound), not being terminal (*ConflictError
// terminal), having the version the writer read (IfVersion; *ConflictError
// version) and one of IfStates (*ConflictError state); the error carries the
// task's current state and version, read from the refused write's old
// image. An idempotency record that exists takes precedence over every
// conflict: a retried reply is a *store.DuplicateError even after the task
// moved on. Without IfVersion the store reads the version itself and
// retries when another writer got in between. Content above
// store.MaxContentBytes, or that DynamoDB refuses as too large, is a
// *store.TooLargeError and writes nothing.
func (s *Store) UpdateTask(ctx context.Context, u store.Update) (int64, error) {
	return s.update(ctx, u, writeOpts{})
}

// extraWrite is one more item an update writes in its transaction (an
// interrupt binding), with how to explain its failed condition from the
// item's old image.
type extraWrite struct {
	item    func(t clockTimes) (dynamodb.TransactWriteItem, error)
	refused func(old map[string]dynamodb.AttributeValue, t clockTimes) error
}

// writeOpts extend an update beyond store.Update.
type writeOpts struct {
	extras []extraWrite
	// clearPending removes the task's pending interrupt.
	clearPending bool
}

// update is UpdateTask with opts: see its contract. A refused extra write is
// explained after a missing task and a duplicate, before the task's
// conflicts.
func (s *Store) update(ctx context.Context, u store.Update, opts writeOpts) (int64, error) {
	if !validTaskID(u.TaskID) {
		return 0, store.ErrNotFound
	}
	c, err := encodeUpdate(&u)
	if err != nil {
		return 0, err
	}
	if u.Inbox {
		return s.appendInbox(ctx, &u, c)
	}
	extend := false
	for attempt := 1; ; attempt++ {
		t := s.times()
		expected := u.IfVersion
		if expected == 0 {
			it, err := s.readTask(ctx, u.TaskID)
			if err != nil {
				return 0, err
			}
			expected = it.Version
			extend = extend || it.ChildrenExpireAt < t.taskExpiry
		}
		if extend {
			if err := s.extendChildren(ctx, u.TaskID, t); err != nil {
				return 0, err
			}
		}
		err := s.writeUpdate(ctx, &u, c, opts, expected, extend, t)
		switch {
		case err == nil:
			return expected + 1, nil
		case errors.Is(err, errChildrenExpire):
			extend = true
		case errors.Is(err, errVersionMoved), errors.Is(err, errContention):
		default:
			return 0, err
		}
		if attempt == maxUpdateAttempts {
			return 0, fmt.Errorf("dynamo: update of task %s: gave up after %d attempts: %w", u.TaskID, attempt, err)
		}
		if !errors.Is(err, errChildrenExpire) {
			// Lost a race (only a rare update without IfVersion reads the
			// version itself): back off, jittered, and write again.
			if err := pause(ctx, attempt); err != nil {
				return 0, err
			}
		}
	}
}

// updateContent is an update's content encoded once for all its attempts.
type updateContent struct {
	// messages are the JSON of the messages to append, in order, the
	// status message last.
	messages []string
	status   string
	reqMeta  string
	pending  string
}

func encodeUpdate(u *store.Update) (*updateContent, error) {
	c := &updateContent{}
	for _, m := range u.Messages {
		j, err := encodeJSON("message", m)
		if err != nil {
			return nil, err
		}
		c.messages = append(c.messages, j)
	}
	if u.Status != nil {
		if u.Status.Message != nil {
			j, err := encodeJSON("status message", u.Status.Message)
			if err != nil {
				return nil, err
			}
			c.messages = append(c.messages, j)
		}
		j, err := encodeStatus(*u.Status)
		if err != nil {
			return nil, err
		}
		c.status = j
	}
	reqMeta, err := encodeMetadata("request metadata", u.RequestMetadata)
	if err != nil {
		return nil, err
	}
	c.reqMeta = reqMeta
	if u.Pending != nil {
		if c.pending, err = encodeJSON("interrupt", u.Pending); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// taskUpdate is the transaction write of set to the task item on condition
// cond, refused with the old image, for a write that adds children to the
// task: with extend the children were just made to outlive the task and the
// write records their new expiry; otherwise it is conditioned on their
// expiry reaching the task's new one.
func taskUpdate(taskID string, set expression.UpdateBuilder, cond expression.ConditionBuilder, extend bool, t clockTimes) (dynamodb.TransactWriteItem, error) {
	if extend {
		set = set.Set(expression.Name(attrChildrenExpireAt), expression.Value(t.childExpiry))
	} else {
		cond = cond.And(expression.Name(attrChildrenExpireAt).GreaterThanEqual(expression.Value(t.taskExpiry)))
	}
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(cond).Build()
	if err != nil {
		return dynamodb.TransactWriteItem{}, err
	}
	return dynamodb.TransactWriteItem{Update: &dynamodb.Update{
		Key: taskKey(taskID), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// writeUpdate writes u once, conditioned on the task being at version
// expected. With extend, the task's children were just made to outlive it
// and the write records that; otherwise it is conditioned on it.
func (s *Store) writeUpdate(ctx context.Context, u *store.Update, c *updateContent, opts writeOpts, expected int64, extend bool, t clockTimes) error {
	next := expected + 1
	set := expression.Set(expression.Name(attrVersion), expression.Value(next)).
		Set(expression.Name(attrUpdatedAt), expression.Value(t.now.UnixNano())).
		Set(expression.Name(attrExpiresAt), expression.Value(t.taskExpiry))
	inlineArts, inPlace, err := finishesInPlace(u, opts)
	if err != nil {
		return err
	}
	if inPlace {
		if u.Status.Message != nil {
			set = set.Set(expression.Name(attrStatusInHistory), expression.Value(true))
		}
		if inlineArts != "" {
			set = set.Set(expression.Name(attrArtifacts), expression.Value(inlineArts))
		}
	}
	if u.Status != nil {
		set = set.Set(expression.Name(attrState), expression.Value(string(u.Status.State))).
			Set(expression.Name(attrStatus), expression.Value(c.status)).
			Set(expression.Name(attrListSK), expression.Value(listSK(u.Status.Timestamp, u.TaskID))).
			Remove(expression.Name(attrAwaitingJob)).
			Remove(expression.Name(attrAwaitingSince))
	}
	switch {
	case u.Checkpoint == nil:
	case len(u.Checkpoint) == 0:
		set = set.Remove(expression.Name(attrCheckpoint))
	default:
		set = set.Set(expression.Name(attrCheckpoint), expression.Value([]byte(u.Checkpoint)))
	}
	if u.RequestMetadata != nil {
		set = set.Set(expression.Name(attrRequestMetadata), expression.Value(c.reqMeta))
	}
	if ids := u.CompletedArtifacts(); len(ids) > 0 {
		set = set.Set(expression.Name(attrCompletedArtifacts), expression.Value(ids))
	} else {
		set = set.Remove(expression.Name(attrCompletedArtifacts))
	}
	switch {
	case u.Pending != nil:
		set = set.Set(expression.Name(attrPending), expression.Value(c.pending))
	case opts.clearPending:
		set = set.Remove(expression.Name(attrPending))
	}
	if h := tracing.Header(ctx); h != "" {
		set = set.Set(expression.Name(attrTrace), expression.Value(h))
	}
	if u.ExecutionARN != "" {
		set = set.Set(expression.Name(attrExecutionARN), expression.Value(u.ExecutionARN))
	}
	set = leaseUpdate(set, u)
	cond := s.liveTaskCond(t).
		And(expression.Name(attrVersion).Equal(expression.Value(expected))).
		And(expression.Not(inStates(terminalStates)))
	if len(u.IfStates) > 0 {
		cond = cond.And(inStates(u.IfStates))
	}
	up, err := taskUpdate(u.TaskID, set, cond, extend, t)
	if err != nil {
		return fmt.Errorf("dynamo: build update: %w", err)
	}
	what := "the update of task " + u.TaskID

	items := []dynamodb.TransactWriteItem{up}
	if inPlace {
		return s.writeTaskItem(ctx, u, up.Update, expected, t, what)
	}
	for i, m := range c.messages {
		item, err := marshalItem(childItem{PK: taskPK(u.TaskID), SK: messageSK(next, i), Data: m, ExpiresAt: t.childExpiry})
		if err != nil {
			return err
		}
		items = append(items, dynamodb.TransactWriteItem{Put: &dynamodb.Put{Item: item}})
	}
	arts, err := s.artifactWrites(ctx, u, next, t)
	if err != nil {
		return err
	}
	items = append(items, arts...)
	idem := -1
	if u.IdempotencyKey != "" {
		put, err := s.recordPut(u.Owner, u.IdempotencyKey, u.TaskID, u.Fingerprint, t)
		if err != nil {
			return err
		}
		idem = len(items)
		items = append(items, put)
	}
	extra := len(items)
	for _, x := range opts.extras {
		it, err := x.item(t)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if len(items) > maxTransactItems {
		return fmt.Errorf("dynamo: %s writes %d items, more than the %d of one transaction", what, len(items), maxTransactItems)
	}

	if len(items) == 1 {
		return s.writeTaskItem(ctx, u, items[0].Update, expected, t, what)
	}
	err = s.transact(ctx, items)
	if err == nil {
		return nil
	}
	reasons := cancellation(err)
	var refused error
	if failedCondition(reasons, 0) {
		refused = refusedUpdate(reasons[0].Item, u, expected, t)
		if errors.Is(refused, store.ErrNotFound) {
			return refused
		}
	}
	if idem >= 0 && failedCondition(reasons, idem) {
		return duplicateOf(reasons[idem].Item)
	}
	for i, x := range opts.extras {
		if failedCondition(reasons, extra+i) {
			return x.refused(reasons[extra+i].Item, t)
		}
	}
	if refused != nil {
		return refused
	}
	return otherFailure(err, what)
}

// writeTaskItem writes an update that changes the task item alone, as one
// UpdateItem.
func (s *Store) writeTaskItem(ctx context.Context, u *store.Update, up *dynamodb.Update, expected int64, t clockTimes, what string) error {
	_, err := s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: up.Key, UpdateExpression: up.UpdateExpression, ConditionExpression: up.ConditionExpression,
		ExpressionAttributeNames: up.ExpressionAttributeNames, ExpressionAttributeValues: up.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, ok := conditionFailedItem(err); ok {
		return refusedUpdate(old, u, expected, t)
	}
	return otherFailure(err, what)
}

// finishesInPlace returns, for an update that finishes the task in one
// write of its item, the JSON of the artifacts to keep inside it ("" for
// none), and true: u sets a terminal status, whose message (if any) is
// then the history's last (statusInHistory), and at most whole artifacts
// that fit maxInlineArtifactBytes together, appends no other message,
// records no idempotency key and writes nothing else (opts). Nothing
// changes a terminal task's history or artifacts afterwards, so they can
// stay there; reads merge them with the task's other items.
func finishesInPlace(u *store.Update, opts writeOpts) (string, bool, error) {
	if u.Status == nil || !u.Status.State.Terminal() || len(u.Messages) > 0 || u.IdempotencyKey != "" ||
		len(opts.extras) > 0 || u.Pending != nil || (len(u.Artifacts) > 0 && (u.AppendArtifact || !u.ArtifactLastChunk)) {
		return "", false, nil
	}
	if len(u.Artifacts) == 0 {
		return "", true, nil
	}
	arts, err := encodeJSON("artifacts", a2a.LatestArtifacts(u.Artifacts))
	if err != nil || len(arts) > maxInlineArtifactBytes {
		return "", false, err
	}
	return arts, true, nil
}

func inStates(states []a2a.TaskState) expression.ConditionBuilder {
	vals := make([]expression.OperandBuilder, len(states))
	for i, st := range states {
		vals[i] = expression.Value(string(st))
	}
	return expression.Name(attrState).In(vals[0], vals[1:]...)
}

// artifactWrites returns the transaction items that store u's artifacts:
// one per artifact id, its content after every chunk of u in order. An
// appended chunk extends the stored artifact (read, strongly consistent;
// the version condition of the update makes the read and the write
// atomic). An artifact keeps the order key of its first write.
func (s *Store) artifactWrites(ctx context.Context, u *store.Update, version int64, t clockTimes) ([]dynamodb.TransactWriteItem, error) {
	var order []string
	content := map[string]a2a.Artifact{}
	for _, a := range u.Artifacts {
		cur, seen := content[a.ArtifactID]
		if !seen {
			order = append(order, a.ArtifactID)
			if u.AppendArtifact {
				stored, err := s.readArtifact(ctx, u.TaskID, a.ArtifactID)
				if err != nil {
					return nil, err
				}
				cur, seen = stored, stored.ArtifactID != ""
			}
		}
		if u.AppendArtifact && seen {
			merged := cur
			merged.Parts = append(slices.Clone(cur.Parts), a.Parts...)
			a = merged
		}
		content[a.ArtifactID] = a
	}
	items := make([]dynamodb.TransactWriteItem, 0, len(order))
	for i, artifactID := range order {
		data, err := encodeJSON("artifact "+artifactID, content[artifactID])
		if err != nil {
			return nil, err
		}
		set := expression.Set(expression.Name(attrData), expression.Value(data)).
			Set(expression.Name(attrExpiresAt), expression.Value(t.childExpiry)).
			Set(expression.Name(attrOrder), expression.IfNotExists(expression.Name(attrOrder), expression.Value(version*artifactOrderStride+int64(i))))
		e, err := expression.NewBuilder().WithUpdate(set).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: build artifact update: %w", err)
		}
		items = append(items, dynamodb.TransactWriteItem{Update: &dynamodb.Update{
			Key: key(taskPK(u.TaskID), artifactSK(artifactID)), UpdateExpression: e.Update(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		}})
	}
	return items, nil
}

// readArtifact returns a stored artifact, or a zero one when there is none.
func (s *Store) readArtifact(ctx context.Context, taskID, artifactID string) (a2a.Artifact, error) {
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{Key: key(taskPK(taskID), artifactSK(artifactID)), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return a2a.Artifact{}, err
	}
	var a a2a.Artifact
	if d, ok := out.Item[attrData].(*dynamodb.AttributeValueMemberS); ok {
		if err := unmarshalOptional(d.Value, &a); err != nil {
			return a2a.Artifact{}, fmt.Errorf("dynamo: decode artifact %s of task %s: %w", artifactID, taskID, err)
		}
	}
	return a, nil
}

// pause waits a jittered backoff before attempt number attempt (from 1) of
// a request. It paces I/O, as a timeout does, so it runs in real time
// whatever the store's clock says.
func pause(ctx context.Context, attempt int) error {
	return clock.Sleep(ctx, clock.System{}, time.Duration(5+rand.IntN(20*attempt))*time.Millisecond)
}
