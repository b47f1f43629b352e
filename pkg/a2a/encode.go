package a2a

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// The 0.3 encoding of the protocol objects, appended to a byte slice with
// the primitives of pkg/internal/jsonw: each object is written once. It has two
// forms, written by the same code:
//   - the 0.3 wire form (the AppendJSON methods): exactly the A2A 0.3
//     object, which the HTTP edge answers, 0.3 push notifications carry and
//     the client sends;
//   - the model's JSON (the MarshalJSON methods): the wire form plus what
//     the model holds that 0.3 has no room for (a text or data part's
//     mediaType and filename, which 1.0 carries), so that stores and
//     queues, which keep the model as JSON, lose nothing.
//
// decode.go reads both.

// form is the form an encoder writes.
type form bool

const (
	wireJSON  form = false
	modelJSON form = true
)

// AppendJSON appends the 0.3 wire form of the part.
func (p *Part) AppendJSON(b []byte) ([]byte, error) { return appendPart(b, p, wireJSON) }

func appendPart(b []byte, p *Part, f form) ([]byte, error) {
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
	if f == modelJSON {
		b = jsonw.OptString(b, "mediaType", p.MediaType)
		b = jsonw.OptString(b, "filename", p.Filename)
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

// The encoders of each form, as the functions jsonw.Array and the shared
// encoders (AppendStatus, AppendArtifact, AppendListTasks) take.
func appendPartWire(b []byte, p *Part) ([]byte, error)       { return appendPart(b, p, wireJSON) }
func appendPartModel(b []byte, p *Part) ([]byte, error)      { return appendPart(b, p, modelJSON) }
func appendMessageWire(b []byte, m *Message) ([]byte, error) { return appendMessage(b, m, wireJSON) }
func appendMessageModel(b []byte, m *Message) ([]byte, error) {
	return appendMessage(b, m, modelJSON)
}
func appendArtifactWire(b []byte, a *Artifact) ([]byte, error) { return appendArtifact(b, a, wireJSON) }
func appendArtifactModel(b []byte, a *Artifact) ([]byte, error) {
	return appendArtifact(b, a, modelJSON)
}
func appendTaskWire(b []byte, t *Task) ([]byte, error)  { return appendTask(b, t, wireJSON) }
func appendTaskModel(b []byte, t *Task) ([]byte, error) { return appendTask(b, t, modelJSON) }

// AppendJSON appends the 0.3 wire form of the message.
func (m *Message) AppendJSON(b []byte) ([]byte, error) { return appendMessage(b, m, wireJSON) }

// AppendModelJSON appends the model's JSON of the message, the bytes
// MarshalJSON returns, to b.
func (m *Message) AppendModelJSON(b []byte) ([]byte, error) { return appendMessage(b, m, modelJSON) }

func appendMessage(b []byte, m *Message, f form) ([]byte, error) {
	part := appendPartWire
	if f == modelJSON {
		part = appendPartModel
	}
	b = append(b, '{')
	b = jsonw.StringField(b, "role", string(m.Role))
	b, err := jsonw.Array(jsonw.Key(b, "parts"), m.Parts, part)
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
func (s *TaskStatus) AppendJSON(b []byte) ([]byte, error) { return appendStatus(b, s, wireJSON) }

func appendStatus(b []byte, s *TaskStatus, f form) ([]byte, error) {
	if f == modelJSON {
		return AppendStatus(b, s, string(s.State), appendMessageModel)
	}
	return AppendStatus(b, s, string(s.State), appendMessageWire)
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
func (a *Artifact) AppendJSON(b []byte) ([]byte, error) { return appendArtifact(b, a, wireJSON) }

func appendArtifact(b []byte, a *Artifact, f form) ([]byte, error) {
	if f == modelJSON {
		return AppendArtifact(b, a, appendPartModel)
	}
	return AppendArtifact(b, a, appendPartWire)
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
func (t *Task) AppendJSON(b []byte) ([]byte, error) { return appendTask(b, t, wireJSON) }

func appendTask(b []byte, t *Task, f form) ([]byte, error) {
	message, artifact := appendMessageWire, appendArtifactWire
	if f == modelJSON {
		message, artifact = appendMessageModel, appendArtifactModel
	}
	b = append(b, '{')
	b = jsonw.StringField(b, "id", t.ID)
	b = jsonw.StringField(b, "contextId", t.ContextID)
	b, err := appendStatus(jsonw.Key(b, "status"), &t.Status, f)
	if err != nil {
		return b, err
	}
	if b, err = jsonw.OptArray(b, "history", t.History, message); err != nil {
		return b, err
	}
	if b, err = jsonw.OptArray(b, "artifacts", t.Artifacts, artifact); err != nil {
		return b, err
	}
	if b, err = jsonw.Object(b, "metadata", t.Metadata); err != nil {
		return b, err
	}
	b = jsonw.StringField(b, "kind", "task")
	return append(b, '}'), nil
}

// AppendJSON appends the 0.3 wire form of the result of tasks/list.
func (r *ListTasksResult) AppendJSON(b []byte) ([]byte, error) {
	return AppendListTasks(b, r, appendTaskWire)
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

// AppendJSON appends the 0.3 wire form of message/send's params, which
// the client sends.
func (p *MessageSendParams) AppendJSON(b []byte) ([]byte, error) {
	b, err := appendMessage(jsonw.Key(append(b, '{'), "message"), &p.Message, wireJSON)
	if err != nil {
		return b, err
	}
	if p.Configuration != nil {
		if b, err = jsonw.Value(jsonw.Key(b, "configuration"), p.Configuration); err != nil {
			return b, err
		}
	}
	if b, err = jsonw.Object(b, "metadata", p.Metadata); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}
