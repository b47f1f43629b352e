package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/tracing"
)

// CreateTask implements service.TaskStore. One transaction writes the task
// item (with its first message inside when that is small, otherwise the
// message as its own item), the idempotency record of (owner, first
// message id), the count in its context (see contexts.go) and the task's
// push configs. When a live record exists the transaction is refused and a
// *service.DuplicateError names the task the record points to; nothing is
// written. Content above service.MaxContentBytes is refused with a
// *service.TooLargeError before anything is sent.
func (s *Store) CreateTask(ctx context.Context, nt service.NewTask) error {
	task := nt.Task
	if len(task.History) != 1 {
		return fmt.Errorf("dynamo: a new task must hold exactly its first message, got %d", len(task.History))
	}
	if !validTaskID(task.ID) {
		return fmt.Errorf("dynamo: %q is not a usable task id", task.ID)
	}
	first := task.History[0]
	msgJSON, err := encodeJSON("message", first)
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
	status, err := encodeJSON("status", task.Status)
	if err != nil {
		return err
	}
	t := s.times()
	configs, configIDs, err := pushConfigWrites(task.ID, nt.PushConfigs, t)
	if err != nil {
		return err
	}
	inline := len(msgJSON) <= maxInlineMessageBytes
	firstInline := ""
	if inline {
		firstInline = msgJSON
	}
	ti, err := marshalItem(taskItem{
		PK: taskPK(task.ID), SK: skTask,
		Owner: nt.Owner, ContextID: task.ContextID, State: string(task.Status.State), Status: status,
		Metadata: taskMeta, RequestMetadata: reqMeta, Version: 1,
		CreatedAt: t.now.UnixNano(), UpdatedAt: t.now.UnixNano(),
		ExpiresAt: t.taskExpiry, ChildrenExpireAt: t.childExpiry,
		ListOwner: listOwnerKey(nt.Owner), ListContext: listContextKey(nt.Owner, task.ContextID),
		ListSK:       listSK(task.Status.Timestamp, task.ID),
		PushConfigs:  configIDs,
		SessionID:    nt.SessionID,
		FirstMessage: firstInline,
		Trace:        tracing.Header(ctx),
		leaseAttrs:   newLeaseAttrs(nt.Lease),
	})
	if err != nil {
		return err
	}
	idem, err := s.idempotencyPut(nt.Owner, first.MessageID, task.ID, t)
	if err != nil {
		return err
	}
	cw, err := s.contextWrite(&nt, t)
	if err != nil {
		return err
	}
	notExists, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build condition: %w", err)
	}
	// The task comes first and the idempotency record second: the
	// refusals below are told apart by position.
	items := []types.TransactWriteItem{
		{Put: &types.Put{Item: ti, ConditionExpression: notExists.Condition(), ExpressionAttributeNames: notExists.Names()}},
		idem,
		cw,
	}
	if !inline {
		mi, err := marshalItem(childItem{PK: taskPK(task.ID), SK: messageSK(1, 0), Data: msgJSON, ExpiresAt: t.childExpiry})
		if err != nil {
			return err
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{Item: mi}})
	}
	items = append(items, configs...)
	for attempt := 1; ; attempt++ {
		err = s.transact(ctx, items)
		reasons := cancellation(err)
		switch {
		case err == nil:
			return nil
		case failedCondition(reasons, 1):
			return duplicateOf(reasons[1].Item)
		case failedCondition(reasons, 0):
			return fmt.Errorf("dynamo: task id %s already exists", task.ID)
		}
		err = otherFailure(err, "the new task")
		// The context item is shared by the tasks of its context: tasks
		// created at once in one context contend for it.
		if !errors.Is(err, errContention) || attempt == maxUpdateAttempts {
			return err
		}
		if err := pause(ctx, attempt); err != nil {
			return err
		}
	}
}

// idempotencyPut is the transaction item that records (owner, messageID)
// for taskID, unless a live record exists (its old image then names the
// first task).
func (s *Store) idempotencyPut(owner, messageID, taskID string, t clockTimes) (types.TransactWriteItem, error) {
	item, err := marshalItem(idempotencyItem{PK: idempotencyPK(owner, messageID), SK: skIdempotency, TaskID: taskID, ExpiresAt: t.idemExpiry})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name(attrExpiresAt).LessThanEqual(expression.Value(t.unix)))
	e, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("dynamo: build condition: %w", err)
	}
	return types.TransactWriteItem{Put: &types.Put{
		Item: item, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// readAhead is how many artifacts a read of "the task, its artifacts and
// its N newest messages" expects: its first page asks for N+1+readAhead
// items, so a task with at most readAhead artifacts is read in one request
// (reading at most readAhead messages too many), and one with more in a few.
const readAhead = 1

// GetTask implements service.TaskStore with one strongly consistent Query
// on the task's partition (more pages only for partitions above 1 MB, or a
// history window behind many artifacts), reading only the items opts ask
// for. An unknown or expired task is service.ErrNotFound, whether or not
// DynamoDB has deleted it yet.
func (s *Store) GetTask(ctx context.Context, taskID string, opts service.GetOptions) (*service.TaskRecord, error) {
	p, err := s.readPartition(ctx, taskID, opts)
	if err != nil {
		return nil, err
	}
	return p.record(opts.HistoryLength, opts.IncludeArtifacts)
}

// readPartition reads a live task's items as GetTask does.
func (s *Store) readPartition(ctx context.Context, taskID string, opts service.GetOptions) (*partition, error) {
	if !validTaskID(taskID) {
		return nil, service.ErrNotFound
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
		return nil, service.ErrNotFound
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
		return nil, service.ErrNotFound
	}
	it, err := decodeTaskItem(out.Item)
	if err != nil {
		return nil, err
	}
	if !it.live(s.times()) {
		return nil, service.ErrNotFound
	}
	return it, nil
}
