package dynamo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Interrupt bindings are items of their own (PK R#<requestId>, SK R). They
// are listed per owner through the byOwner index under a partition of their
// own (listOwner R#<owner>, listSK <created>#<requestId>), so that they
// never mix with the owner's tasks (O#<owner>). Their state attribute is
// "asked" or "resolved": the index projects it, so that a listing skips
// resolved bindings without reading them.

const (
	skBinding            = "R"
	bindingAsked         = "asked"
	bindingResolved      = "resolved"
	attrBindingActiveTil = "activeUntil"
	attrBindingGoneAt    = "goneAt"
	attrBindingToken     = "taskToken"
)

func bindingPK(requestID string) string { return "R#" + requestID }

func bindingListOwner(owner string) string { return "R#" + owner }

// bindingItem is an interrupt binding. Times are Unix nanoseconds, except
// expiresAt (the TTL attribute, epoch seconds, rounded up from goneAt).
type bindingItem struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	TaskID      string `dynamodbav:"taskId"`
	ContextID   string `dynamodbav:"contextId"`
	Owner       string `dynamodbav:"owner"`
	Type        string `dynamodbav:"type"`
	Details     string `dynamodbav:"details,omitempty"`
	TaskToken   string `dynamodbav:"taskToken,omitempty"`
	CreatedAt   int64  `dynamodbav:"createdAt"`
	ActiveUntil int64  `dynamodbav:"activeUntil"`
	GoneAt      int64  `dynamodbav:"goneAt"`
	ExpiresAt   int64  `dynamodbav:"expiresAt"`
	State       string `dynamodbav:"state"`
	ListOwner   string `dynamodbav:"listOwner"`
	ListSK      string `dynamodbav:"listSK"`
}

func newBindingItem(b store.InterruptBinding) (*bindingItem, error) {
	it := &bindingItem{
		PK: bindingPK(b.RequestID), SK: skBinding, TaskID: b.TaskID, ContextID: b.ContextID, Owner: b.Owner,
		Type: b.Type, TaskToken: b.TaskToken,
		CreatedAt: b.CreatedAt.UnixNano(), ActiveUntil: b.ActiveUntil.UnixNano(), GoneAt: b.ExpiresAt.UnixNano(),
		ExpiresAt: b.ExpiresAt.Add(time.Second - 1).Unix(), State: bindingAsked,
		ListOwner: bindingListOwner(b.Owner), ListSK: a2a.FormatTime(b.CreatedAt) + "#" + b.RequestID,
	}
	if b.Resolved {
		it.State = bindingResolved
	}
	if len(b.Details) > 0 {
		d, err := encodeJSON("interrupt details", b.Details)
		if err != nil {
			return nil, err
		}
		it.Details = d
	}
	return it, nil
}

func (it *bindingItem) binding() (*store.InterruptBinding, error) {
	b := &store.InterruptBinding{
		RequestID: it.PK[len("R#"):], TaskID: it.TaskID, ContextID: it.ContextID, Owner: it.Owner, Type: it.Type,
		TaskToken: it.TaskToken, CreatedAt: time.Unix(0, it.CreatedAt).UTC(), ActiveUntil: time.Unix(0, it.ActiveUntil).UTC(),
		ExpiresAt: time.Unix(0, it.GoneAt).UTC(), Resolved: it.State == bindingResolved,
	}
	if err := unmarshalOptional(it.Details, &b.Details); err != nil {
		return nil, fmt.Errorf("dynamo: decode details of interrupt %s: %w", b.RequestID, err)
	}
	return b, nil
}

// live reports whether the binding exists at t (active or tombstone).
func (it *bindingItem) live(t clockTimes) bool { return t.now.UnixNano() < it.GoneAt }

func decodeBinding(m map[string]dynamodb.AttributeValue) (*bindingItem, error) {
	var it bindingItem
	if err := dynamodb.UnmarshalMap(m, &it); err != nil {
		return nil, fmt.Errorf("dynamo: decode interrupt binding: %w", err)
	}
	return &it, nil
}

// readBinding returns a live binding item, or nil.
func (s *Store) readBinding(ctx context.Context, requestID string, t clockTimes) (*bindingItem, error) {
	if requestID == "" || len(bindingPK(requestID)) > maxKeyBytes {
		return nil, nil
	}
	out, err := s.getItem(ctx, &dynamodb.GetItemInput{Key: key(bindingPK(requestID), skBinding), ConsistentRead: aws.Bool(true)})
	if err != nil || len(out.Item) == 0 {
		return nil, err
	}
	it, err := decodeBinding(out.Item)
	if err != nil || !it.live(t) {
		return nil, err
	}
	return it, nil
}

// ActivateInterrupt implements store.InterruptStore: one transaction
// updates the task (status from its pending interrupt, conditioned on the
// version that was read with it) and creates the binding.
func (s *Store) ActivateInterrupt(ctx context.Context, b store.InterruptBinding, timestamp string) (int64, error) {
	for attempt := 1; ; attempt++ {
		it, err := s.readTask(ctx, b.TaskID)
		if err != nil {
			return 0, err
		}
		if st := a2a.TaskState(it.State); st.Terminal() {
			return 0, &store.ConflictError{Reason: store.ConflictTerminal, State: st, Version: it.Version}
		}
		existing, err := s.readBinding(ctx, b.RequestID, s.times())
		if err != nil {
			return 0, err
		}
		if existing != nil {
			return it.Version, s.setToken(ctx, b.RequestID, b.TaskToken)
		}
		rec, err := it.record()
		if err != nil {
			return 0, err
		}
		p := rec.Pending
		if p == nil || p.RequestID != b.RequestID {
			return 0, store.ErrNotFound
		}
		item, err := newBindingItem(b)
		if err != nil {
			return 0, err
		}
		put := extraWrite{
			item: func(clockTimes) (dynamodb.TransactWriteItem, error) {
				av, err := marshalItem(item)
				if err != nil {
					return dynamodb.TransactWriteItem{}, err
				}
				cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
				if err != nil {
					return dynamodb.TransactWriteItem{}, fmt.Errorf("dynamo: build binding condition: %w", err)
				}
				return dynamodb.TransactWriteItem{Put: &dynamodb.Put{Item: av, ConditionExpression: cond.Condition(),
					ExpressionAttributeNames: cond.Names(), ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld}}, nil
			},
			refused: func(map[string]dynamodb.AttributeValue, clockTimes) error {
				return errBindingRaced
			},
		}
		u := store.Update{
			TaskID:    b.TaskID,
			IfVersion: it.Version,
			Status:    &a2a.TaskStatus{State: p.State, Message: p.Message, Timestamp: timestamp},
		}
		v, err := s.update(ctx, u, writeOpts{extras: []extraWrite{put}, clearPending: true})
		var ce *store.ConflictError
		switch {
		case err == nil:
			return v, nil
		case (errors.Is(err, errBindingRaced) || (errors.As(err, &ce) && ce.Reason == store.ConflictVersion)) && attempt < maxUpdateAttempts:
			continue // another activation or write got in first: read again
		}
		return 0, err
	}
}

// errBindingRaced: the binding appeared between the read and the write.
var errBindingRaced = errors.New("dynamo: interrupt binding created concurrently")

// setToken replaces a live binding's task token.
func (s *Store) setToken(ctx context.Context, requestID, token string) error {
	e, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name(attrBindingToken), expression.Value(token))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build token update: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: key(bindingPK(requestID), skBinding), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if _, ok := conditionFailedItem(err); ok {
		return store.ErrNotFound
	}
	return err
}

// GetInterrupt implements store.InterruptStore.
func (s *Store) GetInterrupt(ctx context.Context, requestID string) (*store.InterruptBinding, error) {
	it, err := s.readBinding(ctx, requestID, s.times())
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, store.ErrNotFound
	}
	return it.binding()
}

// ResolveInterrupt implements store.InterruptStore: one transaction
// applies u and marks the binding resolved, conditioned on it being
// unresolved and active.
func (s *Store) ResolveInterrupt(ctx context.Context, requestID string, u store.Update) (int64, error) {
	if requestID == "" || len(bindingPK(requestID)) > maxKeyBytes {
		return 0, store.ErrNotFound
	}
	resolve := extraWrite{
		item: func(t clockTimes) (dynamodb.TransactWriteItem, error) {
			now := t.now.UnixNano()
			e, err := expression.NewBuilder().
				WithUpdate(expression.Set(expression.Name(attrState), expression.Value(bindingResolved))).
				WithCondition(expression.Name(attrState).Equal(expression.Value(bindingAsked)).
					And(expression.Name(attrBindingActiveTil).GreaterThan(expression.Value(now))).
					And(expression.Name(attrBindingGoneAt).GreaterThan(expression.Value(now)))).Build()
			if err != nil {
				return dynamodb.TransactWriteItem{}, fmt.Errorf("dynamo: build binding resolution: %w", err)
			}
			return dynamodb.TransactWriteItem{Update: &dynamodb.Update{
				Key: key(bindingPK(requestID), skBinding), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
				ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
				ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
			}}, nil
		},
		refused: func(old map[string]dynamodb.AttributeValue, t clockTimes) error {
			if len(old) == 0 {
				return store.ErrNotFound
			}
			it, err := decodeBinding(old)
			if err != nil {
				return err
			}
			switch {
			case !it.live(t):
				return store.ErrNotFound
			case it.State == bindingResolved:
				return &store.InterruptConflictError{Reason: store.InterruptResolved}
			}
			return &store.InterruptConflictError{Reason: store.InterruptExpired}
		},
	}
	return s.update(ctx, u, writeOpts{extras: []extraWrite{resolve}})
}

// ListInterrupts implements store.InterruptStore: the owner's asked
// bindings from the index, then the bindings themselves (strongly
// consistent), keeping those still active.
func (s *Store) ListInterrupts(ctx context.Context, owner string) ([]store.InterruptBinding, error) {
	t := s.times()
	e, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(attrListOwner).Equal(expression.Value(bindingListOwner(owner)))).
		WithFilter(expression.Name(attrState).Equal(expression.Value(bindingAsked)).
			And(expression.Name(attrExpiresAt).GreaterThan(expression.Value(t.unix)))).Build()
	if err != nil {
		return nil, fmt.Errorf("dynamo: build interrupt listing: %w", err)
	}
	var keys []map[string]dynamodb.AttributeValue
	in := &dynamodb.QueryInput{
		IndexName: aws.String(indexByOwner), KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}
	for {
		out, err := s.query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, m := range out.Items {
			keys = append(keys, map[string]dynamodb.AttributeValue{attrPK: m[attrPK], attrSK: m[attrSK]})
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	var out []store.InterruptBinding
	for chunk := range slices.Chunk(keys, 100) {
		items, err := s.getItems(ctx, true, chunk...)
		if err != nil {
			return nil, err
		}
		for _, m := range items {
			if m == nil {
				continue // gone since the index listed it
			}
			it, err := decodeBinding(m)
			if err != nil {
				return nil, err
			}
			if it.State != bindingAsked || it.Owner != owner || t.now.UnixNano() >= it.ActiveUntil {
				continue
			}
			b, err := it.binding()
			if err != nil {
				return nil, err
			}
			out = append(out, *b)
		}
	}
	slices.SortFunc(out, func(a, b store.InterruptBinding) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.RequestID, b.RequestID))
	})
	return out, nil
}
