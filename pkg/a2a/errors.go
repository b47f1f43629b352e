package a2a

import (
	"fmt"
	"net/http"
)

// Code is a JSON-RPC error code.
type Code int

// JSON-RPC 2.0 codes, the A2A codes, and the Bindu extension codes.
const (
	CodeParseError                   Code = -32700
	CodeInvalidRequest               Code = -32600
	CodeMethodNotFound               Code = -32601
	CodeInvalidParams                Code = -32602
	CodeInternal                     Code = -32603
	CodeTaskNotFound                 Code = -32001
	CodeTaskNotCancelable            Code = -32002
	CodePushNotificationNotSupported Code = -32003
	CodeUnsupportedOperation         Code = -32004
	CodeContentTypeNotSupported      Code = -32005
	CodeInvalidAgentResponse         Code = -32006
	CodeExtendedCardNotConfigured    Code = -32007
	CodeExtensionSupportRequired     Code = -32008
	CodeVersionNotSupported          Code = -32009
	CodeContextNotFound              Code = -32020
	CodeContextNotCancelable         Code = -32021
	CodeSkillNotFound                Code = -32030
	// CodeRateLimited: the caller sent more requests than its budget
	// (HTTP 429 in every binding, with Retry-After).
	CodeRateLimited Code = -32060
	// The interrupt callback extension (a2a.interrupt.*).
	CodeInterruptRequestNotFound Code = -32041
	CodeInterruptRequestExpired  Code = -32042
	CodeInterruptTypeMismatch    Code = -32043
)

type codeInfo struct {
	message    string // default message
	reason     string // google.rpc.ErrorInfo reason (A2A 1.0)
	httpStatus int
	rpcStatus  string // google.rpc.Code name, the "status" of REST error bodies
}

var codes = map[Code]codeInfo{
	CodeParseError:                   {"Invalid JSON payload", "PARSE_ERROR", http.StatusBadRequest, "INVALID_ARGUMENT"},
	CodeInvalidRequest:               {"Request payload validation error", "INVALID_REQUEST", http.StatusBadRequest, "INVALID_ARGUMENT"},
	CodeMethodNotFound:               {"Method not found", "METHOD_NOT_FOUND", http.StatusNotImplemented, "UNIMPLEMENTED"},
	CodeInvalidParams:                {"Invalid parameters", "INVALID_PARAMS", http.StatusBadRequest, "INVALID_ARGUMENT"},
	CodeInternal:                     {"Internal error", "INTERNAL_ERROR", http.StatusInternalServerError, "INTERNAL"},
	CodeTaskNotFound:                 {"Task not found", "TASK_NOT_FOUND", http.StatusNotFound, "NOT_FOUND"},
	CodeTaskNotCancelable:            {"Task cannot be canceled", "TASK_NOT_CANCELABLE", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodePushNotificationNotSupported: {"Push Notification is not supported", "PUSH_NOTIFICATION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeUnsupportedOperation:         {"This operation is not supported", "UNSUPPORTED_OPERATION", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeContentTypeNotSupported:      {"Incompatible content types", "CONTENT_TYPE_NOT_SUPPORTED", http.StatusBadRequest, "INVALID_ARGUMENT"},
	CodeInvalidAgentResponse:         {"Invalid agent response", "INVALID_AGENT_RESPONSE", http.StatusInternalServerError, "INTERNAL"},
	CodeExtendedCardNotConfigured:    {"Authenticated Extended Card is not configured", "EXTENDED_AGENT_CARD_NOT_CONFIGURED", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeExtensionSupportRequired:     {"Extension support required", "EXTENSION_SUPPORT_REQUIRED", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeVersionNotSupported:          {"Protocol version not supported", "VERSION_NOT_SUPPORTED", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeContextNotFound:              {"Context not found", "CONTEXT_NOT_FOUND", http.StatusNotFound, "NOT_FOUND"},
	CodeContextNotCancelable:         {"Context not cancelable", "CONTEXT_NOT_CANCELABLE", http.StatusBadRequest, "FAILED_PRECONDITION"},
	CodeSkillNotFound:                {"Skill not found", "SKILL_NOT_FOUND", http.StatusNotFound, "NOT_FOUND"},
	CodeRateLimited:                  {"Too many requests", "RATE_LIMIT_EXCEEDED", http.StatusTooManyRequests, "RESOURCE_EXHAUSTED"},
	CodeInterruptRequestNotFound:     {"Interrupt request not found", "INTERRUPT_REQUEST_NOT_FOUND", http.StatusNotFound, "NOT_FOUND"},
	CodeInterruptRequestExpired:      {"Interrupt request expired", "INTERRUPT_REQUEST_EXPIRED", http.StatusGone, "FAILED_PRECONDITION"},
	CodeInterruptTypeMismatch:        {"Interrupt type mismatch", "INTERRUPT_TYPE_MISMATCH", http.StatusBadRequest, "INVALID_ARGUMENT"},
}

// IsCore reports whether c is one of the A2A protocol's own codes
// (-32001..-32009), which carry no error.data under A2A 0.3.
func (c Code) IsCore() bool { return c <= -32001 && c >= -32009 }

// Reason is the UPPER_SNAKE name of the code (google.rpc.ErrorInfo reason).
func (c Code) Reason() string {
	if i, ok := codes[c]; ok {
		return i.reason
	}
	return "UNKNOWN"
}

// CodeOfReason is the code whose Reason is reason (what a 1.0 error's
// google.rpc.ErrorInfo names), or 0 when no code has it.
func CodeOfReason(reason string) Code {
	if reason == "" {
		return 0
	}
	for c, i := range codes {
		if i.reason == reason {
			return c
		}
	}
	return 0
}

// HTTPStatus is the HTTP status the REST bindings answer with for the code.
func (c Code) HTTPStatus() int {
	if i, ok := codes[c]; ok {
		return i.httpStatus
	}
	if c >= -32099 && c <= -32000 {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// RPCStatus is the google.rpc.Code name of the code ("NOT_FOUND"...).
func (c Code) RPCStatus() string {
	if i, ok := codes[c]; ok {
		return i.rpcStatus
	}
	if c >= -32099 && c <= -32000 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// DefaultMessage is the protocol's default message for the code.
func (c Code) DefaultMessage() string {
	if i, ok := codes[c]; ok {
		return i.message
	}
	return "Error"
}

// Error is a protocol error: a JSON-RPC code, a message that says what went
// wrong, and optional details. It is mapped to the wire once, at the edge, by
// the codec of the request's protocol version.
type Error struct {
	Code    Code
	Message string
	// Reason overrides Code.Reason() for extension errors that share a code
	// (for example INTERRUPT_REQUEST_EXPIRED).
	Reason string
	// Data holds structured details. Under 0.3 it is sent as error.data only
	// for the JSON-RPC framing codes; under 1.0 it becomes ErrorInfo metadata.
	Data map[string]any
	// cause is logged, never sent.
	cause error
}

// Errorf returns an error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code and message whose cause (for logs and
// errors.Is) is err.
func Wrap(code Code, err error, message string) *Error {
	return &Error{Code: code, Message: message, cause: err}
}

// Error implements error.
func (e *Error) Error() string {
	msg := e.WireMessage()
	if e.cause != nil {
		return fmt.Sprintf("%s (%d): %v", msg, e.Code, e.cause)
	}
	return fmt.Sprintf("%s (%d)", msg, e.Code)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.cause }

// Is matches any *Error with the same code (and reason, when the target
// names one), so the sentinels below work with errors.Is.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.Reason == "" || t.Reason == e.WireReason())
}

// WireMessage is the message sent to clients.
func (e *Error) WireMessage() string {
	if e.Message == "" {
		return e.Code.DefaultMessage()
	}
	return e.Message
}

// WireReason is the reason sent in A2A 1.0 error details.
func (e *Error) WireReason() string {
	if e.Reason != "" {
		return e.Reason
	}
	return e.Code.Reason()
}

// WithData returns a copy of e carrying data.
func (e *Error) WithData(data map[string]any) *Error {
	c := *e
	c.Data = data
	return &c
}

// Sentinels for errors.Is; their messages are the protocol defaults.
var (
	ErrParse                        = &Error{Code: CodeParseError}
	ErrInvalidRequest               = &Error{Code: CodeInvalidRequest}
	ErrMethodNotFound               = &Error{Code: CodeMethodNotFound}
	ErrInvalidParams                = &Error{Code: CodeInvalidParams}
	ErrInternal                     = &Error{Code: CodeInternal}
	ErrTaskNotFound                 = &Error{Code: CodeTaskNotFound}
	ErrTaskNotCancelable            = &Error{Code: CodeTaskNotCancelable}
	ErrPushNotificationNotSupported = &Error{Code: CodePushNotificationNotSupported}
	ErrUnsupportedOperation         = &Error{Code: CodeUnsupportedOperation}
	ErrContentTypeNotSupported      = &Error{Code: CodeContentTypeNotSupported}
	ErrInvalidAgentResponse         = &Error{Code: CodeInvalidAgentResponse}
	ErrExtendedCardNotConfigured    = &Error{Code: CodeExtendedCardNotConfigured}
	ErrVersionNotSupported          = &Error{Code: CodeVersionNotSupported}
)

// TaskNotFound is the error for an unknown, expired or foreign task id. It
// never says which of those it was.
func TaskNotFound(id string) *Error {
	return Errorf(CodeTaskNotFound, "task %s not found", id)
}

// InvalidParams is the error for a bad field; field is its JSON path.
func InvalidParams(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: field + ": " + fmt.Sprintf(format, args...)}
}
