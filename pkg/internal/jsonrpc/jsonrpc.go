// Package jsonrpc frames JSON-RPC 2.0 requests and responses.
//
// It knows nothing of A2A: Decode turns a body into a Request or a framing
// error (-32700, -32600), DecodeParams turns params into a Go value or a
// -32602 error that names the offending field, and the Encode functions write
// responses. Batches are refused with a clear -32600.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
)

// Version is the only JSON-RPC version accepted.
const Version = "2.0"

// Request is one decoded JSON-RPC request.
type Request struct {
	// ID is the raw id: a JSON string, number or null. It is nil when the
	// request has no id member. A2A defines no notifications, so such a
	// request is answered like any other, with a null id (as the official
	// A2A SDK servers do).
	ID     json.RawMessage
	Method string
	// Params is the raw params member, nil when absent.
	Params json.RawMessage
}

// NullID is the id of a response to a request whose id could not be read.
var NullID = json.RawMessage("null")

// Decode parses body as one JSON-RPC request. On failure it returns the
// request's id when it could be read (NullID otherwise) and an *a2a.Error with
// code -32700 or -32600.
//
// The body is validated once, then read once more for names given twice
// and for its members, located without copying, so that params are
// decoded only once, by DecodeParams. Member names match exactly
// (JSON-RPC's names are case-sensitive).
func Decode(body []byte) (*Request, json.RawMessage, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, NullID, a2a.Errorf(a2a.CodeParseError, "request body is empty; expected a JSON-RPC 2.0 request object")
	}
	if !jsonread.Valid(trimmed) {
		return nil, NullID, parseError(json.Unmarshal(trimmed, new(any)))
	}
	switch trimmed[0] {
	case '{':
	case '[':
		return nil, NullID, a2a.Errorf(a2a.CodeInvalidRequest, "batch requests are not supported; send one JSON-RPC request object per HTTP request")
	default:
		return nil, NullID, a2a.Errorf(a2a.CodeInvalidRequest, "request must be a JSON object")
	}
	var w struct{ jsonrpc, id, method, params json.RawMessage }
	err := checkMembersEach(trimmed, true, func(key, value []byte) {
		switch string(key) { // no allocation: the compiler compares the bytes
		case "jsonrpc":
			w.jsonrpc = value
		case "id":
			w.id = value
		case "method":
			w.method = value
		case "params":
			w.params = value
		}
	})
	if err != nil {
		return nil, NullID, err
	}
	id, err := checkID(w.id)
	if err != nil {
		return nil, NullID, err
	}
	respID := id
	if respID == nil {
		respID = NullID
	}
	if w.jsonrpc == nil {
		return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"jsonrpc" is required and must be "2.0"`)
	}
	if string(w.jsonrpc) != `"2.0"` {
		var v string
		if w.jsonrpc[0] != '"' || json.Unmarshal(w.jsonrpc, &v) != nil || v != Version {
			return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"jsonrpc" must be "2.0", got %s`, truncate(w.jsonrpc))
		}
	}
	if w.method == nil {
		return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"method" is required`)
	}
	if w.method[0] != '"' {
		return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"method" must be a string, got %s`, truncate(w.method))
	}
	method := jsonread.Unquote(w.method[1 : len(w.method)-1]) // a valid string: the body is
	if method == "" {
		return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"method" must not be empty`)
	}
	params := w.params
	switch {
	case params == nil:
	case string(params) == "null":
		params = nil
	case params[0] != '{' && params[0] != '[':
		return nil, respID, a2a.Errorf(a2a.CodeInvalidRequest, `"params" must be an object or an array, got %s`, truncate(params))
	}
	return &Request{ID: id, Method: method, Params: params}, respID, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// checkID accepts a string, a number or null; nil means absent.
func checkID(raw json.RawMessage) (json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	switch c := raw[0]; {
	case c == '"', c == 'n', c == '-' || (c >= '0' && c <= '9'):
		return raw, nil
	}
	return nil, a2a.Errorf(a2a.CodeInvalidRequest, `"id" must be a string, a number or null, got %s`, truncate(raw))
}

func parseError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return a2a.Errorf(a2a.CodeParseError, "invalid JSON at byte %d: %v", se.Offset, se)
	}
	return a2a.Errorf(a2a.CodeParseError, "invalid JSON: %v", err)
}

// DecodeParams decodes raw params (an object) into v. It returns a -32602
// *a2a.Error naming the offending field when the params are missing, not an
// object, or hold a value of the wrong type.
func DecodeParams(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return a2a.InvalidParams("params", "is required")
	}
	if raw[0] != '{' {
		return a2a.InvalidParams("params", "must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return ParamsError(err)
	}
	return nil
}

// ParamsError turns a json decoding error of params into a -32602 error
// whose message names the field.
func ParamsError(err error) *a2a.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := "params"
		if te.Field != "" {
			field += "." + te.Field
		}
		return a2a.InvalidParams(field, "expected %s, got JSON %s", jsonType(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return a2a.InvalidParams("params", "invalid JSON at byte %d", se.Offset)
	}
	return a2a.InvalidParams("params", "%v", err)
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return goKind
}

func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// ErrorObject is the error member of a response.
type ErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// AppendResultStart appends the start of a success response, up to the
// result value; the caller appends the result and a closing '}'.
func AppendResultStart(b []byte, id json.RawMessage) []byte {
	if id == nil {
		id = NullID
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"result":`...)
}

// EncodeResult writes a success response. result must already be JSON.
func EncodeResult(id json.RawMessage, result json.RawMessage) []byte {
	if result == nil {
		result = json.RawMessage("null")
	}
	return encodeResponse(id, "result", result)
}

// EncodeError writes an error response.
func EncodeError(id json.RawMessage, e ErrorObject) []byte {
	if id == nil {
		id = NullID
	}
	eb, err := json.Marshal(e)
	if err != nil {
		// Data could not be marshalled: keep code and message, which always can.
		eb, _ = json.Marshal(ErrorObject{Code: e.Code, Message: e.Message})
	}
	return encodeResponse(id, "error", eb)
}

// encodeResponse writes {"jsonrpc":"2.0","id":id,"member":value}, with a
// null id when id is nil.
func encodeResponse(id json.RawMessage, member string, value []byte) []byte {
	if id == nil {
		id = NullID
	}
	b := make([]byte, 0, len(id)+len(member)+len(value)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"`...)
	b = append(b, member...)
	b = append(b, `":`...)
	b = append(b, value...)
	return append(b, '}')
}
