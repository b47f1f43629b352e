package a2av1

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// The 1.0 encoding of the objects of the model, appended to a byte slice as
// the 0.3 encoders of package a2a do, each object written once; the server
// answers with it and the client sends its requests with it. (The decoders
// are in decode.go.)

// AppendPart appends the 1.0 form of a part: exactly one of text, raw, url
// or data, with its filename and mediaType (a file's name and media type).
func AppendPart(b []byte, p *a2a.Part) ([]byte, error) {
	b = append(b, '{')
	filename, mediaType := p.Filename, p.MediaType
	switch p.Kind {
	case a2a.PartKindText:
		b = jsonw.StringField(b, "text", p.Text)
	case a2a.PartKindFile:
		f := p.File
		if f == nil {
			return b, fmt.Errorf("file part without content")
		}
		if f.URI != "" {
			b = jsonw.StringField(b, "url", f.URI)
		} else {
			b = jsonw.StringField(b, "raw", f.Bytes)
		}
		filename, mediaType = f.Name, f.MimeType
	}
	b = jsonw.OptString(b, "filename", filename)
	b = jsonw.OptString(b, "mediaType", mediaType)
	return a2a.AppendPartEnd(b, p)
}

func appendParts(b []byte, parts []a2a.Part) ([]byte, error) {
	return jsonw.Array(jsonw.Key(b, "parts"), parts, AppendPart)
}

// AppendMessage appends the 1.0 form of a message.
func AppendMessage(b []byte, m *a2a.Message) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "messageId", m.MessageID)
	b = jsonw.OptString(b, "contextId", m.ContextID)
	b = jsonw.OptString(b, "taskId", m.TaskID)
	b = jsonw.StringField(b, "role", Role(m.Role))
	b, err := appendParts(b, m.Parts)
	if err != nil {
		return b, err
	}
	if b, err = jsonw.Object(b, "metadata", m.Metadata); err != nil {
		return b, err
	}
	b = jsonw.Strings(b, "extensions", m.Extensions)
	b = jsonw.Strings(b, "referenceTaskIds", m.ReferenceTaskIDs)
	return append(b, '}'), nil
}

// AppendStatus appends the 1.0 form of a task status.
func AppendStatus(b []byte, s *a2a.TaskStatus) ([]byte, error) {
	return a2a.AppendStatus(b, s, State(s.State), AppendMessage)
}

// AppendArtifact appends the 1.0 form of an artifact.
func AppendArtifact(b []byte, a *a2a.Artifact) ([]byte, error) {
	return a2a.AppendArtifact(b, a, AppendPart)
}

// AppendTask appends the 1.0 form of a task.
func AppendTask(b []byte, t *a2a.Task) ([]byte, error) {
	b = openTaskObject(b, "id", t.ID, t.ContextID)
	b, err := AppendStatus(jsonw.Key(b, "status"), &t.Status)
	if err != nil {
		return b, err
	}
	if b, err = jsonw.OptArray(b, "artifacts", t.Artifacts, AppendArtifact); err != nil {
		return b, err
	}
	if b, err = jsonw.OptArray(b, "history", t.History, AppendMessage); err != nil {
		return b, err
	}
	if b, err = jsonw.Object(b, "metadata", t.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// openTaskObject opens the object of a task (idKey "id") or of an event of
// one (idKey "taskId"): {"<idKey>":id,"contextId":contextID.
func openTaskObject(b []byte, idKey, id, contextID string) []byte {
	b = jsonw.StringField(append(b, '{'), idKey, id)
	return jsonw.StringField(b, "contextId", contextID)
}

// AppendSendResult appends the result of SendMessage for a task:
// {"task": <task>}. (This host always answers with a task.)
func AppendSendResult(b []byte, t *a2a.Task) ([]byte, error) {
	return appendWrapped(b, "task", t, AppendTask)
}

// AppendSendMessageResult appends the SendMessageResponse of a send the
// agent answered directly: {"message": {...}}.
func AppendSendMessageResult(b []byte, m *a2a.Message) ([]byte, error) {
	return appendWrapped(b, "message", m, AppendMessage)
}

// appendWrapped appends an object whose one member, key, is v as value
// writes it: the shape of the oneof results of 1.0.
func appendWrapped[T any](b []byte, key string, v *T, value func([]byte, *T) ([]byte, error)) ([]byte, error) {
	b, err := value(jsonw.Key(append(b, '{'), key), v)
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// AppendListTasksResponse appends a ListTasksResponse: {tasks,
// nextPageToken, pageSize, totalSize}.
func AppendListTasksResponse(b []byte, r *a2a.ListTasksResult) ([]byte, error) {
	return a2a.AppendListTasks(b, r, AppendTask)
}

// AppendPushConfig appends a flattened TaskPushNotificationConfig: {id,
// taskId, url, token, authentication: {scheme, credentials}}. The first of
// a 0.3 config's schemes becomes the scheme.
func AppendPushConfig(b []byte, c *a2a.TaskPushNotificationConfig) []byte {
	return appendPushConfig(b, "", c)
}

// appendPushConfig is AppendPushConfig with a tenant, as a client sends it.
func appendPushConfig(b []byte, tenant string, c *a2a.TaskPushNotificationConfig) []byte {
	pc := &c.PushNotificationConfig
	b = append(b, '{')
	b = jsonw.OptString(b, "tenant", tenant)
	b = jsonw.OptString(b, "id", pc.ID)
	b = jsonw.OptString(b, "taskId", c.TaskID)
	b = jsonw.StringField(b, "url", pc.URL)
	b = jsonw.OptString(b, "token", pc.Token)
	if a := pc.Authentication; a != nil && len(a.Schemes) > 0 {
		b = append(jsonw.Key(b, "authentication"), '{')
		b = jsonw.StringField(b, "scheme", a.Schemes[0])
		b = jsonw.OptString(b, "credentials", a.Credentials)
		b = append(b, '}')
	}
	return append(b, '}')
}

// AppendListPushConfigsResponse appends a
// ListTaskPushNotificationConfigsResponse: {configs, nextPageToken}.
func AppendListPushConfigsResponse(b []byte, configs []a2a.TaskPushNotificationConfig) []byte {
	b = append(b, `{"configs":[`...)
	for i := range configs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendPushConfig(b, &configs[i])
	}
	return append(b, `],"nextPageToken":""}`...)
}

// Empty is the result of DeleteTaskPushNotificationConfig
// (google.protobuf.Empty).
var Empty = json.RawMessage("{}")

// AppendStatusUpdateEvent appends a TaskStatusUpdateEvent: {taskId,
// contextId, status, metadata} (1.0 has no final).
func AppendStatusUpdateEvent(b []byte, e *a2a.TaskStatusUpdateEvent) ([]byte, error) {
	b = openTaskObject(b, "taskId", e.TaskID, e.ContextID)
	b, err := AppendStatus(jsonw.Key(b, "status"), &e.Status)
	if err != nil {
		return b, err
	}
	if b, err = jsonw.Object(b, "metadata", e.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// AppendArtifactUpdateEvent appends a TaskArtifactUpdateEvent: {taskId,
// contextId, artifact, append, lastChunk, metadata}.
func AppendArtifactUpdateEvent(b []byte, e *a2a.TaskArtifactUpdateEvent) ([]byte, error) {
	b = openTaskObject(b, "taskId", e.TaskID, e.ContextID)
	b, err := AppendArtifact(jsonw.Key(b, "artifact"), &e.Artifact)
	if err != nil {
		return b, err
	}
	if e.Append {
		b = append(jsonw.Key(b, "append"), "true"...)
	}
	if e.LastChunk {
		b = append(jsonw.Key(b, "lastChunk"), "true"...)
	}
	if b, err = jsonw.Object(b, "metadata", e.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// AppendStreamResponse appends the StreamResponse of an event: the one
// member it holds, named task, message, statusUpdate or artifactUpdate.
func AppendStreamResponse(b []byte, ev *a2a.Event) ([]byte, error) {
	switch {
	case ev.Task != nil:
		return appendWrapped(b, "task", ev.Task, AppendTask)
	case ev.Message != nil:
		return appendWrapped(b, "message", ev.Message, AppendMessage)
	case ev.StatusUpdate != nil:
		return appendWrapped(b, "statusUpdate", ev.StatusUpdate, AppendStatusUpdateEvent)
	case ev.ArtifactUpdate != nil:
		return appendWrapped(b, "artifactUpdate", ev.ArtifactUpdate, AppendArtifactUpdateEvent)
	}
	return b, errors.New("a StreamResponse needs a task, a message, a status update or an artifact update")
}

// EncodeSendMessageRequest encodes the params of SendMessage (the body of
// POST /message:send), as a client sends them. Configuration.Blocking
// false is sent as returnImmediately; nil leaves the server's default.
func EncodeSendMessageRequest(tenant string, p a2a.MessageSendParams) ([]byte, error) {
	b := append(make([]byte, 0, 256), '{')
	b = jsonw.OptString(b, "tenant", tenant)
	b, err := AppendMessage(jsonw.Key(b, "message"), &p.Message)
	if err != nil {
		return nil, err
	}
	if cfg := p.Configuration; cfg != nil {
		b = append(jsonw.Key(b, "configuration"), '{')
		b = jsonw.Strings(b, "acceptedOutputModes", cfg.AcceptedOutputModes)
		if cfg.HistoryLength != nil {
			b = strconv.AppendInt(jsonw.Key(b, "historyLength"), int64(*cfg.HistoryLength), 10)
		}
		if cfg.Blocking != nil && !*cfg.Blocking {
			b = append(jsonw.Key(b, "returnImmediately"), "true"...)
		}
		if cfg.PushNotificationConfig != nil {
			b = AppendPushConfig(jsonw.Key(b, "taskPushNotificationConfig"), &a2a.TaskPushNotificationConfig{PushNotificationConfig: *cfg.PushNotificationConfig})
		}
		b = append(b, '}')
	}
	if b, err = jsonw.Object(b, "metadata", p.Metadata); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// EncodePushConfig encodes a flattened TaskPushNotificationConfig as a
// client sends it: the params of CreateTaskPushNotificationConfig, and the
// body of its REST route.
func EncodePushConfig(tenant string, c a2a.TaskPushNotificationConfig) ([]byte, error) {
	return appendPushConfig(make([]byte, 0, 128), tenant, &c), nil
}
