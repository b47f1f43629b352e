package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

// protocolError turns any error into the protocol error sent to the client.
// Errors that are not protocol errors are internal: they are logged with
// their cause and the client gets -32603 without details.
func (h *handler) protocolError(ctx context.Context, err error, op string) (e *a2a.Error) {
	defer func() { metrics.From(ctx).Count(metrics.Errors, metrics.DimCode, strconv.Itoa(int(e.Code))) }()
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

// rpcError03 is the JSON-RPC error object of e under A2A 0.3: the A2A
// codes carry no data (the message says what went wrong; official 0.3
// clients cannot decode every shape of data), the JSON-RPC framing codes
// and the extension codes carry their structured details.
func rpcError03(e *a2a.Error) jsonrpc.ErrorObject {
	o := jsonrpc.ErrorObject{Code: int(e.Code), Message: e.WireMessage()}
	if e.Data != nil && !e.Code.IsCore() {
		o.Data = e.Data
	}
	return o
}

// writeRESTError answers a REST request with e's HTTP status and a
// google.rpc.Status body whose ErrorInfo names the A2A reason (both
// versions).
func writeRESTError(w http.ResponseWriter, e *a2a.Error) {
	status, body := a2av1.StatusBody(e)
	writeJSONStatus(w, status, body)
}

// writeHTTPError answers with an HTTP-level error (401, 404, 413...) in the
// same google.rpc.Status shape, without A2A details.
func writeHTTPError(w http.ResponseWriter, status int, rpcStatus, message string) {
	writeJSONStatus(w, status, a2av1.Status{Error: a2av1.StatusError{Code: status, Status: rpcStatus, Message: message}})
}

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":500,"status":"INTERNAL","message":"could not encode the response"}}`)
	}
	w.Header()["Content-Type"] = jsonHeader
	w.WriteHeader(status)
	w.Write(b)
}
