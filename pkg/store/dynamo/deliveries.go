package dynamo

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb/expression"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The delivery log.
//
// A delivery (one task version to one push config) is an item of its
// task's partition, SK W#<inverted version>#<configId>, so that one Query
// in key order lists a task's deliveries newest version first, then by
// config id. Each attempt is one UpdateItem that appends it to the item's
// list (creating the item at the first) and sets the delivery's state; the
// list keeps the latest store.MaxDeliveryAttempts (a full list first
// loses its oldest). An item is a child of its task (expiry.go): written
// with the children's expiry and read only through its live task.
//
// A redrive sets deliveryState to queued. That update is what the table's
// stream carries to the push function, which enqueues the item's job again
// (RedriveFromStream; the push function's stream filter lets through the
// W# items whose new image is queued).

const (
	skDeliveryPrefix = "W#"

	attrDeliveryConfigID  = "configId"
	attrDeliveryStateName = "deliveryState"
	attrDeadLettered      = "deadLettered"
	attrNextAttemptAt     = "nextAttemptAt"
	attrRedrives          = "redrives"
	attrAttempts          = "attempts"
	attrJob               = "job"
)

func deliverySK(version int64, configID string) string {
	return fmt.Sprintf("%s%010d#%s", skDeliveryPrefix, maxVersion-version, configID)
}

// deliveryItem is a delivery (SK W#...).
type deliveryItem struct {
	PK            string        `dynamodbav:"PK"`
	SK            string        `dynamodbav:"SK"`
	ConfigID      string        `dynamodbav:"configId"`
	Version       int64         `dynamodbav:"version"`
	State         string        `dynamodbav:"deliveryState"`
	DeadLettered  bool          `dynamodbav:"deadLettered,omitempty"`
	NextAttemptAt int64         `dynamodbav:"nextAttemptAt,omitempty"` // Unix nanoseconds
	Redrives      int           `dynamodbav:"redrives,omitempty"`
	UpdatedAt     int64         `dynamodbav:"updatedAt"` // Unix nanoseconds
	Attempts      []attemptItem `dynamodbav:"attempts"`
	Job           string        `dynamodbav:"job,omitempty"`
	ExpiresAt     int64         `dynamodbav:"expiresAt"`
}

// attemptItem is one attempt in a delivery's list, with short names: a
// delivery item is rewritten (and paid for) whole at every attempt.
type attemptItem struct {
	Attempt       int    `dynamodbav:"n"`
	At            int64  `dynamodbav:"at"` // Unix nanoseconds
	StatusCode    int    `dynamodbav:"code,omitempty"`
	Error         string `dynamodbav:"err,omitempty"`
	State         string `dynamodbav:"st"`
	NextAttemptAt int64  `dynamodbav:"next,omitempty"`
	DeadLettered  bool   `dynamodbav:"dl,omitempty"`
}

func (it *deliveryItem) delivery() store.Delivery {
	d := store.Delivery{
		TaskID: taskIDFromPK(it.PK), ConfigID: it.ConfigID, Version: it.Version, State: it.State,
		DeadLettered: it.DeadLettered, NextAttemptAt: unixNanoOrZero(it.NextAttemptAt), Redrives: it.Redrives,
		UpdatedAt: unixNanoOrZero(it.UpdatedAt), Attempts: make([]store.DeliveryAttempt, len(it.Attempts)),
	}
	if it.Job != "" {
		d.Job = []byte(it.Job)
	}
	for i, a := range it.Attempts {
		d.Attempts[i] = store.DeliveryAttempt{
			ConfigID: it.ConfigID, Version: it.Version, Attempt: a.Attempt, At: unixNanoOrZero(a.At), StatusCode: a.StatusCode,
			Error: a.Error, State: a.State, NextAttemptAt: unixNanoOrZero(a.NextAttemptAt), DeadLettered: a.DeadLettered,
		}
	}
	return d
}

func decodeDelivery(m map[string]dynamodb.AttributeValue) (store.Delivery, error) {
	var it deliveryItem
	if err := dynamodb.UnmarshalMap(m, &it); err != nil {
		return store.Delivery{}, fmt.Errorf("dynamo: decode delivery: %w", err)
	}
	return it.delivery(), nil
}

// logAttempts bounds the tries of LogDelivery (each a full list trimmed,
// then the append).
const logAttempts = 3

// LogDelivery implements store.DeliveryLog with one UpdateItem of the
// delivery item (two more when its list is full). It does not read the
// task: an attempt of a task that is gone is stored under its key, where
// no read finds it, and expires.
func (s *Store) LogDelivery(ctx context.Context, taskID string, a store.DeliveryAttempt) error {
	if !validTaskID(taskID) || !validConfigID(a.ConfigID) || a.Version < 1 || a.Version > maxVersion {
		return store.ErrNotFound
	}
	t := s.times()
	attempt, err := dynamodb.Marshal([]attemptItem{{
		Attempt: a.Attempt, At: timeOrZero(a.At), StatusCode: a.StatusCode, Error: a.Error,
		State: a.State, NextAttemptAt: timeOrZero(a.NextAttemptAt), DeadLettered: a.DeadLettered,
	}})
	if err != nil {
		return fmt.Errorf("dynamo: encode delivery attempt: %w", err)
	}
	attempts := expression.Name(attrAttempts)
	empty := expression.Value(&dynamodb.AttributeValueMemberL{Value: []dynamodb.AttributeValue{}})
	set := expression.Set(expression.Name(attrDeliveryConfigID), expression.Value(a.ConfigID)).
		Set(expression.Name(attrVersion), expression.Value(a.Version)).
		Set(expression.Name(attrDeliveryStateName), expression.Value(a.State)).
		Set(expression.Name(attrUpdatedAt), expression.Value(t.now.UnixNano())).
		Set(expression.Name(attrExpiresAt), expression.Value(t.childExpiry)).
		Set(attempts, expression.ListAppend(expression.IfNotExists(attempts, empty), expression.Value(attempt)))
	if a.DeadLettered {
		set = set.Set(expression.Name(attrDeadLettered), expression.Value(true))
	} else {
		set = set.Remove(expression.Name(attrDeadLettered))
	}
	if a.NextAttemptAt.IsZero() {
		set = set.Remove(expression.Name(attrNextAttemptAt))
	} else {
		set = set.Set(expression.Name(attrNextAttemptAt), expression.Value(a.NextAttemptAt.UnixNano()))
	}
	if len(a.Job) > 0 {
		set = set.Set(expression.Name(attrJob), expression.Value(string(a.Job)))
	}
	room := expression.AttributeNotExists(attempts).Or(expression.Size(attempts).LessThan(expression.Value(store.MaxDeliveryAttempts)))
	e, err := expression.NewBuilder().WithUpdate(set).WithCondition(room).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build delivery attempt: %w", err)
	}
	k := key(taskPK(taskID), deliverySK(a.Version, a.ConfigID))
	for range logAttempts {
		_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
			Key: k, UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		})
		if _, full := conditionFailedItem(err); !full {
			return otherFailure(err, "the delivery log of task "+taskID)
		}
		if err := s.trimAttempts(ctx, k); err != nil {
			return err
		}
	}
	return fmt.Errorf("dynamo: the delivery log of task %s: its attempts list stayed full", taskID)
}

// trimAttempts removes the oldest attempt of a delivery whose list is full.
func (s *Store) trimAttempts(ctx context.Context, k map[string]dynamodb.AttributeValue) error {
	attempts := expression.Name(attrAttempts)
	e, err := expression.NewBuilder().WithUpdate(expression.Remove(expression.Name(attrAttempts + "[0]"))).
		WithCondition(expression.Size(attempts).GreaterThanEqual(expression.Value(store.MaxDeliveryAttempts))).Build()
	if err != nil {
		return fmt.Errorf("dynamo: build delivery trim: %w", err)
	}
	_, err = s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key: k, UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if _, refused := conditionFailedItem(err); refused {
		return nil // trimmed by another writer meanwhile
	}
	return err
}

// ListDeliveries implements store.DeliveryLog: the task item, then one
// Query of its W# items in key order. The cursor is the sort key of the
// page's last delivery, base64url encoded.
func (s *Store) ListDeliveries(ctx context.Context, q store.DeliveryQuery) (store.DeliveryPage, error) {
	var start map[string]dynamodb.AttributeValue
	if q.Cursor != "" {
		sk, err := decodeDeliveryCursor(q.Cursor)
		if err != nil {
			return store.DeliveryPage{}, err
		}
		start = key(taskPK(q.TaskID), sk)
	}
	if !validTaskID(q.TaskID) {
		return store.DeliveryPage{}, store.ErrNotFound
	}
	if _, err := s.readTask(ctx, q.TaskID); err != nil {
		return store.DeliveryPage{}, err
	}
	out, err := s.query(ctx, &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String("#pk = :pk AND begins_with(#sk, :prefix)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]dynamodb.AttributeValue{":pk": &dynamodb.AttributeValueMemberS{Value: taskPK(q.TaskID)}, ":prefix": &dynamodb.AttributeValueMemberS{Value: skDeliveryPrefix}},
		ConsistentRead:            aws.Bool(true), Limit: aws.Int32(int32(q.PageSize + 1)), ExclusiveStartKey: start,
	})
	if err != nil {
		return store.DeliveryPage{}, err
	}
	var page store.DeliveryPage
	for i, m := range out.Items {
		if i == q.PageSize {
			last := page.Deliveries[i-1]
			page.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(deliverySK(last.Version, last.ConfigID)))
			break
		}
		d, err := decodeDelivery(m)
		if err != nil {
			return store.DeliveryPage{}, err
		}
		page.Deliveries = append(page.Deliveries, d)
	}
	return page, nil
}

// decodeDeliveryCursor returns the sort key of a deliveries cursor, or an
// invalid params error.
func decodeDeliveryCursor(c string) (string, error) {
	bad := a2a.InvalidParams("params.pageToken", "is not a page token of this list; start again without pageToken")
	if len(c) > 2*maxKeyBytes {
		return "", bad
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", bad
	}
	rest, ok := strings.CutPrefix(string(b), skDeliveryPrefix)
	v, configID, found := strings.Cut(rest, "#")
	if _, perr := strconv.ParseUint(v, 10, 64); !ok || !found || perr != nil || len(v) != 10 || !validConfigID(configID) {
		return "", bad
	}
	return string(b), nil
}

// RedriveDelivery implements store.DeliveryLog: the task item, then one
// conditional UpdateItem of the delivery.
func (s *Store) RedriveDelivery(ctx context.Context, taskID, configID string, version int64) (*store.Delivery, error) {
	if !validTaskID(taskID) || !validConfigID(configID) || version < 1 || version > maxVersion {
		return nil, store.ErrNotFound
	}
	if _, err := s.readTask(ctx, taskID); err != nil {
		return nil, err
	}
	// The expression is written out: the builder's code would weigh on
	// the send and tasks functions, whose binaries are near their limit.
	out, err := s.updateItem(ctx, &dynamodb.UpdateItemInput{
		Key:                 key(taskPK(taskID), deliverySK(version, configID)),
		UpdateExpression:    aws.String("SET #state = :queued, #updated = :now, #redrives = if_not_exists(#redrives, :zero) + :one REMOVE #dl, #next"),
		ConditionExpression: aws.String("#state = :failed AND attribute_exists(#job)"),
		ExpressionAttributeNames: map[string]string{"#state": attrDeliveryStateName, "#updated": attrUpdatedAt, "#redrives": attrRedrives,
			"#dl": attrDeadLettered, "#next": attrNextAttemptAt, "#job": attrJob},
		ExpressionAttributeValues: map[string]dynamodb.AttributeValue{
			":queued": &dynamodb.AttributeValueMemberS{Value: a2a.DeliveryQueued}, ":failed": &dynamodb.AttributeValueMemberS{Value: a2a.DeliveryFailed},
			":now":  &dynamodb.AttributeValueMemberN{Value: strconv.FormatInt(s.times().now.UnixNano(), 10)},
			":zero": &dynamodb.AttributeValueMemberN{Value: "0"}, ":one": &dynamodb.AttributeValueMemberN{Value: "1"},
		},
		ReturnValues: dynamodb.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: dynamodb.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if old, refused := conditionFailedItem(err); refused {
		if len(old) == 0 {
			return nil, store.ErrNotFound
		}
		d, err := decodeDelivery(old)
		if err != nil {
			return nil, err
		}
		return nil, &store.DeliveryStateError{State: d.State}
	}
	if err != nil {
		return nil, err
	}
	d, err := decodeDelivery(out.Attributes)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// RedriveFromStream reads one record of the table's stream (as
// ChangeFromStream) and returns the delivery a redrive queued, or nil when
// the record is not one: any item but a delivery, and a delivery update
// that did not make it queued.
func RedriveFromStream(r events.DynamoDBEventRecord) (*store.Delivery, error) {
	if r.EventName != string(events.DynamoDBOperationTypeModify) {
		return nil, nil
	}
	if sk := r.Change.Keys[attrSK]; sk.DataType() != events.DataTypeString || !strings.HasPrefix(sk.String(), skDeliveryPrefix) {
		return nil, nil
	}
	if st := r.Change.NewImage[attrDeliveryStateName]; st.DataType() != events.DataTypeString || st.String() != a2a.DeliveryQueued {
		return nil, nil
	}
	if old := r.Change.OldImage[attrDeliveryStateName]; old.DataType() == events.DataTypeString && old.String() == a2a.DeliveryQueued {
		return nil, nil
	}
	img, err := convertImage(r.Change.NewImage, fromStream)
	if err != nil {
		return nil, err
	}
	d, err := decodeDelivery(img)
	if err != nil {
		return nil, fmt.Errorf("dynamo: stream record %s: %w", r.EventID, err)
	}
	return &d, nil
}
func unixNanoOrZero(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func timeOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
