// Package dynamo is the store.TaskStore on one DynamoDB table, shared by
// every Lambda function: a task created by one invocation is read, canceled
// and finished by others.
//
// Layout (see keys.go): a task's partition T#<taskId> holds its artifacts
// (A#<artifactId>), the task item itself (H) and its history messages
// (H#<newest-first key>), in that sort order, so that one Query reads
// exactly the task, the task and its artifacts, or the task and its N most
// recent messages. Idempotency records live in their own partitions
// (I#<digest of owner and messageId>). Two global secondary indexes list an
// owner's tasks, and an owner's tasks in one context, newest status first.
//
// Consistency: every read of a task is strongly consistent (a task written
// by one Lambda is read by another a moment later, and writers condition on
// the version they read). Lists use global secondary indexes, which are
// eventually consistent: a task changed a moment ago may be listed as it was.
//
// Expiry: every item carries expiresAt (epoch seconds), the table's TTL
// attribute. DynamoDB deletes expired items late (up to days), so reads treat
// an expired task as absent and conditional writes refuse it. Messages and
// artifacts are read only through their task, and always expire after it
// (see expiry.go).
package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// API is the part of the DynamoDB client the store uses; *dynamodb.Client (pkg/dynamodb)
// implements it.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error)
}

// Usage is what one DynamoDB request consumed, as DynamoDB reported it
// (ReturnConsumedCapacity TOTAL). The store reports every request, failed
// ones included (with zero units when DynamoDB reported none), so that the
// number of reports is the number of requests.
type Usage struct {
	// Op is the DynamoDB operation, such as "Query" or "TransactWriteItems".
	Op string
	// Units is the total capacity consumed; Read and Write split it when
	// DynamoDB does.
	Units, Read, Write float64
}

// Options configure a Store.
type Options struct {
	// Table is the table's name (required).
	Table string
	// Clock tells the time; the default is the system clock.
	Clock clock.Clock
	// TaskTTL is how long a task lives after its last update; zero is
	// config.DefaultTaskTTL.
	TaskTTL time.Duration
	// IdempotencyTTL is how long a (owner, messageId) record lives; zero
	// is config.DefaultIdempotencyWindow.
	IdempotencyTTL time.Duration
	// OnUsage, when set, receives the capacity of every request.
	OnUsage func(Usage)
	Logger  *slog.Logger
}

// Store is a store.Store (tasks and interrupt bindings) on DynamoDB. It is safe for concurrent use.
type Store struct {
	api     API
	table   string
	clock   clock.Clock
	taskTTL time.Duration
	idemTTL time.Duration
	onUsage func(Usage)
	log     *slog.Logger
}

var _ store.Store = (*Store)(nil)

// New returns a store on an existing table (see CreateTable).
func New(api API, o Options) (*Store, error) {
	if api == nil {
		return nil, errors.New("dynamo: a DynamoDB client is required")
	}
	if o.Table == "" {
		return nil, errors.New("dynamo: a table name is required")
	}
	s := &Store{api: api, table: o.Table, clock: clock.Or(o.Clock), taskTTL: o.TaskTTL, idemTTL: o.IdempotencyTTL, onUsage: o.OnUsage, log: o.Logger}
	s.taskTTL = positive.Or(s.taskTTL, config.DefaultTaskTTL)
	s.idemTTL = positive.Or(s.idemTTL, config.DefaultIdempotencyWindow)
	s.log = cmp.Or(s.log, slog.New(slog.DiscardHandler))
	return s, nil
}

// clockTimes are the instants one operation works with, in the units the
// table stores.
type clockTimes struct {
	now time.Time
	// unix is now in epoch seconds: an item is live while unix < expiresAt.
	unix int64
	// taskExpiry is the expiresAt of a task written now.
	taskExpiry int64
	// childExpiry is the expiresAt of a message or artifact written now:
	// one TTL later than its task, see expiry.go.
	childExpiry int64
	// idemExpiry is the expiresAt of an idempotency record written now.
	idemExpiry int64
}

func (s *Store) times() clockTimes {
	now := s.clock.Now()
	return clockTimes{
		now:         now,
		unix:        now.Unix(),
		taskExpiry:  now.Add(s.taskTTL).Unix(),
		childExpiry: now.Add(2 * s.taskTTL).Unix(),
		idemExpiry:  now.Add(s.idemTTL).Unix(),
	}
}

// The calls below set the table and ReturnConsumedCapacity and report the
// capacity of every request.

func (s *Store) getItem(ctx context.Context, in *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = aws.String(s.table), dynamodb.ReturnConsumedCapacityTotal
	return send(ctx, s, "GetItem", s.api.GetItem, in, func(out *dynamodb.GetItemOutput) *dynamodb.ConsumedCapacity { return out.ConsumedCapacity })
}

func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = aws.String(s.table), dynamodb.ReturnConsumedCapacityTotal
	return send(ctx, s, "Query", s.api.Query, in, func(out *dynamodb.QueryOutput) *dynamodb.ConsumedCapacity { return out.ConsumedCapacity })
}

func (s *Store) updateItem(ctx context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = aws.String(s.table), dynamodb.ReturnConsumedCapacityTotal
	return send(ctx, s, "UpdateItem", s.api.UpdateItem, in, func(out *dynamodb.UpdateItemOutput) *dynamodb.ConsumedCapacity { return out.ConsumedCapacity })
}

// taskUpdateIf is e's conditional update of the task item: a refusal
// carries the item as it was (conditionFailedItem).
func taskUpdateIf(taskID string, e expression.Expression) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		Key: taskKey(taskID), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

func (s *Store) putItem(ctx context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = aws.String(s.table), dynamodb.ReturnConsumedCapacityTotal
	return send(ctx, s, "PutItem", s.api.PutItem, in, func(out *dynamodb.PutItemOutput) *dynamodb.ConsumedCapacity { return out.ConsumedCapacity })
}

func (s *Store) deleteItem(ctx context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
	in.TableName, in.ReturnConsumedCapacity = aws.String(s.table), dynamodb.ReturnConsumedCapacityTotal
	return send(ctx, s, "DeleteItem", s.api.DeleteItem, in, func(out *dynamodb.DeleteItemOutput) *dynamodb.ConsumedCapacity { return out.ConsumedCapacity })
}

// send makes one request of op and reports the capacity it consumed, which
// capacity reads from the response (a failed request has none).
func send[In, Out any](ctx context.Context, s *Store, op string, call func(context.Context, *In) (*Out, error), in *In, capacity func(*Out) *dynamodb.ConsumedCapacity) (*Out, error) {
	out, err := call(ctx, in)
	var c *dynamodb.ConsumedCapacity
	if out != nil {
		c = capacity(out)
	}
	s.observe(op, c)
	return out, wrap(op, err)
}

// transact runs a transaction whose items name no table yet.
func (s *Store) transact(ctx context.Context, items []dynamodb.TransactWriteItem) error {
	for i := range items {
		switch it := &items[i]; {
		case it.Put != nil:
			it.Put.TableName = aws.String(s.table)
		case it.Update != nil:
			it.Update.TableName = aws.String(s.table)
		case it.ConditionCheck != nil:
			it.ConditionCheck.TableName = aws.String(s.table)
		case it.Delete != nil:
			it.Delete.TableName = aws.String(s.table)
		}
	}
	out, err := s.api.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: items, ReturnConsumedCapacity: dynamodb.ReturnConsumedCapacityTotal,
	})
	var cc []dynamodb.ConsumedCapacity
	if out != nil {
		cc = out.ConsumedCapacity
	}
	s.observe("TransactWriteItems", nil, cc...)
	return wrap("TransactWriteItems", err)
}

func (s *Store) batchGet(ctx context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = dynamodb.ReturnConsumedCapacityTotal
	out, err := s.api.BatchGetItem(ctx, in)
	var cc []dynamodb.ConsumedCapacity
	if out != nil {
		cc = out.ConsumedCapacity
	}
	s.observe("BatchGetItem", nil, cc...)
	return out, wrap("BatchGetItem", err)
}

// getItems reads items by key with BatchGetItem requests (strongly
// consistent when asked), again for the keys DynamoDB left unprocessed,
// returning them in the order of keys (nil for a missing item).
func (s *Store) getItems(ctx context.Context, consistent bool, keys ...map[string]dynamodb.AttributeValue) ([]map[string]dynamodb.AttributeValue, error) {
	at := make(map[[2]string]int, len(keys))
	for i, k := range keys {
		at[itemKey(k)] = i
	}
	found := make([]map[string]dynamodb.AttributeValue, len(keys))
	ka := dynamodb.KeysAndAttributes{Keys: keys}
	if consistent {
		ka.ConsistentRead = aws.Bool(true)
	}
	req := map[string]dynamodb.KeysAndAttributes{s.table: ka}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt == maxUpdateAttempts {
			return nil, fmt.Errorf("dynamo: BatchGetItem left keys unprocessed %d times", attempt)
		}
		if attempt > 0 {
			if err := pause(ctx, attempt); err != nil {
				return nil, err
			}
		}
		out, err := s.batchGet(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, err
		}
		for _, m := range out.Responses[s.table] {
			if i, ok := at[itemKey(m)]; ok {
				found[i] = m
			}
		}
		req = out.UnprocessedKeys
	}
	return found, nil
}

func itemKey(m map[string]dynamodb.AttributeValue) [2]string {
	pk, _ := m[attrPK].(*dynamodb.AttributeValueMemberS)
	sk, _ := m[attrSK].(*dynamodb.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return [2]string{}
	}
	return [2]string{pk.Value, sk.Value}
}

func (s *Store) observe(op string, one *dynamodb.ConsumedCapacity, more ...dynamodb.ConsumedCapacity) {
	if s.onUsage == nil {
		return
	}
	u := Usage{Op: op}
	add := func(c *dynamodb.ConsumedCapacity) {
		u.Units += aws.ToFloat64(c.CapacityUnits)
		u.Read += aws.ToFloat64(c.ReadCapacityUnits)
		u.Write += aws.ToFloat64(c.WriteCapacityUnits)
	}
	if one != nil {
		add(one)
	}
	for i := range more {
		add(&more[i])
	}
	s.onUsage(u)
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("dynamo: %s: %w", op, err)
}
