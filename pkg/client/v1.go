package client

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// The A2A 1.0 wire format, converted to and from pkg/a2a's model at the
// client's edge: no "kind" discriminators, one Part object (text | raw |
// url | data, with mediaType and filename), TASK_STATE_* and ROLE_* enums,
// flattened push configs, wrapped send results.

type v1Part struct {
	Text      *string         `json:"text,omitempty"`
	Raw       *string         `json:"raw,omitempty"` // base64
	URL       *string         `json:"url,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Metadata  a2a.Metadata    `json:"metadata,omitempty"`
}

type v1Message struct {
	MessageID        string       `json:"messageId"`
	ContextID        string       `json:"contextId,omitempty"`
	TaskID           string       `json:"taskId,omitempty"`
	Role             string       `json:"role"`
	Parts            []v1Part     `json:"parts"`
	Metadata         a2a.Metadata `json:"metadata,omitempty"`
	Extensions       []string     `json:"extensions,omitempty"`
	ReferenceTaskIDs []string     `json:"referenceTaskIds,omitempty"`
}

type v1Status struct {
	State     string     `json:"state"`
	Message   *v1Message `json:"message,omitempty"`
	Timestamp string     `json:"timestamp,omitempty"`
}

type v1Artifact struct {
	ArtifactID  string       `json:"artifactId"`
	Name        string       `json:"name,omitempty"`
	Description string       `json:"description,omitempty"`
	Parts       []v1Part     `json:"parts"`
	Metadata    a2a.Metadata `json:"metadata,omitempty"`
	Extensions  []string     `json:"extensions,omitempty"`
}

type v1Task struct {
	ID        string       `json:"id"`
	ContextID string       `json:"contextId,omitempty"`
	Status    v1Status     `json:"status"`
	Artifacts []v1Artifact `json:"artifacts,omitempty"`
	History   []v1Message  `json:"history,omitempty"`
	Metadata  a2a.Metadata `json:"metadata,omitempty"`
}

type v1PushAuth struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

type v1PushConfig struct {
	Tenant         string      `json:"tenant,omitempty"`
	ID             string      `json:"id,omitempty"`
	TaskID         string      `json:"taskId,omitempty"`
	URL            string      `json:"url"`
	Token          string      `json:"token,omitempty"`
	Authentication *v1PushAuth `json:"authentication,omitempty"`
}

type v1SendConfig struct {
	AcceptedOutputModes []string      `json:"acceptedOutputModes,omitempty"`
	PushConfig          *v1PushConfig `json:"taskPushNotificationConfig,omitempty"`
	HistoryLength       *int          `json:"historyLength,omitempty"`
	ReturnImmediately   bool          `json:"returnImmediately,omitempty"`
}

type v1SendRequest struct {
	Tenant        string        `json:"tenant,omitempty"`
	Message       v1Message     `json:"message"`
	Configuration *v1SendConfig `json:"configuration,omitempty"`
	Metadata      a2a.Metadata  `json:"metadata,omitempty"`
}

// v1SendResult is a SendMessage result (and a StreamResponse): exactly one
// member is set.
type v1SendResult struct {
	Task    *v1Task    `json:"task"`
	Message *v1Message `json:"message"`
}

type v1GetRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength,omitempty"`
}

type v1CancelRequest struct {
	Tenant   string       `json:"tenant,omitempty"`
	ID       string       `json:"id"`
	Metadata a2a.Metadata `json:"metadata,omitempty"`
}

type v1ListRequest struct {
	Tenant               string `json:"tenant,omitempty"`
	ContextID            string `json:"contextId,omitempty"`
	Status               string `json:"status,omitempty"`
	PageSize             *int   `json:"pageSize,omitempty"`
	PageToken            string `json:"pageToken,omitempty"`
	HistoryLength        *int   `json:"historyLength,omitempty"`
	StatusTimestampAfter string `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     bool   `json:"includeArtifacts,omitempty"`
}

type v1ListResponse struct {
	Tasks         []v1Task `json:"tasks"`
	NextPageToken string   `json:"nextPageToken"`
	PageSize      int      `json:"pageSize"`
	TotalSize     int      `json:"totalSize"`
}

type v1PushConfigRef struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id,omitempty"`
}

type v1PushConfigList struct {
	Configs       []v1PushConfig `json:"configs"`
	NextPageToken string         `json:"nextPageToken,omitempty"`
}

// v1State converts a 0.3 state to its 1.0 enum name.
func v1State(s a2a.TaskState) string {
	if s == "" {
		return ""
	}
	if s == a2a.TaskStateUnknown {
		return "TASK_STATE_UNSPECIFIED"
	}
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(string(s), "-", "_"))
}

// fromV1State converts a 1.0 enum name (or a 0.3 state, as some servers
// send) to the 0.3 state.
func fromV1State(s string) a2a.TaskState {
	rest, ok := strings.CutPrefix(s, "TASK_STATE_")
	if !ok {
		return a2a.TaskState(s)
	}
	if rest == "UNSPECIFIED" || rest == "" {
		return a2a.TaskStateUnknown
	}
	return a2a.TaskState(strings.ToLower(strings.ReplaceAll(rest, "_", "-")))
}

func v1Role(r a2a.Role) string {
	switch r {
	case a2a.RoleUser:
		return "ROLE_USER"
	case a2a.RoleAgent:
		return "ROLE_AGENT"
	}
	return string(r)
}

func fromV1Role(r string) a2a.Role {
	switch r {
	case "ROLE_USER":
		return a2a.RoleUser
	case "ROLE_AGENT":
		return a2a.RoleAgent
	}
	return a2a.Role(strings.ToLower(r))
}

func toV1Part(p a2a.Part) v1Part {
	w := v1Part{Metadata: p.Metadata}
	switch p.Kind {
	case a2a.PartKindText:
		t := p.Text
		w.Text = &t
	case a2a.PartKindData:
		w.Data = p.Data
		w.MediaType = "application/json"
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

func fromV1Part(w v1Part) a2a.Part {
	switch {
	case w.Text != nil:
		return a2a.Part{Kind: a2a.PartKindText, Text: *w.Text, Metadata: w.Metadata}
	case w.Raw != nil:
		p := a2a.FileBytesPart(*w.Raw, w.Filename, w.MediaType)
		p.Metadata = w.Metadata
		return p
	case w.URL != nil:
		p := a2a.FileURIPart(*w.URL, w.Filename, w.MediaType)
		p.Metadata = w.Metadata
		return p
	case len(w.Data) > 0 && !bytes.Equal(w.Data, []byte("null")):
		return a2a.Part{Kind: a2a.PartKindData, Data: w.Data, Metadata: w.Metadata}
	}
	return a2a.Part{Kind: a2a.PartKindText, Metadata: w.Metadata}
}

func toV1Parts(ps []a2a.Part) []v1Part {
	out := make([]v1Part, len(ps))
	for i, p := range ps {
		out[i] = toV1Part(p)
	}
	return out
}

func fromV1Parts(ws []v1Part) []a2a.Part {
	if ws == nil {
		return nil
	}
	out := make([]a2a.Part, len(ws))
	for i, w := range ws {
		out[i] = fromV1Part(w)
	}
	return out
}

func toV1Message(m a2a.Message) v1Message {
	return v1Message{
		MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: v1Role(m.Role),
		Parts: toV1Parts(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs,
	}
}

func fromV1Message(w v1Message) a2a.Message {
	return a2a.Message{
		MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Role: fromV1Role(w.Role),
		Parts: fromV1Parts(w.Parts), Metadata: w.Metadata, Extensions: w.Extensions, ReferenceTaskIDs: w.ReferenceTaskIDs,
	}
}

func fromV1Task(w v1Task) a2a.Task {
	t := a2a.Task{ID: w.ID, ContextID: w.ContextID, Metadata: w.Metadata}
	t.Status = a2a.TaskStatus{State: fromV1State(w.Status.State), Timestamp: w.Status.Timestamp}
	if w.Status.Message != nil {
		m := fromV1Message(*w.Status.Message)
		t.Status.Message = &m
	}
	for _, a := range w.Artifacts {
		t.Artifacts = append(t.Artifacts, a2a.Artifact{
			ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description,
			Parts: fromV1Parts(a.Parts), Metadata: a.Metadata, Extensions: a.Extensions,
		})
	}
	for _, m := range w.History {
		t.History = append(t.History, fromV1Message(m))
	}
	return t
}

func toV1PushConfig(tenant string, c a2a.TaskPushNotificationConfig) v1PushConfig {
	p := c.PushNotificationConfig
	w := v1PushConfig{Tenant: tenant, ID: p.ID, TaskID: c.TaskID, URL: p.URL, Token: p.Token}
	if p.Authentication != nil && len(p.Authentication.Schemes) > 0 {
		w.Authentication = &v1PushAuth{Scheme: p.Authentication.Schemes[0], Credentials: p.Authentication.Credentials}
	}
	return w
}

func fromV1PushConfig(w v1PushConfig) a2a.TaskPushNotificationConfig {
	c := a2a.TaskPushNotificationConfig{TaskID: w.TaskID, PushNotificationConfig: a2a.PushNotificationConfig{ID: w.ID, URL: w.URL, Token: w.Token}}
	if w.Authentication != nil {
		c.PushNotificationConfig.Authentication = &a2a.PushAuthenticationInfo{Schemes: []string{w.Authentication.Scheme}, Credentials: w.Authentication.Credentials}
	}
	return c
}

func toV1SendRequest(tenant string, p a2a.MessageSendParams) v1SendRequest {
	r := v1SendRequest{Tenant: tenant, Message: toV1Message(p.Message), Metadata: p.Metadata}
	if cfg := p.Configuration; cfg != nil {
		w := &v1SendConfig{AcceptedOutputModes: cfg.AcceptedOutputModes, HistoryLength: cfg.HistoryLength}
		if cfg.Blocking != nil {
			w.ReturnImmediately = !*cfg.Blocking
		}
		if cfg.PushNotificationConfig != nil {
			pc := toV1PushConfig("", a2a.TaskPushNotificationConfig{PushNotificationConfig: *cfg.PushNotificationConfig})
			w.PushConfig = &pc
		}
		r.Configuration = w
	}
	return r
}

func toV1ListRequest(tenant string, p a2a.ListTasksParams) v1ListRequest {
	return v1ListRequest{
		Tenant: tenant, ContextID: p.ContextID, Status: v1State(p.Status), PageSize: p.PageSize, PageToken: p.PageToken,
		HistoryLength: p.HistoryLength, StatusTimestampAfter: p.StatusTimestampAfter, IncludeArtifacts: p.IncludeArtifacts,
	}
}

func fromV1List(w v1ListResponse) *a2a.ListTasksResult {
	r := &a2a.ListTasksResult{Tasks: make([]a2a.Task, 0, len(w.Tasks)), NextPageToken: w.NextPageToken, PageSize: w.PageSize, TotalSize: w.TotalSize}
	for _, t := range w.Tasks {
		r.Tasks = append(r.Tasks, fromV1Task(t))
	}
	return r
}
