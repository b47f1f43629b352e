package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/jsonrpc"
)

// errorInfoType and errorDomain identify A2A error details (google.rpc.ErrorInfo).
const (
	errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	errorDomain   = "a2a-protocol.org"
)

// protocolError turns any error into the protocol error sent to the client.
// Errors that are not protocol errors are internal: they are logged with
// their cause and the client gets -32603 without details.
func (h *handler) protocolError(ctx context.Context, err error, op string) *a2a.Error {
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return a2a.Errorf(a2a.CodeInternal, "the request was canceled")
	}
	h.log.ErrorContext(ctx, "internal error", "op", op, "error", err.Error())
	if errors.Is(err, context.DeadlineExceeded) {
		return a2a.Errorf(a2a.CodeInternal, "internal error: the server ran out of time; retry the request")
	}
	return a2a.Errorf(a2a.CodeInternal, "internal error; the server logged the cause")
}

// rpcError is the JSON-RPC error object of e under A2A 0.3: the A2A codes
// carry no data (the message says what went wrong; official 0.3 clients
// cannot decode every shape of data), the JSON-RPC framing codes and the
// extension codes carry their structured details.
func rpcError(e *a2a.Error) jsonrpc.ErrorObject {
	o := jsonrpc.ErrorObject{Code: int(e.Code), Message: e.WireMessage()}
	if e.Data != nil && !e.Code.IsCore() {
		o.Data = e.Data
	}
	return o
}

// statusBody is a google.rpc.Status error body (AIP-193), the REST error
// format the official clients recognise.
type statusBody struct {
	Error statusError `json:"error"`
}

type statusError struct {
	Code    int         `json:"code"`
	Status  string      `json:"status"`
	Message string      `json:"message"`
	Details []errorInfo `json:"details,omitempty"`
}

type errorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// writeRESTError answers a REST request with e's HTTP status and a
// google.rpc.Status body whose ErrorInfo names the A2A reason.
func writeRESTError(w http.ResponseWriter, e *a2a.Error) {
	status := e.Code.HTTPStatus()
	body := statusBody{Error: statusError{
		Code:    status,
		Status:  e.Code.RPCStatus(),
		Message: e.WireMessage(),
		Details: []errorInfo{{Type: errorInfoType, Reason: e.WireReason(), Domain: errorDomain, Metadata: stringMap(e.Data)}},
	}}
	writeJSONStatus(w, status, body)
}

// writeHTTPError answers with an HTTP-level error (401, 404, 413...) in the
// same google.rpc.Status shape, without A2A details.
func writeHTTPError(w http.ResponseWriter, status int, rpcStatus, message string) {
	writeJSONStatus(w, status, statusBody{Error: statusError{Code: status, Status: rpcStatus, Message: message}})
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"could not encode the response"}}`)
	}
	w.Header()["Content-Type"] = []string{"application/json"}
	w.WriteHeader(status)
	w.Write(b)
}

func stringMap(m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch s := v.(type) {
		case string:
			out[k] = s
		default:
			b, err := json.Marshal(v)
			if err != nil {
				b = []byte(fmt.Sprint(v))
			}
			out[k] = string(b)
		}
	}
	return out
}
