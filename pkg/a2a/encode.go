package a2a

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/jsonw"
)

// The 0.3 wire encoding of the hot protocol objects, appended to a byte
// slice with the primitives of pkg/jsonw: each object is written once.
// The MarshalJSON methods call these encoders, and the HTTP edge calls them
// directly.

// AppendJSON appends the 0.3 wire form of the part.
func (p *Part) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "kind", string(p.Kind))
	switch p.Kind {
	case PartKindText:
		b = jsonw.StringField(b, "text", p.Text)
	case PartKindFile:
		b = append(jsonw.Key(b, "file"), '{')
		if f := p.File; f != nil {
			if f.URI != "" {
				b = jsonw.StringField(b, "uri", f.URI)
			} else {
				b = jsonw.StringField(b, "bytes", f.Bytes)
			}
			b = jsonw.OptString(b, "name", f.Name)
			b = jsonw.OptString(b, "mimeType", f.MimeType)
		}
		b = append(b, '}')
	}
	return AppendPartEnd(b, p)
}

// AppendPartEnd ends the wire form of a part the same way in 0.3 and 1.0,
// after the fields of a text or file part: a data part's data (an empty
// object when it has none), or an error for a kind that is not text, file
// or data; then the metadata and the closing brace.
func AppendPartEnd(b []byte, p *Part) ([]byte, error) {
	var err error
	switch p.Kind {
	case PartKindText, PartKindFile:
	case PartKindData:
		data := p.Data
		if len(data) == 0 {
			data = json.RawMessage("{}")
		}
		if b, err = jsonw.Raw(b, "data", data); err != nil {
			return b, err
		}
	default:
		return b, fmt.Errorf("part kind %q is not one of text, file, data", p.Kind)
	}
	if b, err = jsonw.Object(b, "metadata", p.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

func appendPart(b []byte, p *Part) ([]byte, error) { return p.AppendJSON(b) }

func appendMessage(b []byte, m *Message) ([]byte, error) { return m.AppendJSON(b) }

func appendParts(b []byte, parts []Part) ([]byte, error) {
	return jsonw.Array(jsonw.Key(b, "parts"), parts, appendPart)
}

// AppendJSON appends the 0.3 wire form of the message.
func (m *Message) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "role", string(m.Role))
	b, err := appendParts(b, m.Parts)
	if err != nil {
		return b, err
	}
	b = jsonw.StringField(b, "messageId", m.MessageID)
	b = jsonw.OptString(b, "taskId", m.TaskID)
	b = jsonw.OptString(b, "contextId", m.ContextID)
	b = jsonw.Strings(b, "referenceTaskIds", m.ReferenceTaskIDs)
	b = jsonw.Strings(b, "extensions", m.Extensions)
	if b, err = jsonw.Object(b, "metadata", m.Metadata); err != nil {
		return b, err
	}
	b = jsonw.StringField(b, "kind", "message")
	return append(b, '}'), nil
}

// AppendJSON appends the 0.3 wire form of the status.
func (s *TaskStatus) AppendJSON(b []byte) ([]byte, error) {
	return AppendStatus(b, s, string(s.State), appendMessage)
}

// AppendStatus appends the wire form of a task status, whose members are the
// same in 0.3 and 1.0: state is the status's state as the version spells
// it, and message writes the version's form of the status message.
func AppendStatus(b []byte, s *TaskStatus, state string, message func([]byte, *Message) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "state", state)
	if s.Message != nil {
		var err error
		if b, err = message(jsonw.Key(b, "message"), s.Message); err != nil {
			return b, err
		}
	}
	b = jsonw.OptString(b, "timestamp", s.Timestamp)
	return append(b, '}'), nil
}

// AppendJSON appends the 0.3 wire form of the artifact.
func (a *Artifact) AppendJSON(b []byte) ([]byte, error) {
	return AppendArtifact(b, a, appendPart)
}

// AppendArtifact appends the wire form of an artifact, whose members are the
// same in 0.3 and 1.0: part writes the version's form of each part.
func AppendArtifact(b []byte, a *Artifact, part func([]byte, *Part) ([]byte, error)) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "artifactId", a.ArtifactID)
	b = jsonw.OptString(b, "name", a.Name)
	b = jsonw.OptString(b, "description", a.Description)
	b, err := jsonw.Array(jsonw.Key(b, "parts"), a.Parts, part)
	if err != nil {
		return b, err
	}
	if b, err = jsonw.Object(b, "metadata", a.Metadata); err != nil {
		return b, err
	}
	b = jsonw.Strings(b, "extensions", a.Extensions)
	return append(b, '}'), nil
}

// AppendJSON appends the 0.3 wire form of the task.
func (t *Task) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = jsonw.StringField(b, "id", t.ID)
	b = jsonw.StringField(b, "contextId", t.ContextID)
	b, err := t.Status.AppendJSON(jsonw.Key(b, "status"))
	if err != nil {
		return b, err
	}
	if len(t.History) > 0 {
		if b, err = jsonw.Array(jsonw.Key(b, "history"), t.History, appendMessage); err != nil {
			return b, err
		}
	}
	if len(t.Artifacts) > 0 {
		if b, err = jsonw.Array(jsonw.Key(b, "artifacts"), t.Artifacts, func(b []byte, a *Artifact) ([]byte, error) { return a.AppendJSON(b) }); err != nil {
			return b, err
		}
	}
	if b, err = jsonw.Object(b, "metadata", t.Metadata); err != nil {
		return b, err
	}
	b = jsonw.StringField(b, "kind", "task")
	return append(b, '}'), nil
}

// AppendJSON appends the result of tasks/list.
func (r *ListTasksResult) AppendJSON(b []byte) ([]byte, error) {
	return AppendListTasks(b, r, func(b []byte, t *Task) ([]byte, error) { return t.AppendJSON(b) })
}

// AppendListTasks appends the result of listing tasks, whose members are the
// same in 0.3 and 1.0 (ListTasksResponse): task writes the version's form of
// each task.
func AppendListTasks(b []byte, r *ListTasksResult, task func([]byte, *Task) ([]byte, error)) ([]byte, error) {
	b, err := jsonw.Array(append(b, `{"tasks":`...), r.Tasks, task)
	if err != nil {
		return b, err
	}
	b = jsonw.StringField(b, "nextPageToken", r.NextPageToken)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(r.PageSize), 10)
	b = append(b, `,"totalSize":`...)
	b = strconv.AppendInt(b, int64(r.TotalSize), 10)
	return append(b, '}'), nil
}
