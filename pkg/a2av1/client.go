package a2av1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// The client's direction: the requests a client sends, encoded from the
// internal params with the same wire structs the server decodes them with,
// and the responses it reads, decoded into the internal model. Responses
// are read leniently (a part with no content is an empty text part, an
// unknown role or state is kept as unspecified), since they may come from
// any server; requests are the ones this package's decoders accept.

// EncodeSendMessageRequest encodes the params of SendMessage (the body of
// POST /message:send). Configuration.Blocking false is sent as
// returnImmediately; nil leaves the server's default.
func EncodeSendMessageRequest(tenant string, p a2a.MessageSendParams) ([]byte, error) {
	msg := wireMessage(&p.Message)
	w := sendRequestWire{Tenant: tenant, Message: &msg, Metadata: p.Metadata}
	if cfg := p.Configuration; cfg != nil {
		c := &sendConfigWire{AcceptedOutputModes: cfg.AcceptedOutputModes, HistoryLength: cfg.HistoryLength}
		if cfg.Blocking != nil && !*cfg.Blocking {
			immediately := true
			c.ReturnImmediately = &immediately
		}
		if cfg.PushNotificationConfig != nil {
			pc := wirePushConfig("", a2a.TaskPushNotificationConfig{PushNotificationConfig: *cfg.PushNotificationConfig})
			c.PushConfig = &pc
		}
		w.Configuration = c
	}
	return json.Marshal(w)
}

// EncodeGetTaskRequest encodes the params of GetTask.
func EncodeGetTaskRequest(tenant string, p a2a.TaskQueryParams) ([]byte, error) {
	return json.Marshal(getTaskRequestWire{Tenant: tenant, ID: p.ID, HistoryLength: p.HistoryLength})
}

// EncodeCancelTaskRequest encodes the params of CancelTask.
func EncodeCancelTaskRequest(tenant string, p a2a.TaskIDParams) ([]byte, error) {
	return json.Marshal(cancelTaskRequestWire{Tenant: tenant, ID: p.ID, Metadata: p.Metadata})
}

// EncodeListTasksRequest encodes the params of ListTasks.
func EncodeListTasksRequest(tenant string, p a2a.ListTasksParams) ([]byte, error) {
	w := listTasksRequestWire{
		Tenant: tenant, ContextID: p.ContextID, PageSize: p.PageSize, PageToken: p.PageToken,
		HistoryLength: p.HistoryLength, StatusTimestampAfter: p.StatusTimestampAfter, IncludeArtifacts: p.IncludeArtifacts,
	}
	if p.Status != "" {
		w.Status = State(p.Status)
	}
	return json.Marshal(w)
}

// EncodePushConfig encodes a flattened TaskPushNotificationConfig: the
// params of CreateTaskPushNotificationConfig, and the body of its REST
// route.
func EncodePushConfig(tenant string, c a2a.TaskPushNotificationConfig) ([]byte, error) {
	return json.Marshal(wirePushConfig(tenant, c))
}

// EncodePushConfigRef encodes the params of GetTaskPushNotificationConfig,
// DeleteTaskPushNotificationConfig ({taskId, id}) and
// ListTaskPushNotificationConfigs ({taskId}, id empty).
func EncodePushConfigRef(tenant, taskID, id string) ([]byte, error) {
	return json.Marshal(pushConfigRef{Tenant: tenant, TaskID: taskID, ID: id})
}

// EncodeTenantRequest encodes the params of a request that carries nothing
// but the tenant (GetExtendedAgentCard).
func EncodeTenantRequest(tenant string) ([]byte, error) {
	return json.Marshal(struct {
		Tenant string `json:"tenant,omitempty"`
	}{tenant})
}

type statusWire struct {
	State     string       `json:"state"`
	Message   *messageWire `json:"message,omitempty"`
	Timestamp string       `json:"timestamp,omitempty"`
}

type artifactWire struct {
	ArtifactID  string       `json:"artifactId"`
	Name        string       `json:"name,omitempty"`
	Description string       `json:"description,omitempty"`
	Parts       []partWire   `json:"parts"`
	Metadata    a2a.Metadata `json:"metadata,omitempty"`
	Extensions  []string     `json:"extensions,omitempty"`
}

type taskWire struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId,omitempty"`
	Status    statusWire     `json:"status"`
	Artifacts []artifactWire `json:"artifacts,omitempty"`
	History   []messageWire  `json:"history,omitempty"`
	Metadata  a2a.Metadata   `json:"metadata,omitempty"`
}

// DecodeSendResult reads the result of SendMessage: {"task": ...} or
// {"message": ...}; exactly one of the returned values is set.
func DecodeSendResult(raw json.RawMessage) (*a2a.Task, *a2a.Message, error) {
	var w struct {
		Task    *taskWire    `json:"task"`
		Message *messageWire `json:"message"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, fmt.Errorf("decode SendMessage result: %w", err)
	}
	switch {
	case w.Task != nil:
		t := w.Task.task()
		return &t, nil, nil
	case w.Message != nil:
		m := w.Message.lenient()
		return nil, &m, nil
	}
	return nil, nil, errors.New("decode SendMessage result: it holds neither a task nor a message")
}

// DecodeTask reads a Task (the result of GetTask and CancelTask).
func DecodeTask(raw json.RawMessage) (*a2a.Task, error) {
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode task: %w", err)
	}
	t := w.task()
	return &t, nil
}

// DecodeListTasksResponse reads a ListTasksResponse.
func DecodeListTasksResponse(raw json.RawMessage) (*a2a.ListTasksResult, error) {
	var w struct {
		Tasks         []taskWire `json:"tasks"`
		NextPageToken string     `json:"nextPageToken"`
		PageSize      int        `json:"pageSize"`
		TotalSize     int        `json:"totalSize"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode ListTasks result: %w", err)
	}
	r := &a2a.ListTasksResult{Tasks: make([]a2a.Task, len(w.Tasks)), NextPageToken: w.NextPageToken, PageSize: w.PageSize, TotalSize: w.TotalSize}
	for i := range w.Tasks {
		r.Tasks[i] = w.Tasks[i].task()
	}
	return r, nil
}

// DecodePushConfigResponse reads a flattened TaskPushNotificationConfig.
func DecodePushConfigResponse(raw json.RawMessage) (*a2a.TaskPushNotificationConfig, error) {
	var w pushConfigWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode push notification config: %w", err)
	}
	c := w.model()
	return &c, nil
}

// DecodeListPushConfigsResponse reads a
// ListTaskPushNotificationConfigsResponse.
func DecodeListPushConfigsResponse(raw json.RawMessage) ([]a2a.TaskPushNotificationConfig, error) {
	var w struct {
		Configs []pushConfigWire `json:"configs"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode push notification configs: %w", err)
	}
	out := make([]a2a.TaskPushNotificationConfig, len(w.Configs))
	for i := range w.Configs {
		out[i] = w.Configs[i].model()
	}
	return out, nil
}

// wirePart is the 1.0 form of p: the file's name and media type become
// filename and mediaType; a data part says application/json.
func wirePart(p *a2a.Part) partWire {
	w := partWire{Metadata: p.Metadata}
	switch p.Kind {
	case a2a.PartKindText:
		t := p.Text
		w.Text = &t
	case a2a.PartKindData:
		w.Data, w.MediaType = p.Data, "application/json"
	case a2a.PartKindFile:
		if p.File == nil {
			break
		}
		w.Filename, w.MediaType = p.File.Name, p.File.MimeType
		if p.File.URI != "" {
			u := p.File.URI
			w.URL = &u
		} else {
			b := p.File.Bytes
			w.Raw = &b
		}
	}
	return w
}

func wireMessage(m *a2a.Message) messageWire {
	w := messageWire{
		MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: Role(m.Role),
		Parts: make([]partWire, len(m.Parts)), Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs,
	}
	for i := range m.Parts {
		w.Parts[i] = wirePart(&m.Parts[i])
	}
	return w
}

func wirePushConfig(tenant string, c a2a.TaskPushNotificationConfig) pushConfigWire {
	p := c.PushNotificationConfig
	w := pushConfigWire{Tenant: tenant, ID: p.ID, TaskID: c.TaskID, URL: p.URL, Token: p.Token}
	if p.Authentication != nil && len(p.Authentication.Schemes) > 0 {
		w.Authentication = &pushAuthWire{Scheme: p.Authentication.Schemes[0], Credentials: p.Authentication.Credentials}
	}
	return w
}

// model is the internal form of a config as a server answered it.
func (w *pushConfigWire) model() a2a.TaskPushNotificationConfig {
	c := a2a.TaskPushNotificationConfig{TaskID: w.TaskID, PushNotificationConfig: a2a.PushNotificationConfig{ID: w.ID, URL: w.URL, Token: w.Token}}
	if a := w.Authentication; a != nil {
		c.PushNotificationConfig.Authentication = &a2a.PushAuthenticationInfo{Schemes: []string{a.Scheme}, Credentials: a.Credentials}
	}
	return c
}

// lenient converts a part a server sent: a part without content is an
// empty text part.
func (w *partWire) lenient() a2a.Part {
	var p a2a.Part
	switch {
	case w.Text != nil:
		p = a2a.TextPart(*w.Text)
	case w.Raw != nil:
		p = a2a.FileBytesPart(*w.Raw, w.Filename, w.MediaType)
	case w.URL != nil:
		p = a2a.FileURIPart(*w.URL, w.Filename, w.MediaType)
	case len(w.Data) > 0 && !bytes.Equal(bytes.TrimSpace(w.Data), []byte("null")):
		p = a2a.Part{Kind: a2a.PartKindData, Data: w.Data}
	default:
		p = a2a.TextPart("")
	}
	p.Metadata = w.Metadata
	return p
}

func lenientParts(ws []partWire) []a2a.Part {
	if ws == nil {
		return nil
	}
	out := make([]a2a.Part, len(ws))
	for i := range ws {
		out[i] = ws[i].lenient()
	}
	return out
}

// lenient converts a message a server sent; an unknown role is kept empty.
func (w *messageWire) lenient() a2a.Message {
	role, _ := ParseRole(w.Role)
	return a2a.Message{
		MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Role: role,
		Parts: lenientParts(w.Parts), Metadata: w.Metadata, Extensions: w.Extensions, ReferenceTaskIDs: w.ReferenceTaskIDs,
	}
}

// task converts a task a server sent; a state that is none of the known
// ones (TASK_STATE_UNSPECIFIED included) is unknown.
func (w *taskWire) task() a2a.Task {
	t := a2a.Task{ID: w.ID, ContextID: w.ContextID, Metadata: w.Metadata}
	st, ok := ParseState(w.Status.State)
	if !ok || st == "" {
		st = a2a.TaskStateUnknown
	}
	t.Status = a2a.TaskStatus{State: st, Timestamp: w.Status.Timestamp}
	if w.Status.Message != nil {
		m := w.Status.Message.lenient()
		t.Status.Message = &m
	}
	if w.Artifacts != nil {
		t.Artifacts = make([]a2a.Artifact, len(w.Artifacts))
		for i, a := range w.Artifacts {
			t.Artifacts[i] = a2a.Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description,
				Parts: lenientParts(a.Parts), Metadata: a.Metadata, Extensions: a.Extensions}
		}
	}
	if w.History != nil {
		t.History = make([]a2a.Message, len(w.History))
		for i := range w.History {
			t.History[i] = w.History[i].lenient()
		}
	}
	return t
}
