package a2av1

import (
	"encoding/json"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/jsonw"
)

// AppendPart appends the 1.0 form of a part: exactly one of text, raw, url
// or data, with the file's name and media type as filename and mediaType.
func AppendPart(b []byte, p *a2a.Part) ([]byte, error) {
	b = append(b, '{')
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
		b = jsonw.OptString(b, "filename", f.Name)
		b = jsonw.OptString(b, "mediaType", f.MimeType)
	}
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
	b = append(b, '{')
	b = jsonw.StringField(b, "id", t.ID)
	b = jsonw.StringField(b, "contextId", t.ContextID)
	b, err := AppendStatus(jsonw.Key(b, "status"), &t.Status)
	if err != nil {
		return b, err
	}
	if len(t.Artifacts) > 0 {
		if b, err = jsonw.Array(jsonw.Key(b, "artifacts"), t.Artifacts, AppendArtifact); err != nil {
			return b, err
		}
	}
	if len(t.History) > 0 {
		if b, err = jsonw.Array(jsonw.Key(b, "history"), t.History, AppendMessage); err != nil {
			return b, err
		}
	}
	if b, err = jsonw.Object(b, "metadata", t.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
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
	pc := &c.PushNotificationConfig
	b = append(b, '{')
	b = jsonw.OptString(b, "id", pc.ID)
	b = jsonw.StringField(b, "taskId", c.TaskID)
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
