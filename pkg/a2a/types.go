package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// Metadata is a free-form JSON object attached to tasks, messages, parts,
// artifacts and requests. Unknown keys are preserved as they arrived; numbers
// decode as json.Number so that large integers survive a round trip.
type Metadata map[string]any

// UnmarshalJSON decodes a JSON object, keeping numbers exact.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*m = nil
		return nil
	}
	var v map[string]any
	if err := unmarshalExact(b, &v); err != nil {
		return err
	}
	*m = v
	return nil
}

// unmarshalExact reads b into v as json.Unmarshal does, but with the
// numbers of free-form values (any) kept exact, as json.Number.
func unmarshalExact(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// Object returns the nested object at key, or nil when it is absent or not an
// object.
func (m Metadata) Object(key string) Metadata {
	switch v := m[key].(type) {
	case map[string]any:
		return v
	case Metadata:
		return v
	}
	return nil
}

// String returns the string at key, or "" when it is absent or not a string.
func (m Metadata) String(key string) string {
	s, _ := m[key].(string)
	return s
}

// PartKind discriminates the three kinds of part.
type PartKind string

// Part kinds.
const (
	PartKindText PartKind = "text"
	PartKindFile PartKind = "file"
	PartKindData PartKind = "data"
)

// Part is one piece of content of a message or an artifact: text, a file (inline
// bytes or a URI) or structured JSON data. Exactly the field of its Kind is set.
type Part struct {
	Kind PartKind
	// Text is the content of a text part.
	Text string
	// File is the content of a file part.
	File *FileContent
	// Data is the JSON object of a data part, kept as received.
	Data json.RawMessage
	// Metadata is optional metadata of the part.
	Metadata Metadata
	// MediaType and Filename are the media type and file name of a text
	// or data part, which A2A 1.0 gives every part. (A file part keeps
	// its own in File, where 0.3 has them.) The 0.3 wire has no room for
	// them and leaves them out; the model's JSON keeps them.
	MediaType string
	Filename  string
}

// FileContent is a file carried inline (Bytes, base64) or by reference (URI).
type FileContent struct {
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Kind: PartKindText, Text: text} }

// DataPart returns a data part holding v marshalled as JSON; v must marshal to
// a JSON object.
func DataPart(v any) (Part, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Part{}, fmt.Errorf("data part: %w", err)
	}
	if !isJSONObject(b) {
		return Part{}, fmt.Errorf("data part: %T does not marshal to a JSON object", v)
	}
	return Part{Kind: PartKindData, Data: b}, nil
}

// FileURIPart returns a file part that references uri.
func FileURIPart(uri, name, mimeType string) Part {
	return Part{Kind: PartKindFile, File: &FileContent{URI: uri, Name: name, MimeType: mimeType}}
}

// FileBytesPart returns a file part carrying base64 content inline.
func FileBytesPart(base64Content, name, mimeType string) Part {
	return Part{Kind: PartKindFile, File: &FileContent{Bytes: base64Content, Name: name, MimeType: mimeType}}
}

// MarshalJSON writes the model's JSON of the part (see encode.go).
func (p Part) MarshalJSON() ([]byte, error) {
	return appendPart(make([]byte, 0, 64+len(p.Text)), &p, modelJSON)
}

// MarshalJSON writes the model's JSON of the message (see encode.go).
func (m Message) MarshalJSON() ([]byte, error) {
	return appendMessage(make([]byte, 0, 256), &m, modelJSON)
}

// Message is one turn of a conversation between a user and an agent. Its
// JSON (the A2A 0.3 Message) is written by encode.go and read by
// decode.go, as that of Part, TaskStatus, Artifact and Task.
type Message struct {
	Role             Role
	Parts            []Part
	MessageID        string
	TaskID           string
	ContextID        string
	ReferenceTaskIDs []string
	Extensions       []string
	Metadata         Metadata
}

// Text returns the concatenated text of the message's text parts.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	return PartsText(m.Parts)
}

// PartsText concatenates the text of the text parts among parts.
func PartsText(parts []Part) string {
	switch {
	case len(parts) == 1 && parts[0].Kind == PartKindText:
		return parts[0].Text
	}
	var buf bytes.Buffer
	for _, p := range parts {
		if p.Kind == PartKindText {
			buf.WriteString(p.Text)
		}
	}
	return buf.String()
}

// TaskStatus is the current state of a task, with an optional agent message
// and the time of the change.
type TaskStatus struct {
	State     TaskState
	Message   *Message
	Timestamp string
}

// MarshalJSON writes the model's JSON of the status.
func (s TaskStatus) MarshalJSON() ([]byte, error) {
	return appendStatus(make([]byte, 0, 256), &s, modelJSON)
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string
	Name        string
	Description string
	Parts       []Part
	Metadata    Metadata
	Extensions  []string
}

// MarshalJSON writes the model's JSON of the artifact.
func (a Artifact) MarshalJSON() ([]byte, error) {
	return appendArtifact(make([]byte, 0, 256), &a, modelJSON)
}

// LatestArtifacts returns arts with each artifact id once, in the order of
// its first appearance, holding its latest version: an artifact sent again
// with the same id (not appended) replaces the earlier one.
func LatestArtifacts(arts []Artifact) []Artifact {
	out := make([]Artifact, 0, len(arts))
	at := make(map[string]int, len(arts))
	for _, a := range arts {
		if i, ok := at[a.ArtifactID]; ok {
			out[i] = a
			continue
		}
		at[a.ArtifactID] = len(out)
		out = append(out, a)
	}
	return out
}

// Task is a stateful unit of work.
type Task struct {
	ID        string
	ContextID string
	Status    TaskStatus
	History   []Message
	Artifacts []Artifact
	Metadata  Metadata
}

// SendResult is the result of message/send (SendMessage): the task, or,
// when the agent answered directly, a Message (exactly one is set).
type SendResult struct {
	Task    *Task
	Message *Message
}

// MarshalJSON writes the model's JSON of the task.
func (t Task) MarshalJSON() ([]byte, error) {
	return appendTask(make([]byte, 0, 1024), &t, modelJSON)
}

// TaskStatusUpdateEvent tells that a task's status changed.
type TaskStatusUpdateEvent struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Final     bool       `json:"final"`
	Metadata  Metadata   `json:"metadata,omitempty"`
}

// MarshalJSON writes the event with "kind":"status-update".
func (e TaskStatusUpdateEvent) MarshalJSON() ([]byte, error) {
	type plain TaskStatusUpdateEvent // without this MarshalJSON
	return marshalWithKind(plain(e), "status-update")
}

// TaskArtifactUpdateEvent tells that an artifact was added or extended.
type TaskArtifactUpdateEvent struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	Append    bool     `json:"append,omitempty"`
	LastChunk bool     `json:"lastChunk,omitempty"`
	Metadata  Metadata `json:"metadata,omitempty"`
}

// MarshalJSON writes the event with "kind":"artifact-update".
func (e TaskArtifactUpdateEvent) MarshalJSON() ([]byte, error) {
	type plain TaskArtifactUpdateEvent // without this MarshalJSON
	return marshalWithKind(plain(e), "artifact-update")
}

// Event is one object of a stream, or the body of a push notification:
// exactly one of its members is set. (0.3 writes the object itself, told
// by its "kind"; 1.0 a StreamResponse, which names the member.)
type Event struct {
	Task           *Task
	Message        *Message
	StatusUpdate   *TaskStatusUpdateEvent
	ArtifactUpdate *TaskArtifactUpdateEvent
}

// marshalWithKind writes v, a struct with no MarshalJSON of its own, as
// encoding/json does, with a last member "kind": the tag 0.3 gives the
// objects of a stream.
func marshalWithKind(v any, kind string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	b = jsonw.StringField(b[:len(b)-1], "kind", kind)
	return append(b, '}'), nil
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) >= 2 && b[0] == '{' && b[len(b)-1] == '}'
}
