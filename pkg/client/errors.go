package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// ErrUnauthenticated matches (errors.Is) an Error whose HTTP status is 401:
// the server wants a token, or refused the one sent.
var ErrUnauthenticated = errors.New("the server refused the request: a valid bearer token is required")

// ErrNotExpressible matches (errors.Is) a request the chosen protocol
// version cannot carry, refused before anything is sent: a list filtered on
// the 0.3 state "unknown" under 1.0, which has no such state (its
// TASK_STATE_UNSPECIFIED means no filter).
var ErrNotExpressible = errors.New("the request cannot be expressed in the chosen protocol version")

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

// fromDetails finds the google.rpc.ErrorInfo among the details of a 1.0
// error and returns its reason and metadata.
func fromDetails(details []a2av1.ErrorInfo) (string, map[string]any) {
	for _, d := range details {
		if d.Type != a2av1.ErrorInfoType {
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

// rpcError reads a JSON-RPC error object. Its data is a free-form object
// under 0.3 and an array of ProtoJSON Any details under 1.0.
func rpcError(op string, status int, r *jsonrpc.ResponseError) *Error {
	e := &Error{Op: op, HTTPStatus: status, Code: a2a.Code(r.Code), Message: r.Message}
	data := bytes.TrimSpace(r.Data)
	switch {
	case len(data) > 0 && data[0] == '[':
		var details []a2av1.ErrorInfo
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
	var sb struct {
		Error *a2av1.StatusError `json:"error"`
	}
	if json.Unmarshal(body, &sb) == nil && sb.Error != nil {
		e.Message = sb.Error.Message
		e.Reason, e.Data = fromDetails(sb.Error.Details)
		e.Code = a2a.CodeOfReason(e.Reason)
		return e
	}
	var pb problemBody
	if json.Unmarshal(body, &pb) == nil && (pb.Title != "" || pb.Detail != "") {
		e.Message = strings.TrimSpace(pb.Title + ": " + pb.Detail)
		e.Message = strings.Trim(e.Message, ": ")
		return e
	}
	var rpc struct {
		Error *jsonrpc.ResponseError `json:"error"`
	}
	if json.Unmarshal(body, &rpc) == nil && rpc.Error != nil && rpc.Error.Code != 0 {
		return rpcError(op, status, rpc.Error)
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
