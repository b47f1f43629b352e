package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Push notification configs.
//
// A config is an item of its task's partition (SK P#<configId>) holding the
// registration as JSON, secrets included: the table is encrypted at rest,
// and only the service's redacted view leaves the store. The task item keeps
// the set of its config ids (pushConfigs), so that:
//
//   - the limit of store.MaxPushConfigs is a condition on the task item,
//     checked atomically with the config's write;
//   - a change of the task item, as the table's stream shows it, names the
//     configs to notify without reading anything (see ChangeFromStream).
//
// A config item expires with the task's children (expiry.go), and like
// them is read only through its live task.
//
// The task item also gets hasPush (true) with its first config, and keeps
// it: the push function's event source mapping filters the stream on it,
// so that the changes of tasks that never had a webhook, most tasks, never
// invoke the function (template.yaml, PushStreamMapping). ChangeFromStream
// reports no change of a task without configs, as the memory store.

const (
	skPushPrefix = "P#"

	attrPushConfigs        = "pushConfigs"
	attrCompletedArtifacts = "completedArtifacts"

	// maxConfigIDBytes bounds a config id so that its sort key fits.
	maxConfigIDBytes = 512
)

func pushSK(configID string) string { return skPushPrefix + configID }

// pushConfigItem is a push config (SK P#<configId>).
type pushConfigItem struct {
	PK string `dynamodbav:"PK"`
	SK string `dynamodbav:"SK"`
	// Config is the a2a.PushNotificationConfig as JSON.
	Config          string `dynamodbav:"config"`
	ProtocolVersion string `dynamodbav:"protocolVersion,omitempty"`
	CreatedAt       int64  `dynamodbav:"createdAt"` // Unix nanoseconds
	ExpiresAt       int64  `dynamodbav:"expiresAt"`
}

func validConfigID(id string) bool {
	return id != "" && len(id) <= maxConfigIDBytes && !strings.ContainsRune(id, 0)
}

func newPushConfigItem(c store.PushConfig, t clockTimes) (map[string]dynamodb.AttributeValue, error) {
	if !validConfigID(c.Config.ID) {
		return nil, fmt.Errorf("dynamo: %q is not a usable push config id", c.Config.ID)
	}
	cfg, err := json.Marshal(c.Config)
	if err != nil {
		return nil, fmt.Errorf("dynamo: encode push config: %w", err)
	}
	created := c.CreatedAt
	if created.IsZero() {
		created = t.now
	}
	return marshalItem(pushConfigItem{
		PK: taskPK(c.TaskID), SK: pushSK(c.Config.ID), Config: string(cfg),
		ProtocolVersion: string(c.ProtocolVersion), CreatedAt: created.UnixNano(), ExpiresAt: t.childExpiry,
	})
}

func (it *pushConfigItem) config() (*store.PushConfig, error) {
	c := &store.PushConfig{
		TaskID:          taskIDFromPK(it.PK),
		ProtocolVersion: a2a.Version(it.ProtocolVersion),
		CreatedAt:       time.Unix(0, it.CreatedAt).UTC(),
	}
	if err := json.Unmarshal([]byte(it.Config), &c.Config); err != nil {
		return nil, fmt.Errorf("dynamo: decode push config %s of task %s: %w", it.SK, c.TaskID, err)
	}
	return c, nil
}

// PutPushConfig implements store.PushConfigStore: one transaction adds
// the id to the task's set, conditioned on the task being live and having
// room, and writes the config item (replacing one with the same id).
func (s *Store) PutPushConfig(ctx context.Context, c store.PushConfig) error {
	if !validTaskID(c.TaskID) {
		return store.ErrNotFound
	}
	t := s.times()
	item, err := newPushConfigItem(c, t)
	if err != nil {
		return err
	}
	ids := expression.Value(&dynamodb.AttributeValueMemberSS{Value: []string{c.Config.ID}})
	room := expression.AttributeNotExists(expression.Name(attrPushConfigs)).
		Or(expression.Size(expression.Name(attrPushConfigs)).LessThan(expression.Value(store.MaxPushConfigs))).
		Or(expression.Contains(expression.Name(attrPushConfigs), c.Config.ID))
	cond := s.liveTaskCond(t).
		And(room)
	// hasPush lets the task's changes through the push function's stream
	// filter from now on.
	set := expression.Add(expression.Name(attrPushConfigs), ids).Set(expression.Name(attrHasPush), expression.Value(true))
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(cond).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build push config update: %w", err)
	}
	err = s.transact(ctx, []dynamodb.TransactWriteItem{
		{Update: &dynamodb.Update{
			Key: taskKey(c.TaskID), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
			ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
		}},
		{Put: &dynamodb.Put{Item: item}},
	})
	reasons := cancellation(err)
	switch {
	case err == nil:
		return nil
	case failedCondition(reasons, 0):
		if _, lerr := liveTask(reasons[0].Item, t); lerr != nil {
			return lerr
		}
		return &store.TooManyConfigsError{Limit: store.MaxPushConfigs}
	}
	return otherFailure(err, "the push config of task "+c.TaskID)
}

// GetPushConfig implements store.PushConfigStore with one strongly
// consistent BatchGetItem of the task and the config.
func (s *Store) GetPushConfig(ctx context.Context, taskID, configID string) (*store.PushConfig, error) {
	if !validTaskID(taskID) || !validConfigID(configID) {
		return nil, store.ErrNotFound
	}
	items, err := s.getItems(ctx, true, taskKey(taskID), key(taskPK(taskID), pushSK(configID)))
	if err != nil {
		return nil, err
	}
	if items[0] == nil || items[1] == nil {
		return nil, store.ErrNotFound
	}
	if _, err := liveTask(items[0], s.times()); err != nil {
		return nil, err
	}
	var it pushConfigItem
	if err := dynamodb.UnmarshalMap(items[1], &it); err != nil {
		return nil, fmt.Errorf("dynamo: decode push config %s of task %s: %w", configID, taskID, err)
	}
	return it.config()
}

// ListPushConfigs implements store.PushConfigStore: the task item names
// its configs, one BatchGetItem reads them (two requests in all).
func (s *Store) ListPushConfigs(ctx context.Context, taskID string) ([]store.PushConfig, error) {
	if !validTaskID(taskID) {
		return nil, store.ErrNotFound
	}
	task, err := s.readTask(ctx, taskID)
	if err != nil {
		return nil, err
	}
	if len(task.PushConfigs) == 0 {
		return []store.PushConfig{}, nil
	}
	ids := slices.Sorted(slices.Values(task.PushConfigs))
	keys := make([]map[string]dynamodb.AttributeValue, len(ids))
	for i, id := range ids {
		keys[i] = key(taskPK(taskID), pushSK(id))
	}
	items, err := s.getItems(ctx, true, keys...)
	if err != nil {
		return nil, err
	}
	out := make([]store.PushConfig, 0, len(items))
	for i, m := range items {
		if m == nil { // deleted between the two reads
			continue
		}
		var it pushConfigItem
		if err := dynamodb.UnmarshalMap(m, &it); err != nil {
			return nil, fmt.Errorf("dynamo: decode push config %s of task %s: %w", ids[i], taskID, err)
		}
		c, err := it.config()
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, nil
}

// DeletePushConfig implements store.PushConfigStore: one transaction
// removes the id from the task's set and deletes the item. A config of a
// task that is gone is gone too.
func (s *Store) DeletePushConfig(ctx context.Context, taskID, configID string) error {
	if !validTaskID(taskID) || !validConfigID(configID) {
		return nil
	}
	ids := expression.Value(&dynamodb.AttributeValueMemberSS{Value: []string{configID}})
	e, err := expression.NewBuilder().
		WithUpdate(expression.Delete(expression.Name(attrPushConfigs), ids)).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build push config delete: %w", err)
	}
	err = s.transact(ctx, []dynamodb.TransactWriteItem{
		{Update: &dynamodb.Update{
			Key: taskKey(taskID), UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		}},
		{Delete: &dynamodb.Delete{Key: key(taskPK(taskID), pushSK(configID))}},
	})
	if err == nil || failedCondition(cancellation(err), 0) {
		return nil
	}
	return otherFailure(err, "the deletion of push config "+configID)
}

// pushConfigWrites are the items CreateTask writes for the configs of a new
// task.
func pushConfigWrites(taskID string, configs []store.PushConfig, t clockTimes) ([]dynamodb.TransactWriteItem, []string, error) {
	if len(configs) > store.MaxPushConfigs {
		return nil, nil, &store.TooManyConfigsError{Limit: store.MaxPushConfigs}
	}
	var items []dynamodb.TransactWriteItem
	var ids []string
	for _, c := range configs {
		c.TaskID = taskID
		if slices.Contains(ids, c.Config.ID) {
			return nil, nil, fmt.Errorf("dynamo: push config id %s given twice", c.Config.ID)
		}
		item, err := newPushConfigItem(c, t)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, dynamodb.TransactWriteItem{Put: &dynamodb.Put{Item: item}})
		ids = append(ids, c.Config.ID)
	}
	return items, ids, nil
}
