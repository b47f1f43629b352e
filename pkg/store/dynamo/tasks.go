package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// CreateTask implements store.TaskStore. A task whose id is
// store.TaskIDFor(owner, first message id), as the service makes them, is
// its own idempotency record: with a small first message (kept inside the
// task item) and no push configs it is one conditional PutItem. Otherwise
// one transaction writes the task item, the record of (owner, first
// message id) when the task is not its own (an item at the key of the task
// that message would have created, see recordPut), the first message when
// it is too large to keep inside, and the push configs. When a live record
// exists nothing is written and a *store.DuplicateError names its task.
// Content above store.MaxContentBytes is refused with a
// *store.TooLargeError before anything is sent.
//
// A task keeps the session bound to its context: unless the caller knows
// it (nt.BindingKnown), CreateTask looks it up first with one Query and one
// GetItem (see contexts.go).
func (s *Store) CreateTask(ctx context.Context, nt store.NewTask) error {
	task := nt.Task
	if err := nt.Check(); err != nil {
		return fmt.Errorf("dynamo: %w", err)
	}
	if !validTaskID(task.ID) {
		return fmt.Errorf("dynamo: %q is not a usable task id", task.ID)
	}
	first := task.History[0]
	msgJSON, err := encodeFirstMessage(first)
	if err != nil {
		return err
	}
	reqMeta, err := encodeMetadata("request metadata", nt.RequestMetadata)
	if err != nil {
		return err
	}
	taskMeta, err := encodeMetadata("task metadata", task.Metadata)
	if err != nil {
		return err
	}
	status, err := encodeStatus(task.Status)
	if err != nil {
		return err
	}
	t := s.times()
	configs, configIDs, err := pushConfigWrites(task.ID, nt.PushConfigs, t)
	if err != nil {
		return err
	}
	bound := nt.SessionID
	if !nt.BindingKnown {
		b, err := s.boundSession(ctx, nt.Owner, task.ContextID)
		if err != nil {
			return err
		}
		if b != "" {
			bound = b
		}
	}
	inline := len(msgJSON) <= maxInlineMessageBytes
	firstInline := ""
	if inline {
		firstInline = msgJSON
	}
	// A task created finished: its status message is the history's last
	// (kept once, in the status), its artifacts inside the task item while
	// small, as items otherwise.
	arts, artItems, err := newArtifacts(task.ID, task.Artifacts, t)
	if err != nil {
		return err
	}
	ti, err := marshalItem(taskItem{
		PK: taskPK(task.ID), SK: skTask,
		Owner: nt.Owner, ContextID: task.ContextID, State: string(task.Status.State), Status: status,
		Metadata: taskMeta, RequestMetadata: reqMeta, Version: 1,
		CreatedAt: t.now.UnixNano(), UpdatedAt: t.now.UnixNano(),
		ExpiresAt: t.taskExpiry, ChildrenExpireAt: t.childExpiry,
		ListOwner: taskListOwnerKey(nt.Owner, task.ID), ListContext: listContextKey(nt.Owner, task.ContextID),
		ListSK:             listSK(task.Status.Timestamp, task.ID),
		PushConfigs:        configIDs,
		HasPush:            len(configIDs) > 0,
		SessionID:          nt.SessionID,
		ContextSession:     bound,
		FirstMessage:       firstInline,
		StatusInHistory:    len(task.History) == 2,
		Artifacts:          arts,
		CompletedArtifacts: nt.ArtifactIDs(),
		Trace:              tracing.Header(ctx),
		Fingerprint:        nt.Fingerprint,
		leaseAttrs:         newLeaseAttrs(task.ID, nt.Lease),
	})
	if err != nil {
		return err
	}
	own := task.ID == store.TaskIDFor(nt.Owner, first.MessageID)
	// The task comes first and its record, when it is not its own (nor
	// left without one), second: the refusals below are told apart by
	// position.
	var more []dynamodb.TransactWriteItem
	if !own && !nt.NoRecord {
		rec, err := s.recordPut(nt.Owner, first.MessageID, task.ID, nt.Fingerprint, t)
		if err != nil {
			return err
		}
		more = append(more, rec)
	}
	if !inline {
		mi, err := marshalItem(childItem{PK: taskPK(task.ID), SK: messageSK(1, 0), Data: msgJSON, ExpiresAt: t.childExpiry})
		if err != nil {
			return err
		}
		more = append(more, dynamodb.TransactWriteItem{Put: &dynamodb.Put{Item: mi}})
	}
	more = append(more, artItems...)
	more = append(more, configs...)
	for attempt := 1; ; attempt++ {
		old, err := s.putTask(ctx, ti, more)
		if old == nil {
			return err
		}
		if it, _ := decodeTaskItem(old); it != nil && t.unix < it.ExpiresAt { // a live task or record
			if !own {
				return fmt.Errorf("dynamo: task id %s already exists", task.ID)
			}
			return duplicateTask(old, it)
		}
		// An expired task or record of an earlier use of the id: its
		// items go, so that none of them joins the new task.
		if attempt == 2 {
			return fmt.Errorf("dynamo: task id %s: the items of its expired predecessor are still there", task.ID)
		}
		if err := s.clearPartition(ctx, task.ID, t); err != nil {
			return err
		}
	}
}

// newArtifacts are the artifacts of a task created finished: their JSON,
// to keep inside the task item, when it is at most maxInlineArtifactBytes,
// else their items.
func newArtifacts(taskID string, arts []a2a.Artifact, t clockTimes) (string, []dynamodb.TransactWriteItem, error) {
	if len(arts) == 0 {
		return "", nil, nil
	}
	// The limit is each artifact's (below), as in every store: together
	// they may exceed it, kept as items of their own.
	all, err := json.Marshal(arts)
	if err != nil {
		return "", nil, fmt.Errorf("dynamo: encode artifacts: %w", err)
	}
	if len(all) <= maxInlineArtifactBytes {
		return string(all), nil, nil
	}
	items := make([]dynamodb.TransactWriteItem, len(arts))
	for i, a := range arts {
		data, err := encodeJSON("artifact", a)
		if err != nil {
			return "", nil, err
		}
		it, err := marshalItem(childItem{PK: taskPK(taskID), SK: artifactSK(a.ArtifactID), Data: data, Order: int64(i + 1), ExpiresAt: t.childExpiry})
		if err != nil {
			return "", nil, err
		}
		items[i] = dynamodb.TransactWriteItem{Put: &dynamodb.Put{Item: it}}
	}
	return "", items, nil
}

// putTask writes a new task item, and more in the same transaction when
// there is more, on the condition that no item has its key. When an item
// has it, putTask returns that item (and no error); a refused record is a
// *store.DuplicateError.
func (s *Store) putTask(ctx context.Context, item map[string]dynamodb.AttributeValue, more []dynamodb.TransactWriteItem) (map[string]dynamodb.AttributeValue, error) {
	notExists, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build condition: %w", err)
	}
	if len(more) == 0 {
		_, err := s.putItem(ctx, &dynamodb.PutItemInput{
			Item: item, ConditionExpression: notExists.Condition(), ExpressionAttributeNames: notExists.Names(),
			ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if old, refused := conditionFailedItem(err); refused {
			return old, nil
		}
		return nil, otherFailure(err, "the new task")
	}
	put := dynamodb.TransactWriteItem{Put: &dynamodb.Put{
		Item: item, ConditionExpression: notExists.Condition(), ExpressionAttributeNames: notExists.Names(),
		ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	err = s.transact(ctx, append([]dynamodb.TransactWriteItem{put}, more...))
	reasons := cancellation(err)
	switch {
	case err == nil:
		return nil, nil
	case failedCondition(reasons, 1) && more[0].Put != nil && more[0].Put.Item[attrRecordOf] != nil:
		return nil, duplicateOf(reasons[1].Item)
	case failedCondition(reasons, 0):
		return reasons[0].Item, nil
	}
	return nil, otherFailure(err, "the new task")
}

// clearPartition deletes the items of an expired task (or record) at
// taskID's key: its item, on the condition that it has expired, and all the
// rest of its partition.
func (s *Store) clearPartition(ctx context.Context, taskID string, t clockTimes) error {
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrPK).Equal(expression.Value(taskPK(taskID)))).
		WithProjection(expression.NamesList(expression.Name(attrPK), expression.Name(attrSK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build partition query: %w", err)
	}
	expired, err := expression.NewBuilder().WithCondition(expression.Name(attrExpiresAt).LessThanEqual(expression.Value(t.unix))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build condition: %w", err)
	}
	in := &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(), ConsistentRead: aws.Bool(true),
	}
	for deleted := 0; ; {
		out, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		deleted += len(out.Items)
		for _, k := range out.Items {
			del := &dynamodb.DeleteItemInput{Key: k}
			if sk, _ := k[attrSK].(*dynamodb.AttributeValueMemberS); sk != nil && sk.Value == skTask {
				del.ConditionExpression, del.ExpressionAttributeNames, del.ExpressionAttributeValues = expired.Condition(), expired.Names(), expired.Values()
			}
			if _, err := s.deleteItem(ctx, del); err != nil {
				if _, refused := conditionFailedItem(err); refused {
					return fmt.Errorf("dynamo: task id %s was taken again while its predecessor's items were deleted", taskID)
				}
				return err
			}
		}
		if out.LastEvaluatedKey == nil {
			s.log.InfoContext(ctx, "deleted the items of an expired task whose id was used again", "taskId", taskID, "items", deleted)
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// recordPut is the transaction item that records (owner, messageID) for
// taskID, unless a live record exists (its old image then names the first
// task). The record is an item at the key of the task the message would
// have created (store.TaskIDFor): that task, while it lives, is the
// record, and other records there hold recordOf, the task they point to.
// A record overwrites only an expired item (see CreateTask for what
// happens to its partition).
func (s *Store) recordPut(owner, messageID, taskID, fingerprint string, t clockTimes) (dynamodb.TransactWriteItem, error) {
	item, err := marshalItem(recordItem{PK: taskPK(store.TaskIDFor(owner, messageID)), SK: skTask, RecordOf: taskID, Fingerprint: fingerprint, ExpiresAt: t.idemExpiry})
	if err != nil {
		return dynamodb.TransactWriteItem{}, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name(attrExpiresAt).LessThanEqual(expression.Value(t.unix)))
	e, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return dynamodb.TransactWriteItem{}, fmt.Errorf("dynamo: build condition: %w", err)
	}
	return dynamodb.TransactWriteItem{Put: &dynamodb.Put{
		Item: item, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// readAhead is how many artifacts a read of "the task, its artifacts and
// its N newest messages" expects: its first page asks for N+1+readAhead
// items, so a task with at most readAhead artifacts is read in one request
// (reading at most readAhead messages too many), and one with more in a few.
const readAhead = 1

// GetTask implements store.TaskStore with one strongly consistent Query
// on the task's partition (more pages only for partitions above 1 MB, or a
// history window behind many artifacts), reading only the items opts ask
// for. An unknown or expired task is store.ErrNotFound, whether or not
// DynamoDB has deleted it yet.
func (s *Store) GetTask(ctx context.Context, taskID string, opts store.GetOptions) (*store.TaskRecord, error) {
	p, err := s.readPartition(ctx, taskID, opts)
	if err != nil {
		return nil, err
	}
	return p.record(opts.HistoryLength, opts.IncludeArtifacts)
}

// readPartition reads a live task's items as GetTask does.
func (s *Store) readPartition(ctx context.Context, taskID string, opts store.GetOptions) (*partition, error) {
	if !validTaskID(taskID) {
		return nil, store.ErrNotFound
	}
	pk := expression.Key(attrPK).Equal(expression.Value(taskPK(taskID)))
	sk := expression.Key(attrSK)
	var cond expression.KeyConditionBuilder
	limit := int32(0)
	switch h := opts.HistoryLength; {
	case h == 0 && !opts.IncludeArtifacts:
		cond = pk.And(sk.Equal(expression.Value(skTask)))
	case h == 0:
		cond = pk.And(sk.Between(expression.Value(skArtifactPrefix), expression.Value(skTask)))
	case !opts.IncludeArtifacts:
		cond = pk.And(sk.BeginsWith(skTask))
		if h > 0 {
			limit = int32(h + 1)
		}
	default:
		cond = pk.And(sk.Between(expression.Value(skArtifactPrefix), expression.Value(skHistoryEnd)))
		if h > 0 {
			limit = int32(h + 1 + readAhead)
		}
	}
	e, err := expression.NewBuilder().WithKeyCondition(cond).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build key condition: %w", err)
	}
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    e.KeyCondition(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
		ConsistentRead:            aws.Bool(true),
	}
	var p partition
	for {
		if limit > 0 {
			in.Limit = aws.Int32(limit)
		}
		out, err := s.query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			if err := p.add(it); err != nil {
				return nil, err
			}
		}
		h := opts.HistoryLength
		if out.LastEvaluatedKey == nil || (h > 0 && p.task != nil && len(p.messages) >= h) {
			break
		}
		if h > 0 && p.task != nil { // only messages follow the task item
			limit = int32(h - len(p.messages))
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if p.task == nil || !p.task.live(s.times()) {
		return nil, store.ErrNotFound
	}
	return &p, nil
}

// readTask reads the task item alone (strongly consistent).
func (s *Store) readTask(ctx context.Context, taskID string) (*taskItem, error) {
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{Key: taskKey(taskID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, store.ErrNotFound
	}
	it, err := decodeTaskItem(out.Item)
	if err != nil {
		return nil, err
	}
	if !it.live(s.times()) {
		return nil, store.ErrNotFound
	}
	return it, nil
}
