package dynamo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// Contexts (service.ContextStore). An owner's context is an item of its own:
//
//	item      PK                              SK   index keys (byOwner)
//	context   X#<sha256(owner, contextId)>    X    listOwner X#<owner>, listSK <updatedAt>#<sha256(owner, contextId)>
//
// holding the owner, the context id, taskCount, updatedAt and the bound
// sessionId. CreateTask updates it in its own transaction (ADD taskCount 1,
// SET updatedAt, sessionId only if absent), so counting costs one more item
// per new task and no extra request. contexts/list is one descending Query
// of byOwner under X#<owner> (the context items' own partition of the
// index, apart from the tasks' O#<owner>), then one BatchGetItem of the
// page's items. contexts/clear reads the context's tasks from byContext,
// refuses while one is not terminal, then expires each task (expiresAt =
// now, index keys removed: reads, lists, counts and writes treat it as
// gone at once; TTL deletes it and its messages later) and deletes the
// context item. A task created in the context while a clear runs may
// survive it. Feedback is an attribute of the task item, written only on a
// terminal task, which nothing else writes.

const (
	skContext     = "X"
	attrTaskCount = "taskCount"
	attrCtxUpdate = "updatedAtTS"
	attrSessionID = "sessionId"
	attrContextID = "contextId"
	attrFeedback  = "feedback"
)

func contextPK(owner, contextID string) string { return "X#" + digest(owner, contextID) }

func contextListOwner(owner string) string { return "X#" + owner }

// contextItem is a context item, as stored.
type contextItem struct {
	PK        string `dynamodbav:"PK"`
	SK        string `dynamodbav:"SK"`
	Owner     string `dynamodbav:"owner"`
	ContextID string `dynamodbav:"contextId"`
	TaskCount int    `dynamodbav:"taskCount"`
	UpdatedAt string `dynamodbav:"updatedAtTS"`
	SessionID string `dynamodbav:"sessionId,omitempty"`
	ExpiresAt int64  `dynamodbav:"expiresAt"`
	ListOwner string `dynamodbav:"listOwner"`
	ListSK    string `dynamodbav:"listSK"`
}

func (c *contextItem) record() service.ContextRecord {
	return service.ContextRecord{Owner: c.Owner, ContextID: c.ContextID, TaskCount: c.TaskCount, UpdatedAt: c.UpdatedAt, SessionID: c.SessionID}
}

// contextWrite is the CreateTask transaction item that counts the new task
// in its context. The context expires two task TTLs after its latest task.
func (s *Store) contextWrite(nt *service.NewTask, t clockTimes) (types.TransactWriteItem, error) {
	owner, ctxID := nt.Owner, nt.Task.ContextID
	pk := contextPK(owner, ctxID)
	updatedAt := nt.Task.Status.Timestamp
	upd := expression.Set(expression.Name(attrOwner), expression.Value(owner)).
		Set(expression.Name(attrContextID), expression.Value(ctxID)).
		Set(expression.Name(attrCtxUpdate), expression.Value(updatedAt)).
		Set(expression.Name(attrExpiresAt), expression.Value(t.now.Add(2*s.taskTTL).Unix())).
		Set(expression.Name(attrListOwner), expression.Value(contextListOwner(owner))).
		Set(expression.Name(attrListSK), expression.Value(updatedAt+"#"+strings.TrimPrefix(pk, "X#"))).
		Add(expression.Name(attrTaskCount), expression.Value(1))
	if nt.SessionID != "" {
		upd = upd.Set(expression.Name(attrSessionID), expression.IfNotExists(expression.Name(attrSessionID), expression.Value(nt.SessionID)))
	}
	e, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return types.TransactWriteItem{}, fmt.Errorf("dynamo: build context update: %w", err)
	}
	return types.TransactWriteItem{Update: &types.Update{
		Key: key(pk, skContext), UpdateExpression: e.Update(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}}, nil
}

// readContext reads a live context item (strongly consistent).
func (s *Store) readContext(ctx context.Context, owner, contextID string) (*contextItem, error) {
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{Key: key(contextPK(owner, contextID), skContext), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, service.ErrNotFound
	}
	var c contextItem
	if err := attributevalue.UnmarshalMap(out.Item, &c); err != nil {
		return nil, fmt.Errorf("dynamo: decode context item: %w", err)
	}
	if c.Owner != owner || s.times().unix >= c.ExpiresAt {
		return nil, service.ErrNotFound
	}
	return &c, nil
}

// GetContext implements service.ContextStore with one GetItem.
func (s *Store) GetContext(ctx context.Context, owner, contextID string) (*service.ContextRecord, error) {
	c, err := s.readContext(ctx, owner, contextID)
	if err != nil {
		return nil, err
	}
	rec := c.record()
	return &rec, nil
}

// ListContexts implements service.ContextStore: one descending Query of the
// byOwner index under X#<owner> (expired items filtered out), then one
// BatchGetItem of the page's context items (at most 100: a page). The cursor is the index sort
// key of the page's last context, base64url encoded; the query is confined
// to the owner's partition whatever it says.
func (s *Store) ListContexts(ctx context.Context, q service.ContextQuery) (service.ContextPage, error) {
	pageSize := q.PageSize
	if pageSize <= 0 {
		pageSize = a2a.DefaultPageSize
	}
	t := s.times()
	listOwner := contextListOwner(q.Owner)
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrListOwner).Equal(expression.Value(listOwner))).
		WithFilter(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))).Build()
	if err != nil {
		return service.ContextPage{}, fmt.Errorf("dynamo: build context list query: %w", err)
	}
	in := &dynamodb.QueryInput{
		IndexName: aws.String(indexByOwner), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(int32(pageSize + 1)),
	}
	if q.Cursor != "" {
		sk, pk, err := decodeContextCursor(q.Cursor)
		if err != nil {
			return service.ContextPage{}, err
		}
		start := key(pk, skContext)
		start[attrListOwner] = &types.AttributeValueMemberS{Value: listOwner}
		start[attrListSK] = &types.AttributeValueMemberS{Value: sk}
		in.ExclusiveStartKey = start
	}
	var entries []map[string]types.AttributeValue
	for len(entries) <= pageSize {
		out, err := s.query(ctx, in)
		if err != nil {
			return service.ContextPage{}, err
		}
		entries = append(entries, out.Items...)
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	var page service.ContextPage
	if len(entries) > pageSize {
		entries = entries[:pageSize]
		last, _ := entries[pageSize-1][attrListSK].(*types.AttributeValueMemberS)
		if last == nil {
			return service.ContextPage{}, errors.New("dynamo: index entry without its sort key")
		}
		page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(last.Value))
	}
	if len(entries) == 0 {
		return page, nil
	}
	keys := make([]map[string]types.AttributeValue, len(entries))
	order := make(map[string]int, len(entries))
	for i, m := range entries {
		pk, _ := m[attrPK].(*types.AttributeValueMemberS)
		if pk == nil {
			return service.ContextPage{}, errors.New("dynamo: index entry without the context's key")
		}
		keys[i], order[pk.Value] = key(pk.Value, skContext), i
	}
	items, err := s.batchGetAll(ctx, keys)
	if err != nil {
		return service.ContextPage{}, err
	}
	got := make([]*service.ContextRecord, len(entries))
	for _, m := range items {
		var c contextItem
		if err := attributevalue.UnmarshalMap(m, &c); err != nil {
			return service.ContextPage{}, fmt.Errorf("dynamo: decode context item: %w", err)
		}
		if c.Owner == q.Owner && t.unix < c.ExpiresAt {
			rec := c.record()
			got[order[c.PK]] = &rec
		}
	}
	for _, r := range got {
		if r != nil {
			page.Contexts = append(page.Contexts, *r)
		}
	}
	return page, nil
}

// decodeContextCursor returns the index sort key and the item's partition
// key of a context list cursor, or an invalid params error.
func decodeContextCursor(c string) (sk, pk string, err error) {
	sk, dig, err := decodeListCursor(c, func(id string) bool { return len(id) == 64 })
	if err != nil {
		return "", "", err
	}
	if strings.HasPrefix(sk, "#") {
		return "", "", a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	}
	return sk, "X#" + dig, nil
}

// ClearContext implements service.ContextStore: one GetItem (the context),
// the byContext Query of its tasks, one UpdateItem per task and one
// DeleteItem-like transaction for the context item.
func (s *Store) ClearContext(ctx context.Context, owner, contextID string) error {
	if _, err := s.readContext(ctx, owner, contextID); err != nil {
		return err
	}
	t := s.times()
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrListContext).Equal(expression.Value(listContextKey(owner, contextID)))).
		WithFilter(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build context tasks query: %w", err)
	}
	in := &dynamodb.QueryInput{
		IndexName: aws.String(indexByContext), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}
	var ids []string
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		for _, m := range out.Items {
			pk, _ := m[attrPK].(*types.AttributeValueMemberS)
			st, _ := m[attrState].(*types.AttributeValueMemberS)
			if pk == nil || st == nil {
				return errors.New("dynamo: index entry without the task's key or state")
			}
			if state := a2a.TaskState(st.Value); !state.Terminal() {
				return &service.ContextLiveError{TaskID: taskIDFromPK(pk.Value), State: state}
			}
			ids = append(ids, taskIDFromPK(pk.Value))
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	for _, id := range ids {
		if err := s.expireTask(ctx, id, owner, t); err != nil {
			return err
		}
	}
	del, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build condition: %w", err)
	}
	err = s.transact(ctx, []types.TransactWriteItem{{Delete: &types.Delete{
		Key: key(contextPK(owner, contextID), skContext), ConditionExpression: del.Condition(), ExpressionAttributeNames: del.Names(),
	}}})
	if failedCondition(cancellation(err), 0) {
		return nil // another clear removed it first
	}
	if err != nil {
		return otherFailure(err, "the context")
	}
	return nil
}

// expireTask makes a terminal task of owner expire now and leave the list
// indexes. A task that is gone, expired or not terminal is left as it is.
func (s *Store) expireTask(ctx context.Context, taskID, owner string, t clockTimes) error {
	cond := expression.Name(attrOwner).Equal(expression.Value(owner)).
		And(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix))).
		And(inStates(terminalStates))
	upd := expression.Set(expression.Name(attrExpiresAt), expression.Value(t.unix)).
		Remove(expression.Name(attrListOwner)).Remove(expression.Name(attrListContext)).Remove(expression.Name(attrListSK))
	e, err := expression.NewBuilder().WithCondition(cond).WithUpdate(upd).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build task expiry: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: taskKey(taskID), ConditionExpression: e.Condition(), UpdateExpression: e.Update(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if _, failed := conditionFailedItem(err); failed {
		return nil
	}
	return err
}

// SetFeedback implements service.ContextStore with one conditional
// UpdateItem of the task item: it must be live and terminal.
func (s *Store) SetFeedback(ctx context.Context, taskID string, f service.Feedback) error {
	if !validTaskID(taskID) {
		return service.ErrNotFound
	}
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("dynamo: encode feedback: %w", err)
	}
	t := s.times()
	cond := s.liveTaskCond(t).
		And(inStates(terminalStates))
	e, err := expression.NewBuilder().WithCondition(cond).
		WithUpdate(expression.Set(expression.Name(attrFeedback), expression.Value(string(b)))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build feedback update: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: taskKey(taskID), ConditionExpression: e.Condition(), UpdateExpression: e.Update(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	old, failed := conditionFailedItem(err)
	if !failed {
		return err
	}
	if len(old) == 0 {
		return service.ErrNotFound
	}
	it, err := decodeTaskItem(old)
	if err != nil {
		return err
	}
	if !it.live(t) {
		return service.ErrNotFound
	}
	return &service.ConflictError{Reason: service.ConflictState, State: a2a.TaskState(it.State), Version: it.Version}
}
