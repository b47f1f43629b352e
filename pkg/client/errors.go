package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// ErrUnauthenticated matches (errors.Is) an Error whose HTTP status is 401:
// the server wants a token, or refused the one sent.
var ErrUnauthenticated = errors.New("the server refused the request: a valid bearer token is required")

// Error is an error answered by an A2A server: a JSON-RPC error object, a
// REST google.rpc.Status body, or an HTTP error without a protocol body.
//
// When the server named an A2A error (a JSON-RPC code, or an ErrorInfo
// reason), Code is set and errors.Is matches the sentinels of pkg/a2a
// (a2a.ErrTaskNotFound...): Unwrap returns the equivalent *a2a.Error.
type Error struct {
	// Op is the operation that failed ("tasks/get", "GET /tasks/{id}"...).
	Op string
	// HTTPStatus is the status of the response; 200 for a JSON-RPC error.
	HTTPStatus int
	// Code is the A2A / JSON-RPC code, or 0 when the server named none.
	Code a2a.Code
	// Reason is the UPPER_SNAKE reason of the error (google.rpc.ErrorInfo),
	// derived from Code when the server sent none.
	Reason string
	// Message is the server's message.
	Message string
	// Data holds structured details: the 0.3 error.data object, or the
	// metadata of the 1.0 ErrorInfo.
	Data map[string]any
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	msg := e.Message
	if msg == "" && e.Code != 0 {
		msg = e.Code.DefaultMessage()
	}
	if msg == "" {
		msg = http.StatusText(e.HTTPStatus)
	}
	b.WriteString(msg)
	switch {
	case e.Code != 0:
		fmt.Fprintf(&b, " (%s, code %d)", e.Reason, e.Code)
	case e.HTTPStatus != 0 && e.HTTPStatus != http.StatusOK:
		fmt.Fprintf(&b, " (HTTP %d)", e.HTTPStatus)
	}
	return b.String()
}

// Unwrap returns the protocol error the server named, so that errors.Is and
// errors.As work with pkg/a2a's *Error and sentinels.
func (e *Error) Unwrap() error {
	if e.Code == 0 {
		return nil
	}
	return &a2a.Error{Code: e.Code, Message: e.Message, Reason: e.Reason, Data: e.Data}
}

// Is matches ErrUnauthenticated for a 401 answer.
func (e *Error) Is(target error) bool {
	return target == ErrUnauthenticated && e.HTTPStatus == http.StatusUnauthorized
}

// codeForReason maps an ErrorInfo reason back to its A2A code, or 0.
func codeForReason(reason string) a2a.Code {
	if reason == "" {
		return 0
	}
	for _, c := range []a2a.Code{
		a2a.CodeParseError, a2a.CodeInvalidRequest, a2a.CodeMethodNotFound, a2a.CodeInvalidParams, a2a.CodeInternal,
		a2a.CodeTaskNotFound, a2a.CodeTaskNotCancelable, a2a.CodePushNotificationNotSupported,
		a2a.CodeUnsupportedOperation, a2a.CodeContentTypeNotSupported, a2a.CodeInvalidAgentResponse,
		a2a.CodeExtendedCardNotConfigured, a2a.CodeExtensionSupportRequired, a2a.CodeVersionNotSupported,
		a2a.CodeContextNotFound, a2a.CodeContextNotCancelable, a2a.CodeSkillNotFound,
	} {
		if c.Reason() == reason {
			return c
		}
	}
	return 0
}

// errorInfoType is the @type of a google.rpc.ErrorInfo detail.
const errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"

// detail is one entry of a 1.0 error.data array or a google.rpc.Status's
// details: a ProtoJSON Any.
type detail struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata"`
}

// fromDetails finds the ErrorInfo among details and returns its reason and
// metadata.
func fromDetails(details []json.RawMessage) (string, map[string]any) {
	for _, raw := range details {
		var d detail
		if json.Unmarshal(raw, &d) != nil || d.Type != errorInfoType {
			continue
		}
		var md map[string]any
		if len(d.Metadata) > 0 {
			md = make(map[string]any, len(d.Metadata))
			for k, v := range d.Metadata {
				md[k] = v
			}
		}
		return d.Reason, md
	}
	return "", nil
}

// rpcError is a JSON-RPC error object. Data is a free-form value under 0.3
// and an array of ProtoJSON Any objects under 1.0.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (r *rpcError) toError(op string) *Error {
	e := &Error{Op: op, HTTPStatus: http.StatusOK, Code: a2a.Code(r.Code), Message: r.Message}
	data := []byte(strings.TrimSpace(string(r.Data)))
	switch {
	case len(data) > 0 && data[0] == '[':
		var details []json.RawMessage
		if json.Unmarshal(data, &details) == nil {
			e.Reason, e.Data = fromDetails(details)
		}
	case len(data) > 0 && data[0] == '{':
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			e.Data = m
		}
	}
	if e.Reason == "" {
		e.Reason = e.Code.Reason()
	}
	return e
}

// statusBody is a google.rpc.Status error body (AIP-193).
type statusBody struct {
	Error *struct {
		Code    int               `json:"code"`
		Status  string            `json:"status"`
		Message string            `json:"message"`
		Details []json.RawMessage `json:"details"`
	} `json:"error"`
}

// problemBody is an RFC 9457 problem document, the REST error body of some
// A2A 0.3 servers.
type problemBody struct {
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Status int    `json:"status"`
}

// httpError reads the error body of a non-2xx response: a google.rpc.Status
// body, a problem document, or anything else (quoted, truncated).
func httpError(op string, status int, body []byte) *Error {
	e := &Error{Op: op, HTTPStatus: status}
	var sb statusBody
	if json.Unmarshal(body, &sb) == nil && sb.Error != nil {
		e.Message = sb.Error.Message
		e.Reason, e.Data = fromDetails(sb.Error.Details)
		e.Code = codeForReason(e.Reason)
		return e
	}
	var pb problemBody
	if json.Unmarshal(body, &pb) == nil && (pb.Title != "" || pb.Detail != "") {
		e.Message = strings.TrimSpace(pb.Title + ": " + pb.Detail)
		e.Message = strings.Trim(e.Message, ": ")
		return e
	}
	var rpc struct {
		Error *rpcError `json:"error"`
	}
	if json.Unmarshal(body, &rpc) == nil && rpc.Error != nil && rpc.Error.Code != 0 {
		re := rpc.Error.toError(op)
		re.HTTPStatus = status
		return re
	}
	e.Message = snippet(body)
	return e
}

// snippet is a short printable excerpt of a body for error messages.
func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != ' ' {
			return ' '
		}
		return r
	}, s)
	const max = 200
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}
