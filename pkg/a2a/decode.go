package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The 0.3 decoding of the protocol objects: it reads the 0.3 wire form and
// the model's JSON (see encode.go).
//
// Decoding goes through plain wire structs that have no UnmarshalJSON of
// their own (only Metadata has one), so that a whole task or message decodes
// in one encoding/json pass: a nested UnmarshalJSON method would make
// encoding/json validate and scan its bytes again.

// partWire is the union of every field a part may carry on input.
type partWire struct {
	Kind      *string         `json:"kind"`
	Text      *string         `json:"text"`
	File      *FileContent    `json:"file"`
	Data      json.RawMessage `json:"data"`
	Metadata  Metadata        `json:"metadata"`
	MediaType string          `json:"mediaType"`
	Filename  string          `json:"filename"`
}

// part converts the wire form. A missing "kind" is inferred from the one
// content field present; contradictions (no content, unknown kind) are left
// for Validate, which reports them with the field's path.
func (w *partWire) part() Part {
	p := Part{Metadata: w.Metadata, File: w.File, Data: w.Data, MediaType: w.MediaType, Filename: w.Filename}
	if w.Text != nil {
		p.Text = *w.Text
	}
	if bytes.Equal(w.Data, []byte("null")) {
		p.Data = nil
	}
	switch {
	case w.Kind != nil:
		p.Kind = PartKind(*w.Kind)
	case w.Text != nil && w.File == nil && p.Data == nil:
		p.Kind = PartKindText
	case w.File != nil && w.Text == nil && p.Data == nil:
		p.Kind = PartKindFile
	case p.Data != nil && w.Text == nil && w.File == nil:
		p.Kind = PartKindData
	}
	return p
}

func wireParts(ws []partWire) []Part {
	if ws == nil {
		return nil
	}
	parts := make([]Part, len(ws))
	for i := range ws {
		parts[i] = ws[i].part()
	}
	return parts
}

type messageWire struct {
	Kind             *string    `json:"kind"`
	Role             Role       `json:"role"`
	Parts            []partWire `json:"parts"`
	MessageID        string     `json:"messageId"`
	TaskID           string     `json:"taskId"`
	ContextID        string     `json:"contextId"`
	ReferenceTaskIDs []string   `json:"referenceTaskIds"`
	Extensions       []string   `json:"extensions"`
	Metadata         Metadata   `json:"metadata"`
}

func checkKind(got *string, want string) error {
	if got != nil && *got != want {
		return fmt.Errorf("kind %q is not %q", *got, want)
	}
	return nil
}

func (w *messageWire) message() (Message, error) {
	if err := checkKind(w.Kind, "message"); err != nil {
		return Message{}, err
	}
	return Message{
		Role: w.Role, Parts: wireParts(w.Parts), MessageID: w.MessageID, TaskID: w.TaskID, ContextID: w.ContextID,
		ReferenceTaskIDs: w.ReferenceTaskIDs, Extensions: w.Extensions, Metadata: w.Metadata,
	}, nil
}

type artifactWire struct {
	ArtifactID  string     `json:"artifactId"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Parts       []partWire `json:"parts"`
	Metadata    Metadata   `json:"metadata"`
	Extensions  []string   `json:"extensions"`
}

func (w *artifactWire) artifact() Artifact {
	return Artifact{ArtifactID: w.ArtifactID, Name: w.Name, Description: w.Description,
		Parts: wireParts(w.Parts), Metadata: w.Metadata, Extensions: w.Extensions}
}

type statusWire struct {
	State     TaskState    `json:"state"`
	Message   *messageWire `json:"message"`
	Timestamp string       `json:"timestamp"`
}

func (w *statusWire) status() (TaskStatus, error) {
	s := TaskStatus{State: w.State, Timestamp: w.Timestamp}
	if w.Message != nil {
		m, err := w.Message.message()
		if err != nil {
			return s, fmt.Errorf("status.message: %w", err)
		}
		s.Message = &m
	}
	return s, nil
}

type taskWire struct {
	Kind      *string        `json:"kind"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    statusWire     `json:"status"`
	History   []messageWire  `json:"history"`
	Artifacts []artifactWire `json:"artifacts"`
	Metadata  Metadata       `json:"metadata"`
}

// decodeVia decodes b into the wire struct W and stores convert's result in
// dst.
func decodeVia[W, T any](b []byte, dst *T, convert func(*W) (T, error)) error {
	var w W
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := convert(&w)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// UnmarshalJSON reads a part.
func (p *Part) UnmarshalJSON(b []byte) error {
	return decodeVia(b, p, func(w *partWire) (Part, error) { return w.part(), nil })
}

// UnmarshalJSON reads a message; "kind", when present, must be "message".
func (m *Message) UnmarshalJSON(b []byte) error { return decodeVia(b, m, (*messageWire).message) }

// UnmarshalJSON reads a status.
func (s *TaskStatus) UnmarshalJSON(b []byte) error { return decodeVia(b, s, (*statusWire).status) }

// UnmarshalJSON reads an artifact.
func (a *Artifact) UnmarshalJSON(b []byte) error {
	return decodeVia(b, a, func(w *artifactWire) (Artifact, error) { return w.artifact(), nil })
}

// UnmarshalJSON reads a task; "kind", when present, must be "task".
func (t *Task) UnmarshalJSON(b []byte) error { return decodeVia(b, t, (*taskWire).task) }

// sendParamsWire is message/send's params with the message's wire form.
type sendParamsWire struct {
	Message       messageWire               `json:"message"`
	Configuration *MessageSendConfiguration `json:"configuration"`
	Metadata      Metadata                  `json:"metadata"`
}

// DecodeMessageSendParams reads message/send's params with decode (which
// reads JSON into a value as json.Unmarshal does, e.g. with the edge's
// error mapping) in one pass: decoding into a MessageSendParams would read
// its message through Message's UnmarshalJSON, which scans the message's
// bytes a second time.
func DecodeMessageSendParams(raw json.RawMessage, decode func(json.RawMessage, any) error) (MessageSendParams, error) {
	var w sendParamsWire
	if err := decode(raw, &w); err != nil {
		return MessageSendParams{}, err
	}
	m, err := w.Message.message()
	if err != nil {
		return MessageSendParams{}, InvalidParams("params.message", "%v", err)
	}
	return MessageSendParams{Message: m, Configuration: w.Configuration, Metadata: w.Metadata}, nil
}

func (w *taskWire) task() (Task, error) {
	if err := checkKind(w.Kind, "task"); err != nil {
		return Task{}, err
	}
	st, err := w.Status.status()
	if err != nil {
		return Task{}, err
	}
	task := Task{ID: w.ID, ContextID: w.ContextID, Status: st, Metadata: w.Metadata}
	if w.History != nil {
		task.History = make([]Message, len(w.History))
		for i := range w.History {
			if task.History[i], err = w.History[i].message(); err != nil {
				return Task{}, fmt.Errorf("history[%d]: %w", i, err)
			}
		}
	}
	if w.Artifacts != nil {
		task.Artifacts = make([]Artifact, len(w.Artifacts))
		for i := range w.Artifacts {
			task.Artifacts[i] = w.Artifacts[i].artifact()
		}
	}
	return task, nil
}

// DecodeEvent reads a 0.3 event: a Task, a Message, a
// TaskStatusUpdateEvent or a TaskArtifactUpdateEvent, told by its "kind".
// Without a kind, an object with a status is a task and one with a role a
// message. The results of message/send that the 0.3 REST binding wraps,
// {"task": ...} and {"message": ...}, are read too.
func DecodeEvent(raw json.RawMessage) (Event, error) {
	var probe struct {
		Kind    string          `json:"kind"`
		Role    json.RawMessage `json:"role"`
		Status  json.RawMessage `json:"status"`
		Task    json.RawMessage `json:"task"`
		Message json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return Event{}, err
	}
	var ev Event
	var v any
	switch {
	case probe.Kind == "task" || (probe.Kind == "" && probe.Status != nil):
		ev.Task = new(Task)
		v = ev.Task
	case probe.Kind == "message" || (probe.Kind == "" && probe.Role != nil):
		ev.Message = new(Message)
		v = ev.Message
	case probe.Kind == "status-update":
		ev.StatusUpdate = new(TaskStatusUpdateEvent)
		v = ev.StatusUpdate
	case probe.Kind == "artifact-update":
		ev.ArtifactUpdate = new(TaskArtifactUpdateEvent)
		v = ev.ArtifactUpdate
	case probe.Kind == "" && probe.Task != nil:
		return DecodeEvent(probe.Task)
	case probe.Kind == "" && probe.Message != nil:
		return DecodeEvent(probe.Message)
	case probe.Kind != "":
		return Event{}, fmt.Errorf("kind %q is not task, message, status-update or artifact-update", probe.Kind)
	default:
		return Event{}, fmt.Errorf("the object is neither a task nor a message nor an event")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return Event{}, err
	}
	return ev, nil
}
