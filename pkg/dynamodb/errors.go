package dynamodb

import (
	"encoding/json"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// Error is DynamoDB's refusal of a call that has no type of its own below,
// such as ValidationException, or throttling (ThrottlingException,
// ProvisionedThroughputExceededException, RequestLimitExceeded) that
// outlasted the client's attempts: Code names it.
type Error = awscall.Error

// ConditionalCheckFailedException: a single-item write's condition was
// false. Item is the item as it was, when the request asked for it
// (ReturnValuesOnConditionCheckFailure ALL_OLD) and there was one.
type ConditionalCheckFailedException struct {
	Message string
	Item    map[string]AttributeValue
}

// TransactionCanceledException: a transaction wrote nothing. Its
// CancellationReasons say why, one per item of the transaction, in order
// ("None" for the items that were not the cause).
type TransactionCanceledException struct {
	Message             string
	CancellationReasons []CancellationReason
}

// CancellationReason is why one item of a transaction canceled it: Code
// is ConditionalCheckFailed, TransactionConflict, ValidationError,
// ThrottlingError, ItemCollectionSizeLimitExceeded... or None. Item is the
// item as it was, for a failed condition that asked for it.
type CancellationReason struct {
	Code    *string
	Message *string
	Item    map[string]AttributeValue
}

// TransactionConflictException: another transaction was writing the item.
type TransactionConflictException struct{ Message string }

// ResourceInUseException: the table exists already, or is being created
// or deleted.
type ResourceInUseException struct{ Message string }

// ResourceNotFoundException: no such table or index (or it is not active
// yet).
type ResourceNotFoundException struct{ Message string }

func (e *ConditionalCheckFailedException) Error() string {
	return "ConditionalCheckFailedException: " + e.Message
}
func (e *TransactionCanceledException) Error() string {
	return "TransactionCanceledException: " + e.Message
}
func (e *TransactionConflictException) Error() string {
	return "TransactionConflictException: " + e.Message
}
func (e *ResourceInUseException) Error() string    { return "ResourceInUseException: " + e.Message }
func (e *ResourceNotFoundException) Error() string { return "ResourceNotFoundException: " + e.Message }

// ErrorCode is the error's type as DynamoDB names it.
func (e *ConditionalCheckFailedException) ErrorCode() string {
	return "ConditionalCheckFailedException"
}
func (e *TransactionCanceledException) ErrorCode() string { return "TransactionCanceledException" }
func (e *TransactionConflictException) ErrorCode() string { return "TransactionConflictException" }
func (e *ResourceInUseException) ErrorCode() string       { return "ResourceInUseException" }
func (e *ResourceNotFoundException) ErrorCode() string    { return "ResourceNotFoundException" }

// decodeError is the error of an answer that is not a success: one of the
// types above for the refusals that have one, else an *Error.
func decodeError(resp *http.Response, body []byte) error {
	e := awscall.JSONError(resp, body)
	switch e.Code {
	case "ConditionalCheckFailedException":
		var w struct{ Item wireItem }
		_ = json.Unmarshal(body, &w) // a malformed item is no item
		return &ConditionalCheckFailedException{Message: e.Message, Item: w.Item}
	case "TransactionCanceledException":
		var w struct {
			CancellationReasons []struct {
				Code, Message *string
				Item          wireItem
			}
		}
		_ = json.Unmarshal(body, &w) // without reasons, the cancellation still says what happened
		tce := &TransactionCanceledException{Message: e.Message}
		for _, r := range w.CancellationReasons {
			tce.CancellationReasons = append(tce.CancellationReasons, CancellationReason{Code: r.Code, Message: r.Message, Item: r.Item})
		}
		return tce
	case "TransactionConflictException":
		return &TransactionConflictException{Message: e.Message}
	case "ResourceInUseException":
		return &ResourceInUseException{Message: e.Message}
	case "ResourceNotFoundException":
		return &ResourceNotFoundException{Message: e.Message}
	}
	return e
}
