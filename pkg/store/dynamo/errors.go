package dynamo

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// dynamoItemLimit is DynamoDB's item size limit, for error messages.
const dynamoItemLimit = 400 << 10

// Internal outcomes of a refused update that the update loop handles.
var (
	// errVersionMoved: an update without IfVersion lost a race; read again.
	errVersionMoved = errors.New("dynamo: the task changed since it was read")
	// errChildrenExpire: the task's messages and artifacts would expire
	// before it; extend them and write again (see expiry.go).
	errChildrenExpire = errors.New("dynamo: the task's children expire too early")
	// errContention: DynamoDB refused a write that raced another
	// transaction on the same item; write again.
	errContention = errors.New("dynamo: transaction conflict")
)

// cancellation returns the reasons of a canceled transaction, or nil when
// err is something else.
func cancellation(err error) []dynamodb.CancellationReason {
	var tce *dynamodb.TransactionCanceledException
	if errors.As(err, &tce) {
		return tce.CancellationReasons
	}
	return nil
}

// failedCondition reports whether a transaction item failed its condition.
func failedCondition(reasons []dynamodb.CancellationReason, i int) bool {
	return i < len(reasons) && aws.ToString(reasons[i].Code) == "ConditionalCheckFailed"
}

// conditionFailedItem returns the item (ALL_OLD) of a failed single-item
// conditional write, and whether err was one.
func conditionFailedItem(err error) (map[string]dynamodb.AttributeValue, bool) {
	var ccf *dynamodb.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf.Item, true
	}
	return nil, false
}

// otherFailure maps what is not a failed condition: item size limits to
// *store.TooLargeError, transaction contention to errContention, anything
// else to itself.
func otherFailure(err error, what string) error {
	reasons := cancellation(err)
	for _, r := range reasons {
		if aws.ToString(r.Code) == "ValidationError" && isSizeMessage(aws.ToString(r.Message)) {
			return tooLarge(what)
		}
	}
	if slices.ContainsFunc(reasons, func(r dynamodb.CancellationReason) bool {
		return aws.ToString(r.Code) == "TransactionConflict"
	}) {
		return errContention
	}
	var tce *dynamodb.TransactionConflictException
	if errors.As(err, &tce) {
		return errContention
	}
	var ae *dynamodb.Error
	if errors.As(err, &ae) && ae.Code == "ValidationException" && isSizeMessage(ae.Message) {
		return tooLarge(what)
	}
	return err
}

// isSizeMessage recognises DynamoDB's size limit messages: "Item size has
// exceeded the maximum allowed size", "Item size to update has exceeded...",
// "Size of hashkey has exceeded...", "Transaction request cannot be larger
// than 4 MB".
func isSizeMessage(msg string) bool {
	m := strings.ToLower(msg)
	return (strings.Contains(m, "size") && strings.Contains(m, "exceed")) || strings.Contains(m, "cannot be larger than")
}

func tooLarge(what string) error {
	return &store.TooLargeError{What: what + " (DynamoDB refused the item size)", Limit: dynamoItemLimit}
}

// refusedUpdate explains why the condition of an update failed, from the
// task item as it was (ALL_OLD; nil when there was none). The order is the
// memory store's: not found, terminal, version, state.
func refusedUpdate(old map[string]dynamodb.AttributeValue, u *store.Update, expected int64, t clockTimes) error {
	it, err := liveTask(old, t)
	if err != nil {
		return err
	}
	if err := conflictOf(it, u); err != nil {
		return err
	}
	switch {
	case it.Version != expected:
		return errVersionMoved
	case it.ChildrenExpireAt < t.taskExpiry:
		return errChildrenExpire
	}
	return fmt.Errorf("dynamo: update of task %s refused, but the task meets its conditions", taskIDFromPK(it.PK))
}

// conflictOf returns the *store.ConflictError of u's conditions against
// the task item it, nil when it meets them. The order is the memory
// store's: terminal, version, state.
func conflictOf(it *taskItem, u *store.Update) error {
	state := a2a.TaskState(it.State)
	switch {
	case state.Terminal():
		return &store.ConflictError{Reason: store.ConflictTerminal, State: state, Version: it.Version}
	case u.IfVersion > 0 && it.Version != u.IfVersion:
		return &store.ConflictError{Reason: store.ConflictVersion, State: state, Version: it.Version}
	case len(u.IfStates) > 0 && !slices.Contains(u.IfStates, state):
		return &store.ConflictError{Reason: store.ConflictState, State: state, Version: it.Version}
	}
	return nil
}

// liveTask decodes the old image of a refused write to a task item:
// store.ErrNotFound when there was no item or it had expired.
func liveTask(old map[string]dynamodb.AttributeValue, t clockTimes) (*taskItem, error) {
	if len(old) == 0 {
		return nil, store.ErrNotFound
	}
	it, err := decodeTaskItem(old)
	if err != nil {
		return nil, err
	}
	if !it.live(t) {
		return nil, store.ErrNotFound
	}
	return it, nil
}

// duplicateOf returns the *store.DuplicateError of an idempotency record
// (ALL_OLD of its failed condition): a record item, or the task that is its
// own record.
// duplicateTask is the refusal of a new task whose id a live one has (the
// task its message created first), with that task when its item, returned
// by the refused write, holds all of it: created finished, its messages
// and artifacts inside it (see CreateTask). A retried blocking send then
// answers without reading it.
func duplicateTask(old map[string]dynamodb.AttributeValue, it *taskItem) error {
	err := duplicateOf(old)
	var dup *store.DuplicateError
	if !errors.As(err, &dup) || it.RecordOf != "" {
		return err
	}
	whole := it.Version == 1 && it.FirstMessage != "" && (it.Artifacts != "" || len(it.CompletedArtifacts) == 0) &&
		a2a.TaskState(it.State).Terminal()
	if !whole {
		return err
	}
	p := partition{task: it}
	if rec, rerr := p.record(-1, true); rerr == nil {
		dup.Task = rec
	}
	return dup
}

// duplicateOf is the refusal of a message whose record (or own task) is
// old, with the first send's fingerprint and, for the message's own task,
// its creation time.
func duplicateOf(old map[string]dynamodb.AttributeValue) error {
	fp, _ := old[attrFingerprint].(*dynamodb.AttributeValueMemberS)
	dup := &store.DuplicateError{}
	if fp != nil {
		dup.Fingerprint = fp.Value
	}
	if v, ok := old[attrRecordOf].(*dynamodb.AttributeValueMemberS); ok {
		dup.TaskID = v.Value
		return dup
	}
	if pk, ok := old[attrPK].(*dynamodb.AttributeValueMemberS); ok && old[attrState] != nil {
		dup.TaskID = taskIDFromPK(pk.Value)
		if c, ok := old[attrCreatedAt].(*dynamodb.AttributeValueMemberN); ok {
			if ns, err := strconv.ParseInt(c.Value, 10, 64); err == nil {
				dup.CreatedAt = time.Unix(0, ns).UTC()
			}
		}
		return dup
	}
	return errors.New("dynamo: idempotency record without a task")
}
