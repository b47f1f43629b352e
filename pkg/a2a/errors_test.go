package a2a

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorsMatchSentinelsByCode(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", TaskNotFound("t1"))
	assert.ErrorIs(t, err, ErrTaskNotFound)
	assert.NotErrorIs(t, err, ErrTaskNotCancelable)
	var ae *Error
	assert.True(t, errors.As(err, &ae))
	assert.Equal(t, "task t1 not found", ae.WireMessage())
}

func TestErrorCause(t *testing.T) {
	cause := errors.New("disk full")
	err := Wrap(CodeInternal, cause, "could not store")
	assert.ErrorIs(t, err, cause)
	assert.Equal(t, "could not store", err.WireMessage(), "the cause is never sent")
}

func TestCodeTables(t *testing.T) {
	tests := []struct {
		code   Code
		reason string
		http   int
		status string
	}{
		{CodeParseError, "PARSE_ERROR", http.StatusBadRequest, "INVALID_ARGUMENT"},
		{CodeMethodNotFound, "METHOD_NOT_FOUND", http.StatusNotImplemented, "UNIMPLEMENTED"},
		{CodeInternal, "INTERNAL_ERROR", http.StatusInternalServerError, "INTERNAL"},
		{CodeTaskNotFound, "TASK_NOT_FOUND", http.StatusNotFound, "NOT_FOUND"},
		{CodeTaskNotCancelable, "TASK_NOT_CANCELABLE", http.StatusBadRequest, "FAILED_PRECONDITION"},
		{CodePushNotificationNotSupported, "PUSH_NOTIFICATION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION"},
		{CodeUnsupportedOperation, "UNSUPPORTED_OPERATION", http.StatusBadRequest, "FAILED_PRECONDITION"},
		{CodeContentTypeNotSupported, "CONTENT_TYPE_NOT_SUPPORTED", http.StatusBadRequest, "INVALID_ARGUMENT"},
		{CodeInvalidAgentResponse, "INVALID_AGENT_RESPONSE", http.StatusInternalServerError, "INTERNAL"},
		{CodeExtendedCardNotConfigured, "EXTENDED_AGENT_CARD_NOT_CONFIGURED", http.StatusBadRequest, "FAILED_PRECONDITION"},
		{CodeVersionNotSupported, "VERSION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION"},
		{CodeRateLimited, "RATE_LIMIT_EXCEEDED", http.StatusTooManyRequests, "RESOURCE_EXHAUSTED"},
		{Code(-32050), "UNKNOWN", http.StatusBadRequest, "FAILED_PRECONDITION"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.reason, tt.code.Reason(), tt.code)
		assert.Equal(t, tt.http, tt.code.HTTPStatus(), tt.code)
		assert.Equal(t, tt.status, tt.code.RPCStatus(), tt.code)
		if tt.reason != "UNKNOWN" {
			assert.Equal(t, tt.code, CodeOfReason(tt.reason), "the reason maps back to its code")
		}
	}
	assert.Zero(t, CodeOfReason("UNKNOWN"))
	assert.Zero(t, CodeOfReason(""))
	reasoned := &Error{Code: CodeInvalidParams, Reason: "INTERRUPT_REQUEST_EXPIRED"}
	assert.Equal(t, "INTERRUPT_REQUEST_EXPIRED", reasoned.WireReason())
	assert.ErrorIs(t, reasoned, &Error{Code: CodeInvalidParams, Reason: "INTERRUPT_REQUEST_EXPIRED"})
	assert.NotErrorIs(t, reasoned, &Error{Code: CodeInvalidParams, Reason: "INTERRUPT_REQUEST_NOT_FOUND"})
}
