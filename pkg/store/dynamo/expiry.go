package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"
)

// Expiry of a task's messages and artifacts.
//
// Reads return messages and artifacts only through their task: a live task
// shows all of them, an expired task none (so reads never filter children
// by their own expiresAt, and never show a task with part of its history).
// What remains is to make DynamoDB's TTL never delete a child before its
// task, without rewriting every child on every update:
//
//   - a child is written with expiresAt = now + 2×TaskTTL, one TTL later
//     than the task written with it;
//   - the task item keeps childrenExpireAt, at most the expiresAt of every
//     child;
//   - every update that extends the task's expiresAt to E is conditioned on
//     childrenExpireAt >= E. When that fails (a task kept alive for more
//     than one TTL since its oldest child was written), the writer first
//     extends every child to now + 2×TaskTTL, then writes
//     childrenExpireAt with the update.
//
// So a child never expires before its task, outlives it by at most one
// TTL, and a long-lived task pays for rewriting its children at most once
// per TTL.

// extendChildren makes every child of a task expire at t.childExpiry or
// later. Children that already do are left alone.
func (s *Store) extendChildren(ctx context.Context, taskID string, t clockTimes) error {
	proj := expression.NamesList(expression.Name(attrPK), expression.Name(attrSK), expression.Name(attrExpiresAt))
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrPK).Equal(expression.Value(taskPK(taskID)))).
		WithProjection(proj).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build children query: %w", err)
	}
	in := &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ConsistentRead: aws.Bool(true),
	}
	extended := 0
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return err
		}
		for _, m := range out.Items {
			var c childItem
			if err := dynamodb.UnmarshalMap(m, &c); err != nil {
				return fmt.Errorf("dynamo: decode child key: %w", err)
			}
			if c.SK == skTask || c.ExpiresAt >= t.childExpiry {
				continue
			}
			if err := s.extendChild(ctx, c.PK, c.SK, t.childExpiry); err != nil {
				return err
			}
			extended++
		}
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	s.log.InfoContext(ctx, "extended the expiry of a long-lived task's messages and artifacts", "taskId", taskID, "items", extended)
	return nil
}

func (s *Store) extendChild(ctx context.Context, pk, sk string, expiry int64) error {
	e, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name(attrExpiresAt), expression.Value(expiry))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK)).
			And(expression.Name(attrExpiresAt).LessThan(expression.Value(expiry)))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build child update: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: key(pk, sk), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if _, refused := conditionFailedItem(err); refused {
		return nil // deleted, or extended by another writer meanwhile
	}
	return err
}
