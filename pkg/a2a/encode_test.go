package a2a

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/jsontest"
)

// reference encodes a task the slow, obviously right way: encoding/json on
// plain maps that mirror the wire format.
func reference(t *Task) any {
	parts := func(ps []Part) []any {
		out := []any{}
		for _, p := range ps {
			m := map[string]any{"kind": string(p.Kind)}
			switch p.Kind {
			case PartKindText:
				m["text"] = p.Text
			case PartKindFile:
				f := map[string]any{}
				if p.File.URI != "" {
					f["uri"] = p.File.URI
				} else {
					f["bytes"] = p.File.Bytes
				}
				omitEmpty(f, "name", p.File.Name)
				omitEmpty(f, "mimeType", p.File.MimeType)
				m["file"] = f
			case PartKindData:
				m["data"] = p.Data
			}
			omitEmpty(m, "metadata", p.Metadata)
			out = append(out, m)
		}
		return out
	}
	msg := func(m *Message) map[string]any {
		out := map[string]any{"kind": "message", "role": string(m.Role), "messageId": m.MessageID, "parts": parts(m.Parts)}
		omitEmpty(out, "taskId", m.TaskID)
		omitEmpty(out, "contextId", m.ContextID)
		omitEmpty(out, "referenceTaskIds", m.ReferenceTaskIDs)
		omitEmpty(out, "extensions", m.Extensions)
		omitEmpty(out, "metadata", m.Metadata)
		return out
	}
	status := map[string]any{"state": string(t.Status.State)}
	if t.Status.Message != nil {
		status["message"] = msg(t.Status.Message)
	}
	omitEmpty(status, "timestamp", t.Status.Timestamp)
	out := map[string]any{"kind": "task", "id": t.ID, "contextId": t.ContextID, "status": status}
	if len(t.History) > 0 {
		h := []any{}
		for i := range t.History {
			h = append(h, msg(&t.History[i]))
		}
		out["history"] = h
	}
	if len(t.Artifacts) > 0 {
		as := []any{}
		for _, a := range t.Artifacts {
			m := map[string]any{"artifactId": a.ArtifactID, "parts": parts(a.Parts)}
			omitEmpty(m, "name", a.Name)
			omitEmpty(m, "description", a.Description)
			omitEmpty(m, "extensions", a.Extensions)
			omitEmpty(m, "metadata", a.Metadata)
			as = append(as, m)
		}
		out["artifacts"] = as
	}
	omitEmpty(out, "metadata", t.Metadata)
	return out
}

// omitEmpty sets m[key] to v unless v is "" or an empty list or metadata,
// as the wire's omitempty members are left out.
func omitEmpty(m map[string]any, key string, v any) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return
		}
	case []string:
		if len(x) == 0 {
			return
		}
	case Metadata:
		if len(x) == 0 {
			return
		}
		v = map[string]any(x)
	}
	m[key] = v
}

func TestTaskEncodingMatchesReference(t *testing.T) {
	for _, s := range jsontest.TrickyStrings() {
		agentMsg := Message{Role: RoleAgent, MessageID: s, TaskID: "t", ContextID: s,
			Parts:            []Part{TextPart(s), FileURIPart("https://x/"+s, s, "text/plain"), FileBytesPart("", "", ""), {Kind: PartKindData, Data: json.RawMessage(`{"k": [1, "x"]}`), Metadata: Metadata{s: s}}},
			ReferenceTaskIDs: []string{s, "r2"}, Extensions: []string{"https://ext/" + s},
			Metadata: Metadata{"shared": map[string]any{"interrupt": map[string]any{"phase": "asked", "n": json.Number("12345678901234567890")}}}}
		task := Task{ID: "t", ContextID: "c", Status: TaskStatus{State: TaskStateInputRequired, Message: &agentMsg, Timestamp: "2026-11-22T10:00:00.000Z"},
			History:   []Message{{Role: RoleUser, MessageID: "u", Parts: []Part{TextPart(s)}}, agentMsg},
			Artifacts: []Artifact{{ArtifactID: s, Name: s, Description: s, Parts: []Part{TextPart(s)}, Metadata: Metadata{"a": true}, Extensions: []string{"e"}}},
			Metadata:  Metadata{"m": s},
		}
		got, err := json.Marshal(task)
		require.NoError(t, err)
		require.True(t, json.Valid(got), "%s", got)
		want, err := json.Marshal(reference(&task))
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(got), "string %q", s)
	}
}

func TestEncodingErrors(t *testing.T) {
	_, err := json.Marshal(Task{Status: TaskStatus{State: TaskStateWorking}, History: []Message{{Parts: []Part{{Kind: "nope"}}}}})
	assert.ErrorContains(t, err, `part kind "nope"`)
	_, err = json.Marshal(Message{Parts: []Part{{Kind: PartKindData, Data: json.RawMessage(`{bad`)}}})
	assert.ErrorContains(t, err, "data is not valid JSON")
	_, err = json.Marshal(Message{Metadata: Metadata{"f": func() {}}})
	assert.ErrorContains(t, err, "metadata")
}

func TestListResultEncoding(t *testing.T) {
	b, err := json.Marshal(ListTasksResult{Tasks: []Task{}, PageSize: 50})
	require.NoError(t, err)
	assert.JSONEq(t, `{"tasks":[],"nextPageToken":"","pageSize":50,"totalSize":0}`, string(b))
}

func BenchmarkEncodeTask(b *testing.B) {
	m := Message{Role: RoleUser, MessageID: "7b1d8a4e-0d6a-4b83-9f5c-2f5ad9b0c111", TaskID: "t", ContextID: "c", Parts: []Part{TextPart("hello world")}}
	task := Task{ID: "t", ContextID: "c", Status: TaskStatus{State: TaskStateCompleted, Timestamp: "2026-11-22T10:00:00.000Z"},
		History: []Message{m, m}, Artifacts: []Artifact{{ArtifactID: "a", Name: "echo", Parts: []Part{TextPart("echo: hello world")}}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(task); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTask(b *testing.B) {
	m := Message{Role: RoleUser, MessageID: "7b1d8a4e-0d6a-4b83-9f5c-2f5ad9b0c111", TaskID: "t", ContextID: "c", Parts: []Part{TextPart("hello world")}}
	raw, err := json.Marshal(Task{ID: "t", ContextID: "c", Status: TaskStatus{State: TaskStateCompleted, Timestamp: "2026-11-22T10:00:00.000Z"},
		History: []Message{m, m}, Artifacts: []Artifact{{ArtifactID: "a", Name: "echo", Parts: []Part{TextPart("echo: hello world")}}}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var t Task
		if err := json.Unmarshal(raw, &t); err != nil {
			b.Fatal(err)
		}
	}
}
