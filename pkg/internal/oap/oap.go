// Package oap is the envelope codec of the OAP base protocol: JSON-RPC 2.0
// framed envelopes posted to /orchestrate, {jsonrpc, id, envelope_type,
// params, _meta}, answered with {jsonrpc, id, envelope_type, result | error,
// _meta}, correlated by four required headers (Orch-Id, Orch-Caller,
// Orch-Module-Id, Orch-Session-Id).
//
// The protocol defines transport and framing only; what an envelope_type
// means is up to the layer above (this host maps it to an A2A operation).
package oap

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonread"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// Path is the canonical route of OAP envelopes.
const Path = "/orchestrate"

// MediaType is the envelope media type; its version parameter is
// MediaTypeVersion. Plain application/json is accepted too.
const (
	MediaType        = "application/vnd.orch-envelope+json"
	MediaTypeVersion = "oap.v1"
	// ContentType is what responses are sent as.
	ContentType = MediaType + "; version=" + MediaTypeVersion
)

// The correlation headers, all required on requests and echoed on
// responses.
const (
	HeaderID        = "Orch-Id"
	HeaderCaller    = "Orch-Caller"
	HeaderModuleID  = "Orch-Module-Id"
	HeaderSessionID = "Orch-Session-Id"
)

// Headers lists the correlation headers in the order they are checked.
var Headers = []string{HeaderID, HeaderCaller, HeaderModuleID, HeaderSessionID}

// Correlation holds the correlation identifiers of one request.
type Correlation struct {
	ID, Caller, ModuleID, SessionID string
}

// ReadCorrelation reads the correlation headers. A missing (or empty) one
// is an invalid request (-32600) whose message names it; the error's data
// names it too.
func ReadCorrelation(h http.Header) (Correlation, error) {
	c := Correlation{
		ID: strings.TrimSpace(h.Get(HeaderID)), Caller: strings.TrimSpace(h.Get(HeaderCaller)),
		ModuleID: strings.TrimSpace(h.Get(HeaderModuleID)), SessionID: strings.TrimSpace(h.Get(HeaderSessionID)),
	}
	for i, v := range []string{c.ID, c.Caller, c.ModuleID, c.SessionID} {
		if v == "" {
			return c, a2a.Errorf(a2a.CodeInvalidRequest, "the %s header is required on OAP envelopes (%s)", Headers[i], strings.Join(Headers, ", ")).
				WithData(map[string]any{"missing_header": Headers[i]})
		}
	}
	return c, nil
}

// Echo sets the correlation headers that were sent on h.
func (c Correlation) Echo(h http.Header) {
	for i, v := range []string{c.ID, c.Caller, c.ModuleID, c.SessionID} {
		if v != "" {
			h.Set(Headers[i], v)
		}
	}
}

// ErrMediaType is returned by CheckMediaType.
var ErrMediaType = errors.New("unsupported media type")

// CheckMediaType accepts the envelope media type (with version=oap.v1, or
// no version) and application/json. An absent Content-Type is accepted as
// JSON, as the JSON-RPC endpoint does.
func CheckMediaType(contentType string) error {
	if strings.TrimSpace(contentType) == "" {
		return nil
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ErrMediaType
	}
	switch mt {
	case "application/json":
		return nil
	case MediaType:
		if v, ok := params["version"]; ok && v != MediaTypeVersion {
			return ErrMediaType
		}
		return nil
	}
	return ErrMediaType
}

// Request is one decoded envelope.
type Request struct {
	// ID is the raw id (a JSON string or number).
	ID json.RawMessage
	// EnvelopeType names the action.
	EnvelopeType string
	// Params is the raw params object, nil when absent.
	Params json.RawMessage
	// Meta is the raw _meta object, nil when absent.
	Meta json.RawMessage
}

// Decode parses an envelope. On failure it returns what it could read of
// the request (the id and envelope_type, for the error envelope) and an
// *a2a.Error: -32700 for invalid JSON, -32600 for a malformed envelope.
func Decode(body []byte) (*Request, error) {
	req := &Request{ID: jsonrpc.NullID}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return req, a2a.Errorf(a2a.CodeParseError, "request body is empty; expected an OAP envelope")
	}
	if !jsonread.Valid(body) {
		return req, a2a.Errorf(a2a.CodeParseError, "invalid JSON")
	}
	if body[0] != '{' {
		return req, a2a.Errorf(a2a.CodeInvalidRequest, "an OAP envelope must be a JSON object")
	}
	if err := jsonrpc.CheckValidMembers(body); err != nil {
		return req, err
	}
	var w struct {
		JSONRPC      json.RawMessage `json:"jsonrpc"`
		ID           json.RawMessage `json:"id"`
		EnvelopeType json.RawMessage `json:"envelope_type"`
		Params       json.RawMessage `json:"params"`
		Meta         json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return req, a2a.Errorf(a2a.CodeInvalidRequest, "malformed envelope: %v", err)
	}
	if id := bytes.TrimSpace(w.ID); len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		req.ID = id
	}
	if len(w.EnvelopeType) > 0 {
		_ = json.Unmarshal(w.EnvelopeType, &req.EnvelopeType)
	}
	if string(w.JSONRPC) != `"2.0"` {
		return req, a2a.Errorf(a2a.CodeInvalidRequest, `"jsonrpc" is required and must be "2.0"`)
	}
	if len(w.ID) == 0 || string(req.ID) == "null" {
		return req, a2a.Errorf(a2a.CodeInvalidRequest, `"id" is required and must be a string or a number`)
	}
	if req.EnvelopeType == "" {
		return req, a2a.Errorf(a2a.CodeInvalidRequest, `"envelope_type" is required and must be a non-empty string`)
	}
	var err error
	if req.Params, err = optionalObject(w.Params, "params"); err != nil {
		return req, err
	}
	if req.Meta, err = optionalObject(w.Meta, "_meta"); err != nil {
		return req, err
	}
	return req, nil
}

// optionalObject checks an envelope member that may be absent or null
// (nil is returned) or else must be a JSON object.
func optionalObject(raw json.RawMessage, member string) (json.RawMessage, error) {
	switch v := bytes.TrimSpace(raw); {
	case len(v) == 0 || string(v) == "null":
		return nil, nil
	case v[0] == '{':
		return v, nil
	}
	return nil, a2a.Errorf(a2a.CodeInvalidRequest, "%q must be an object", member)
}

// Meta is the _meta of a response: the request's _meta with the
// correlation identifiers added (orch_id, orch_caller, orch_module_id,
// orch_session_id).
func Meta(reqMeta json.RawMessage, c Correlation) json.RawMessage {
	b := make([]byte, 0, len(reqMeta)+160)
	b = append(b, '{')
	b = jsonw.OptString(b, "orch_id", c.ID)
	b = jsonw.OptString(b, "orch_caller", c.Caller)
	b = jsonw.OptString(b, "orch_module_id", c.ModuleID)
	b = jsonw.OptString(b, "orch_session_id", c.SessionID)
	var m map[string]json.RawMessage
	if inner := bytes.TrimSpace(reqMeta); len(inner) > 2 && json.Unmarshal(inner, &m) == nil {
		// The request's members follow ours, in key order. The correlation
		// keys are the server's: a request's own are dropped.
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch k {
			case "orch_id", "orch_caller", "orch_module_id", "orch_session_id":
				continue
			}
			if b[len(b)-1] != '{' {
				b = append(b, ',')
			}
			b = append(jsonw.String(b, k), ':')
			b = append(b, m[k]...)
		}
	}
	return append(b, '}')
}

// AppendResultStart appends a success envelope up to its result value; the
// caller appends the result, then calls AppendEnd.
func AppendResultStart(b []byte, id json.RawMessage, envelopeType string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = jsonw.StringField(b, "envelope_type", envelopeType)
	return append(b, `,"result":`...)
}

// AppendEnd closes an envelope with its _meta.
func AppendEnd(b []byte, meta json.RawMessage) []byte {
	b = append(b, `,"_meta":`...)
	b = append(b, meta...)
	return append(b, '}')
}

// EncodeError writes an error envelope.
func EncodeError(id json.RawMessage, envelopeType string, e jsonrpc.ErrorObject, meta json.RawMessage) []byte {
	if id == nil {
		id = jsonrpc.NullID
	}
	eb, err := json.Marshal(e)
	if err != nil {
		eb, _ = json.Marshal(jsonrpc.ErrorObject{Code: e.Code, Message: e.Message})
	}
	b := make([]byte, 0, len(eb)+len(meta)+96)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = jsonw.StringField(b, "envelope_type", envelopeType)
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return AppendEnd(b, meta)
}
