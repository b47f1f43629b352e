package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// The client's direction: a request to send, and the response to read.

// EncodeRequest writes a request with a numeric id. params must already be
// JSON; nil leaves the member out.
func EncodeRequest(id int64, method string, params json.RawMessage) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: encode method: %w", err)
	}
	b := make([]byte, 0, len(method)+len(params)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = append(b, m...)
	if params != nil {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}'), nil
}

// Response is a response as a client reads it: the result, or the error.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *ResponseError  `json:"error"`
}

// ResponseError is the error member of a response as a client reads it:
// its data is kept raw (an object under A2A 0.3, an array of details under
// 1.0).
type ResponseError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// DecodeResponse reads a response body. An error response is a Response
// with Error set, not a Go error; the error is for a body that is no
// JSON-RPC response object. A response without a result member (some
// servers leave out an empty result) has the result null.
func DecodeResponse(body []byte) (*Response, error) {
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("jsonrpc: the answer is not a JSON-RPC response: %w", err)
	}
	if r.Error == nil && r.Result == nil {
		r.Result = json.RawMessage("null")
	}
	return &r, nil
}
