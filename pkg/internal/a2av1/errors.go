package a2av1

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// ErrorInfo is a google.rpc.ErrorInfo as ProtoJSON writes it inside an Any:
// the reason names the error in UPPER_SNAKE (TASK_NOT_FOUND), metadata
// carries its details as strings.
type ErrorInfo struct {
	Type     string            `json:"@type"`
	Reason   string            `json:"reason"`
	Domain   string            `json:"domain"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// The @type and domain of every ErrorInfo the host writes.
const (
	ErrorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	ErrorDomain   = "a2a-protocol.org"
)

// Info is the ErrorInfo of e. Details that are not strings are written as
// their JSON.
func Info(e *a2a.Error) ErrorInfo {
	return ErrorInfo{Type: ErrorInfoType, Reason: e.WireReason(), Domain: ErrorDomain, Metadata: stringMap(e.Data)}
}

// RPCError is the JSON-RPC error object of e under A2A 1.0: the code and
// message as under 0.3, and error.data an array holding e's ErrorInfo.
func RPCError(e *a2a.Error) jsonrpc.ErrorObject {
	return jsonrpc.ErrorObject{Code: int(e.Code), Message: e.WireMessage(), Data: []ErrorInfo{Info(e)}}
}

// Status is a google.rpc.Status error body (AIP-193), the REST error format
// of A2A 1.0 (the 0.3 binding uses it too).
type Status struct {
	Error StatusError `json:"error"`
}

// StatusError is the inner object of a Status body.
type StatusError struct {
	Code    int         `json:"code"`
	Status  string      `json:"status"`
	Message string      `json:"message"`
	Details []ErrorInfo `json:"details,omitempty"`
}

// StatusBody is the REST answer to e: its HTTP status (the specification's
// mapping of the code) and body.
func StatusBody(e *a2a.Error) (int, Status) {
	status := e.Code.HTTPStatus()
	return status, Status{Error: StatusError{
		Code: status, Status: e.Code.RPCStatus(), Message: e.WireMessage(), Details: []ErrorInfo{Info(e)},
	}}
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
		case []string:
			b, _ := json.Marshal(slices.Clone(s))
			out[k] = string(b)
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
