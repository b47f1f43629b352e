package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// The inbox of a task is one item per message, in the task's partition,
// sort key N#<version>#<index> (ascending: oldest first), written by the
// update that appends the message to the history, in its transaction,
// which also adds to the task item's inbox count. A take removes the
// oldest items and lowers the count in one transaction whose deletes are
// conditioned on the items existing: of two concurrent takes, one
// removes a message and the other is refused and reads again, so every
// message is taken exactly once. The count lets a step skip the read
// when the inbox is empty (most steps), so the inbox costs nothing then.

// maxInboxAttempts bounds the reads of a take that lost races.
const maxInboxAttempts = 5

func inboxSK(version int64, index int) string {
	return fmt.Sprintf("%s%010d#%03d", skInboxPrefix, version, index)
}

var _ service.InboxStore = (*Store)(nil)

// TakeInbox implements service.InboxStore.
func (s *Store) TakeInbox(ctx context.Context, taskID string) ([]a2a.Message, error) {
	if !validTaskID(taskID) {
		return nil, nil
	}
	e, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(attrPK).Equal(expression.Value(taskPK(taskID))).And(expression.Key(attrSK).BeginsWith(skInboxPrefix))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build inbox query: %w", err)
	}
	for attempt := 1; ; attempt++ {
		out, err := s.query(ctx, &dynamodb.QueryInput{
			KeyConditionExpression: e.KeyCondition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
			ConsistentRead: aws.Bool(true), Limit: aws.Int32(service.MaxInboxTake),
		})
		if err != nil {
			return nil, err
		}
		if len(out.Items) == 0 {
			return nil, nil
		}
		msgs := make([]a2a.Message, len(out.Items))
		items := make([]types.TransactWriteItem, 0, len(out.Items)+1)
		exists := expression.AttributeExists(expression.Name(attrPK))
		for i, it := range out.Items {
			var c childItem
			if err := attributevalue.UnmarshalMap(it, &c); err != nil {
				return nil, fmt.Errorf("dynamo: decode inbox item of task %s: %w", taskID, err)
			}
			if err := json.Unmarshal([]byte(c.Data), &msgs[i]); err != nil {
				return nil, fmt.Errorf("dynamo: decode inbox message %s of task %s: %w", c.SK, taskID, err)
			}
			de, err := expression.NewBuilder().WithCondition(exists).Build()
			if err != nil {
				return nil, fmt.Errorf("dynamo: build inbox delete: %w", err)
			}
			items = append(items, types.TransactWriteItem{Delete: &types.Delete{
				Key: key(c.PK, c.SK), ConditionExpression: de.Condition(), ExpressionAttributeNames: de.Names(),
			}})
		}
		t := s.times()
		ue, err := expression.NewBuilder().
			WithUpdate(expression.Add(expression.Name(attrInbox), expression.Value(-len(msgs)))).
			WithCondition(exists.And(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix)))).Build()
		if err != nil {
			return nil, fmt.Errorf("dynamo: build inbox count update: %w", err)
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{
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
