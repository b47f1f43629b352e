package a2av1

// The client's side of the 1.0 wire: what a server answered, decoded
// leniently (see decode.go), and the simple requests a client sends,
// encoded from the request structs of decode.go (their structs hold no
// shared shape; the model's values go through encode.go's encoders).

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

type statusWire struct {
	State     string       `json:"state"`
	Message   *messageWire `json:"message"`
	Timestamp string       `json:"timestamp"`
}

// status converts a status; a state that is none of the known ones
// (TASK_STATE_UNSPECIFIED included) is unknown.
func (w *statusWire) status() a2a.TaskStatus {
	st, ok := ParseState(w.State)
	if !ok || st == "" {
		st = a2a.TaskStateUnknown
	}
	s := a2a.TaskStatus{State: st, Timestamp: w.Timestamp}
	if w.Message != nil {
		m := lenientMessage(w.Message)
		s.Message = &m
	}
	return s
}

type artifactWire struct {
	ArtifactID  string       `json:"artifactId"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Parts       []partWire   `json:"parts"`
	Metadata    a2a.Metadata `json:"metadata"`
	Extensions  []string     `json:"extensions"`
}

func (w *artifactWire) artifact() a2a.Artifact {
	return a2a.Artifact{ArtifactID: w.ArtifactID, Name: w.Name, Description: w.Description, Metadata: w.Metadata,
		Extensions: w.Extensions, Parts: each(w.Parts, lenientPart)}
}

// lenientPart and lenientMessage convert what a server answered, which
// cannot fail.
func lenientPart(w *partWire) a2a.Part {
	p, _ := w.part("", false)
	return p
}

func lenientMessage(w *messageWire) a2a.Message {
	m, _ := w.message("", false)
	return m
}

// each converts every element of ws; nil stays nil.
func each[W, T any](ws []W, convert func(*W) T) []T {
	if ws == nil {
		return nil
	}
	out := make([]T, len(ws))
	for i := range ws {
		out[i] = convert(&ws[i])
	}
	return out
}

type taskWire struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    statusWire     `json:"status"`
	Artifacts []artifactWire `json:"artifacts"`
	History   []messageWire  `json:"history"`
	Metadata  a2a.Metadata   `json:"metadata"`
}

func (w *taskWire) task() a2a.Task {
	return a2a.Task{ID: w.ID, ContextID: w.ContextID, Status: w.Status.status(), Metadata: w.Metadata,
		Artifacts: each(w.Artifacts, (*artifactWire).artifact), History: each(w.History, lenientMessage)}
}

type statusUpdateWire struct {
	TaskID    string       `json:"taskId"`
	ContextID string       `json:"contextId"`
	Status    statusWire   `json:"status"`
	Metadata  a2a.Metadata `json:"metadata"`
}

type artifactUpdateWire struct {
	TaskID    string       `json:"taskId"`
	ContextID string       `json:"contextId"`
	Artifact  artifactWire `json:"artifact"`
	Append    bool         `json:"append"`
	LastChunk bool         `json:"lastChunk"`
	Metadata  a2a.Metadata `json:"metadata"`
}

// streamResponseWire is a StreamResponse, of which SendMessageResponse
// (task or message) is a part.
type streamResponseWire struct {
	Task           *taskWire           `json:"task"`
	Message        *messageWire        `json:"message"`
	StatusUpdate   *statusUpdateWire   `json:"statusUpdate"`
	ArtifactUpdate *artifactUpdateWire `json:"artifactUpdate"`
}

// DecodeStreamResponse reads a StreamResponse: a task, a message, a status
// update or an artifact update (the first the response holds, in that
// order). The status update's final, which 1.0 does not have, is true for
// a terminal state.
func DecodeStreamResponse(raw json.RawMessage) (a2a.Event, error) {
	var w streamResponseWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return a2a.Event{}, fmt.Errorf("decode StreamResponse: %w", err)
	}
	return w.event()
}

// event converts the first member the response holds.
func (w *streamResponseWire) event() (a2a.Event, error) {
	var ev a2a.Event
	switch {
	case w.Task != nil:
		t := w.Task.task()
		ev.Task = &t
	case w.Message != nil:
		m := lenientMessage(w.Message)
		ev.Message = &m
	case w.StatusUpdate != nil:
		u := w.StatusUpdate
		ev.StatusUpdate = &a2a.TaskStatusUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Status: u.Status.status(), Metadata: u.Metadata}
		ev.StatusUpdate.Final = ev.StatusUpdate.Status.State.Terminal()
	case w.ArtifactUpdate != nil:
		u := w.ArtifactUpdate
		ev.ArtifactUpdate = &a2a.TaskArtifactUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Artifact: u.Artifact.artifact(),
			Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}
	default:
		return a2a.Event{}, errors.New("decode StreamResponse: it holds no task, message, statusUpdate or artifactUpdate")
	}
	return ev, nil
}

// DecodeSendResult reads the result of SendMessage: {"task": ...} or
// {"message": ...}; exactly one of the returned values is set.
func DecodeSendResult(raw json.RawMessage) (*a2a.Task, *a2a.Message, error) {
	var w streamResponseWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, nil, fmt.Errorf("decode SendMessage result: %w", err)
	}
	if w.Task == nil && w.Message == nil {
		return nil, nil, errors.New("decode SendMessage result: it holds neither a task nor a message")
	}
	ev, err := w.event()
	return ev.Task, ev.Message, err
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

// model is the internal form of a config as a client sent it or a server
// answered it.
func (w *pushConfigWire) model() a2a.TaskPushNotificationConfig {
	c := a2a.TaskPushNotificationConfig{TaskID: w.TaskID, PushNotificationConfig: a2a.PushNotificationConfig{ID: w.ID, URL: w.URL, Token: w.Token}}
	if a := w.Authentication; a != nil {
		c.PushNotificationConfig.Authentication = &a2a.PushAuthenticationInfo{Schemes: []string{a.Scheme}, Credentials: a.Credentials}
	}
	return c
}

// The simple requests, encoded from the structs their decoders read.

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
