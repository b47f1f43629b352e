package a2av1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// The 1.0 decoding: each shape has one wire struct, decoded in one
// encoding/json pass (only a2a.Metadata has an UnmarshalJSON of its own),
// and one conversion into the internal model. A request (what a client
// sends the server) is converted strictly: a field the 1.0 shapes do not
// allow is a -32602 error naming its 1.0 path. A response (what a server
// answers the client) is converted leniently, since it may come from any
// server: a part without content is an empty text part, an unknown role or
// state is kept as unspecified. Responses are decoded in client.go, with
// the simple requests a client sends; the encoders are in encode.go.

type partWire struct {
	Text      *string         `json:"text,omitempty"`
	Raw       *string         `json:"raw,omitempty"`
	URL       *string         `json:"url,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Metadata  a2a.Metadata    `json:"metadata,omitempty"`
}

type messageWire struct {
	MessageID        string       `json:"messageId"`
	ContextID        string       `json:"contextId,omitempty"`
	TaskID           string       `json:"taskId,omitempty"`
	Role             string       `json:"role"`
	Parts            []partWire   `json:"parts"`
	Metadata         a2a.Metadata `json:"metadata,omitempty"`
	Extensions       []string     `json:"extensions,omitempty"`
	ReferenceTaskIDs []string     `json:"referenceTaskIds,omitempty"`
}

type pushAuthWire struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

type pushConfigWire struct {
	Tenant         string        `json:"tenant,omitempty"`
	ID             string        `json:"id,omitempty"`
	TaskID         string        `json:"taskId,omitempty"`
	URL            string        `json:"url"`
	Token          string        `json:"token,omitempty"`
	Authentication *pushAuthWire `json:"authentication,omitempty"`
}

type sendConfigWire struct {
	AcceptedOutputModes []string        `json:"acceptedOutputModes,omitempty"`
	PushConfig          *pushConfigWire `json:"taskPushNotificationConfig,omitempty"`
	HistoryLength       *int            `json:"historyLength,omitempty"`
	ReturnImmediately   *bool           `json:"returnImmediately,omitempty"`
}

type sendRequestWire struct {
	Tenant        string          `json:"tenant,omitempty"`
	Message       *messageWire    `json:"message"`
	Configuration *sendConfigWire `json:"configuration,omitempty"`
	Metadata      a2a.Metadata    `json:"metadata,omitempty"`
}

type getTaskRequestWire struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength,omitempty"`
}

type cancelTaskRequestWire struct {
	Tenant   string       `json:"tenant,omitempty"`
	ID       string       `json:"id"`
	Metadata a2a.Metadata `json:"metadata,omitempty"`
}

type listTasksRequestWire struct {
	Tenant               string `json:"tenant,omitempty"`
	ContextID            string `json:"contextId,omitempty"`
	Status               string `json:"status,omitempty"`
	PageSize             *int   `json:"pageSize,omitempty"`
	PageToken            string `json:"pageToken,omitempty"`
	HistoryLength        *int   `json:"historyLength,omitempty"`
	StatusTimestampAfter string `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool   `json:"includeArtifacts,omitempty"`
}

// DecodeSendMessageRequest reads the params of SendMessage (the body of
// POST /message:send): in one pass without reflection when they are in
// the shape clients send (readSendRequest), else with encoding/json. An
// absent configuration.returnImmediately means false: the client waits
// until the task is terminal or interrupted.
func DecodeSendMessageRequest(raw json.RawMessage) (a2a.MessageSendParams, error) {
	var w sendRequestWire
	if !readSendRequest(raw, &w) {
		w = sendRequestWire{}
		if err := jsonrpc.DecodeParams(raw, &w); err != nil {
			return a2a.MessageSendParams{}, err
		}
	}
	if w.Message == nil {
		return a2a.MessageSendParams{}, a2a.InvalidParams("params.message", "is required")
	}
	msg, err := w.Message.message("params.message", true)
	if err != nil {
		return a2a.MessageSendParams{}, err
	}
	if msg.Role != a2a.RoleUser {
		return a2a.MessageSendParams{}, a2a.InvalidParams("params.message.role", "must be %q for SendMessage, got %q", RoleUser, w.Message.Role)
	}
	p := a2a.MessageSendParams{Message: msg, Metadata: w.Metadata}
	blocking := true
	cfg := &a2a.MessageSendConfiguration{Blocking: &blocking}
	if c := w.Configuration; c != nil {
		cfg.AcceptedOutputModes = c.AcceptedOutputModes
		cfg.HistoryLength = c.HistoryLength
		if c.ReturnImmediately != nil {
			blocking = !*c.ReturnImmediately
		}
		if c.PushConfig != nil {
			pc, err := c.PushConfig.config("params.configuration.taskPushNotificationConfig")
			if err != nil {
				return a2a.MessageSendParams{}, err
			}
			cfg.PushNotificationConfig = &pc.PushNotificationConfig
		}
	}
	p.Configuration = cfg
	return p, nil
}

// message converts a message; path is its 1.0 path, used (and built)
// only when strict.
func (w *messageWire) message(path string, strict bool) (a2a.Message, error) {
	m := a2a.Message{
		MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Metadata: w.Metadata,
		Extensions: w.Extensions, ReferenceTaskIDs: w.ReferenceTaskIDs,
	}
	role, ok := ParseRole(w.Role)
	switch {
	case !strict:
	case w.Role == "":
		return m, a2a.InvalidParams(path+".role", "is required (%q or %q)", RoleUser, RoleAgent)
	case !ok:
		return m, a2a.InvalidParams(path+".role", "must be %q or %q, got %q", RoleUser, RoleAgent, w.Role)
	case len(w.Parts) == 0:
		return m, a2a.InvalidParams(path+".parts", "must hold at least one part")
	}
	m.Role = role
	if w.Parts == nil {
		return m, nil
	}
	m.Parts = make([]a2a.Part, len(w.Parts))
	for i := range w.Parts {
		var at string
		if strict {
			at = path + ".parts[" + strconv.Itoa(i) + "]"
		}
		p, err := w.Parts[i].part(at, strict)
		if err != nil {
			return m, err
		}
		m.Parts[i] = p
	}
	return m, nil
}

// part converts one part: exactly one of text, raw, url and data, with the
// media type and file name in the model's place for its kind. When strict,
// a part without exactly one content, bytes that are not base64, a URL
// that is not absolute and data that is not an object (the model keeps
// data parts as objects) are refused; otherwise a part without content is
// an empty text part and the content is taken as it is.
func (w *partWire) part(path string, strict bool) (a2a.Part, error) {
	data := w.Data
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		data = nil
	}
	if strict {
		n := 0
		for _, set := range []bool{w.Text != nil, w.Raw != nil, w.URL != nil, data != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return a2a.Part{}, a2a.InvalidParams(path, "must have exactly one of text, raw, url or data, got %d", n)
		}
	}
	var p a2a.Part
	switch {
	case w.Text != nil:
		p = a2a.TextPart(*w.Text)
	case w.Raw != nil:
		b64, ok := stdBase64(*w.Raw)
		if !ok {
			if strict {
				return a2a.Part{}, a2a.InvalidParams(path+".raw", "is not valid base64")
			}
			b64 = *w.Raw
		}
		p = a2a.FileBytesPart(b64, w.Filename, w.MediaType)
	case w.URL != nil:
		if u, err := url.Parse(*w.URL); strict && (err != nil || u.Scheme == "") {
			return a2a.Part{}, a2a.InvalidParams(path+".url", "must be an absolute URL")
		}
		p = a2a.FileURIPart(*w.URL, w.Filename, w.MediaType)
	case data != nil:
		if strict && !isObject(data) {
			return a2a.Part{}, a2a.InvalidParams(path+".data", "must be a JSON object (this agent keeps data parts as objects)")
		}
		p = a2a.Part{Kind: a2a.PartKindData, Data: data}
	default:
		p = a2a.TextPart("")
	}
	if p.Kind != a2a.PartKindFile {
		p.MediaType, p.Filename = w.MediaType, w.Filename
	}
	p.Metadata = w.Metadata
	return p, nil
}

// stdBase64 returns s in standard padded base64. ProtoJSON writes bytes in
// standard base64 and reads the URL-safe alphabet and unpadded forms too.
func stdBase64(s string) (string, bool) {
	if _, err := base64.StdEncoding.DecodeString(s); err == nil {
		return s, true
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return base64.StdEncoding.EncodeToString(b), true
		}
	}
	return "", false
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && b[0] == '{' && b[len(b)-1] == '}'
}

// config converts a config a client sent, checking what 1.0 requires.
func (w *pushConfigWire) config(path string) (a2a.TaskPushNotificationConfig, error) {
	c := w.model()
	if strings.TrimSpace(w.URL) == "" {
		return c, a2a.InvalidParams(path+".url", "is required")
	}
	if a := w.Authentication; a != nil && strings.TrimSpace(a.Scheme) == "" {
		return c, a2a.InvalidParams(path+".authentication.scheme", "is required")
	}
	return c, nil
}

// DecodeGetTaskRequest reads the params of GetTask: in one pass without
// reflection when they are in the shape clients send (readGetTaskRequest),
// else with encoding/json.
func DecodeGetTaskRequest(raw json.RawMessage) (a2a.TaskQueryParams, error) {
	var w getTaskRequestWire
	if !readGetTaskRequest(raw, &w) {
		w = getTaskRequestWire{}
		if err := jsonrpc.DecodeParams(raw, &w); err != nil {
			return a2a.TaskQueryParams{}, err
		}
	}
	return a2a.TaskQueryParams{ID: w.ID, HistoryLength: w.HistoryLength}, nil
}

// DecodeCancelTaskRequest reads the params of CancelTask.
func DecodeCancelTaskRequest(raw json.RawMessage) (a2a.TaskIDParams, error) {
	var w cancelTaskRequestWire
	if err := jsonrpc.DecodeParams(raw, &w); err != nil {
		return a2a.TaskIDParams{}, err
	}
	return a2a.TaskIDParams{ID: w.ID, Metadata: w.Metadata}, nil
}

// ListTasksQuery is ListTasksRequest as the REST binding's query parameters
// and JSON-RPC's params both carry it: strings as they arrived.
type ListTasksQuery struct {
	ContextID            string
	Status               string
	PageSize             *int
	PageToken            string
	HistoryLength        *int
	StatusTimestampAfter string
	IncludeArtifacts     bool
}

// Params converts the query. A pageSize of 0 is the proto default: unset.
func (q ListTasksQuery) Params() (a2a.ListTasksParams, error) {
	st, ok := ParseState(q.Status)
	if !ok {
		return a2a.ListTasksParams{}, a2a.InvalidParams("params.status", "%q is not a task state (TASK_STATE_*)", q.Status)
	}
	p := a2a.ListTasksParams{ContextID: q.ContextID, Status: st, PageSize: q.PageSize, PageToken: q.PageToken,
		HistoryLength: q.HistoryLength, StatusTimestampAfter: q.StatusTimestampAfter, IncludeArtifacts: q.IncludeArtifacts}
	if p.PageSize != nil && *p.PageSize == 0 {
		p.PageSize = nil
	}
	return p, nil
}

// DecodeListTasksRequest reads the params of ListTasks.
func DecodeListTasksRequest(raw json.RawMessage) (a2a.ListTasksParams, error) {
	var w listTasksRequestWire
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := jsonrpc.DecodeParams(raw, &w); err != nil {
			return a2a.ListTasksParams{}, err
		}
	}
	return ListTasksQuery{ContextID: w.ContextID, Status: w.Status, PageSize: w.PageSize, PageToken: w.PageToken,
		HistoryLength: w.HistoryLength, StatusTimestampAfter: w.StatusTimestampAfter, IncludeArtifacts: w.IncludeArtifacts}.Params()
}

// DecodePushConfig reads a flattened TaskPushNotificationConfig: the params
// of CreateTaskPushNotificationConfig, or the body of POST
// /tasks/{id}/pushNotificationConfigs, whose taskId (from the path) is
// pathTaskID; the body's own taskId, when present, must match it.
func DecodePushConfig(raw json.RawMessage, pathTaskID string) (a2a.TaskPushNotificationConfig, error) {
	var w pushConfigWire
	if err := jsonrpc.DecodeParams(raw, &w); err != nil {
		return a2a.TaskPushNotificationConfig{}, err
	}
	if pathTaskID != "" {
		if w.TaskID != "" && w.TaskID != pathTaskID {
			return a2a.TaskPushNotificationConfig{}, a2a.InvalidParams("params.taskId", "%q does not match the task %q of the path", w.TaskID, pathTaskID)
		}
		w.TaskID = pathTaskID
	}
	if strings.TrimSpace(w.TaskID) == "" {
		return a2a.TaskPushNotificationConfig{}, a2a.InvalidParams("params.taskId", "is required")
	}
	return w.config("params")
}

type pushConfigRef struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id,omitempty"`
}

func decodeRef(raw json.RawMessage) (pushConfigRef, error) {
	var w pushConfigRef
	if err := jsonrpc.DecodeParams(raw, &w); err != nil {
		return w, err
	}
	if strings.TrimSpace(w.TaskID) == "" {
		return w, a2a.InvalidParams("params.taskId", "is required")
	}
	return w, nil
}

// DecodeGetPushConfigRequest reads the params of
// GetTaskPushNotificationConfig: {taskId, id}.
func DecodeGetPushConfigRequest(raw json.RawMessage) (a2a.GetTaskPushNotificationConfigParams, error) {
	w, err := decodeRef(raw)
	if err != nil {
		return a2a.GetTaskPushNotificationConfigParams{}, err
	}
	if strings.TrimSpace(w.ID) == "" {
		return a2a.GetTaskPushNotificationConfigParams{}, a2a.InvalidParams("params.id", "is required")
	}
	return a2a.GetTaskPushNotificationConfigParams{ID: w.TaskID, PushNotificationConfigID: w.ID}, nil
}

// DecodeDeletePushConfigRequest reads the params of
// DeleteTaskPushNotificationConfig: {taskId, id}, checked as those of
// GetTaskPushNotificationConfig (the two params have the same members).
func DecodeDeletePushConfigRequest(raw json.RawMessage) (a2a.DeleteTaskPushNotificationConfigParams, error) {
	p, err := DecodeGetPushConfigRequest(raw)
	return a2a.DeleteTaskPushNotificationConfigParams(p), err
}

// DecodeListPushConfigsRequest reads the params of
// ListTaskPushNotificationConfigs: {taskId, pageSize?, pageToken?}. Every
// config of the task fits one page (a task has few), so paging is ignored.
func DecodeListPushConfigsRequest(raw json.RawMessage) (a2a.ListTaskPushNotificationConfigParams, error) {
	w, err := decodeRef(raw)
	if err != nil {
		return a2a.ListTaskPushNotificationConfigParams{}, err
	}
	return a2a.ListTaskPushNotificationConfigParams{ID: w.TaskID}, nil
}

// The responses a client reads, from any server: converted leniently.
