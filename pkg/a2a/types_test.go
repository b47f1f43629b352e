package a2a

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPartJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		part Part
		wire string
	}{
		{"text", TextPart("hi"), `{"kind":"text","text":"hi"}`},
		{"empty text", TextPart(""), `{"kind":"text","text":""}`},
		{"text with metadata", Part{Kind: PartKindText, Text: "x", Metadata: Metadata{"k": "v"}}, `{"kind":"text","text":"x","metadata":{"k":"v"}}`},
		{"file uri", FileURIPart("https://x/y.png", "y.png", "image/png"), `{"kind":"file","file":{"uri":"https://x/y.png","name":"y.png","mimeType":"image/png"}}`},
		{"file bytes", FileBytesPart("aGk=", "", "text/plain"), `{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain"}}`},
		{"empty file bytes stay bytes", FileBytesPart("", "e", ""), `{"kind":"file","file":{"bytes":"","name":"e"}}`},
		{"data", Part{Kind: PartKindData, Data: json.RawMessage(`{"a":1}`)}, `{"kind":"data","data":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.part)
			require.NoError(t, err)
			assert.JSONEq(t, tt.wire, string(b))
			var back Part
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.part.Kind, back.Kind)
			assert.Equal(t, tt.part.Text, back.Text)
			if tt.part.Data != nil {
				assert.JSONEq(t, string(tt.part.Data), string(back.Data))
			}
		})
	}
}

func TestPartKindInferredWhenMissing(t *testing.T) {
	tests := []struct {
		wire string
		kind PartKind
	}{
		{`{"text":"hi"}`, PartKindText},
		{`{"file":{"uri":"https://a/b"}}`, PartKindFile},
		{`{"data":{"x":true}}`, PartKindData},
		{`{"text":"a","data":{}}`, ""}, // ambiguous: left for Validate
		{`{}`, ""},
	}
	for _, tt := range tests {
		var p Part
		require.NoError(t, json.Unmarshal([]byte(tt.wire), &p), tt.wire)
		assert.Equal(t, tt.kind, p.Kind, tt.wire)
	}
}

func TestPartMarshalUnknownKindFails(t *testing.T) {
	_, err := json.Marshal(Part{Kind: "video"})
	require.Error(t, err)
}

func TestMessageAndTaskCarryKind(t *testing.T) {
	m := Message{Role: RoleUser, MessageID: "m1", Parts: []Part{TextPart("hi")}}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]}`, string(b))

	task := Task{ID: "t1", ContextID: "c1", Status: TaskStatus{State: TaskStateWorking, Timestamp: "2026-01-02T03:04:05.000Z"}}
	b, err = json.Marshal(task)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working","timestamp":"2026-01-02T03:04:05.000Z"}}`, string(b))

	var back Task
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, task, back)
}

func TestWrongKindIsRefused(t *testing.T) {
	var m Message
	require.ErrorContains(t, json.Unmarshal([]byte(`{"kind":"task","role":"user"}`), &m), `kind "task"`)
	var task Task
	require.ErrorContains(t, json.Unmarshal([]byte(`{"kind":"message"}`), &task), `kind "message"`)
}

func TestMetadataKeepsUnknownFieldsAndExactNumbers(t *testing.T) {
	in := `{"role":"user","messageId":"m","parts":[{"kind":"text","text":"x"}],"metadata":{"shared":{"session":{"id":"s1"}},"big":12345678901234567890,"vendor.x":[1,{"y":null}]}}`
	var m Message
	require.NoError(t, json.Unmarshal([]byte(in), &m))
	assert.Equal(t, "s1", m.Metadata.Object("shared").Object("session").String("id"))
	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(out), `12345678901234567890`, "large integers must survive a round trip")
	assert.Contains(t, string(out), `"vendor.x":[1,{"y":null}]`)
}

func TestEventsCarryKind(t *testing.T) {
	b, err := json.Marshal(TaskStatusUpdateEvent{TaskID: "t", ContextID: "c", Status: TaskStatus{State: TaskStateCompleted}, Final: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`, string(b))
	b, err = json.Marshal(TaskArtifactUpdateEvent{TaskID: "t", ContextID: "c", Artifact: Artifact{ArtifactID: "a", Parts: []Part{TextPart("x")}}, Append: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"x"}]},"append":true}`, string(b))
}

func TestDataPartMustBeObject(t *testing.T) {
	_, err := DataPart([]int{1})
	require.Error(t, err)
	p, err := DataPart(map[string]int{"n": 1})
	require.NoError(t, err)
	assert.JSONEq(t, `{"n":1}`, string(p.Data))
}

func TestTaskStates(t *testing.T) {
	terminal := map[TaskState]bool{TaskStateCompleted: true, TaskStateCanceled: true, TaskStateFailed: true, TaskStateRejected: true}
	interrupted := map[TaskState]bool{TaskStateInputRequired: true, TaskStateAuthRequired: true}
	for _, s := range TaskStates {
		assert.Equal(t, terminal[s], s.Terminal(), s)
		assert.Equal(t, interrupted[s], s.Interrupted(), s)
		assert.Equal(t, terminal[s] || interrupted[s], s.Settled(), s)
		assert.True(t, s.Valid())
	}
	assert.False(t, TaskState("done").Valid())
}

func TestFormatTimeIsFixedWidthAndSortable(t *testing.T) {
	a, err := ParseTime("2026-01-02T03:04:05Z")
	require.NoError(t, err)
	b, err := ParseTime("2026-01-02T03:04:05.12+01:00")
	require.NoError(t, err)
	assert.Equal(t, "2026-01-02T03:04:05.000Z", FormatTime(a))
	assert.Equal(t, "2026-01-02T02:04:05.120Z", FormatTime(b))
	assert.Less(t, FormatTime(b), FormatTime(a))
}

// FormatTime writes its digits itself; time.Format with the layout is the
// reference, across the edges of each field, leap days, zones and years
// the layout's four digits cannot hold.
func TestFormatTimeMatchesTimeFormat(t *testing.T) {
	east := time.FixedZone("east", 14*3600)
	tests := []time.Time{
		time.Date(2026, 11, 28, 9, 18, 39, 879833745, time.UTC),
		time.Date(2020, 2, 29, 23, 59, 59, 999999999, time.UTC),
		time.Date(2031, 12, 31, 23, 59, 30, 1_000_000, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, east),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 15, 12, 0, 0, 0, time.UTC),
		time.Unix(0, 0),
		{},
	}
	for _, tm := range tests {
		assert.Equal(t, tm.UTC().Format(timeLayout), FormatTime(tm), tm.String())
	}
}

func FuzzFormatTime(f *testing.F) {
	f.Add(int64(1795857519), int64(879833745))
	f.Add(int64(-62135596800), int64(0))
	f.Add(int64(253402300800), int64(999999999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec)
		require.Equal(t, tm.UTC().Format(timeLayout), FormatTime(tm))
	})
}

func BenchmarkFormatTime(b *testing.B) {
	tm := time.Date(2026, 11, 28, 9, 18, 39, 879833745, time.UTC)
	for b.Loop() {
		_ = FormatTime(tm)
	}
}

func TestApproxSizeTracksEncodedSize(t *testing.T) {
	big := strings.Repeat("abc", 10000)
	msgs := []Message{
		{Role: RoleUser, MessageID: "m", Parts: []Part{TextPart("hi")}},
		{Role: RoleAgent, MessageID: "m", TaskID: "t", ContextID: "c", Parts: []Part{TextPart(big), FileBytesPart("aGk=", "n", "text/plain"), {Kind: PartKindData, Data: json.RawMessage(`{"a":[1,2,3]}`)}},
			Metadata: Metadata{"shared": map[string]any{"interrupt": map[string]any{"request_id": "r", "details": map[string]any{"q": big}}}}},
	}
	for _, m := range msgs {
		b, err := json.Marshal(m)
		require.NoError(t, err)
		est := m.ApproxSize()
		assert.InDelta(t, len(b), est, float64(len(b))*0.1+200, "estimate %d for %d encoded bytes", est, len(b))
	}
	a := Artifact{ArtifactID: "a", Name: "n", Parts: []Part{TextPart(big)}}
	b, err := json.Marshal(a)
	require.NoError(t, err)
	assert.InDelta(t, len(b), a.ApproxSize(), float64(len(b))*0.1+200)
}

// TestMetadataApproxSize: the estimate is close to the real encoding and
// not below it by more than escaping accounts for.
func TestMetadataApproxSize(t *testing.T) {
	for name, md := range map[string]Metadata{
		"session": {"shared": map[string]any{"session": map[string]any{"id": "0b3b1d8e-8a43-4a8f-9c43-3f3e0a4b7c21"}}},
		"mixed": {"n": json.Number("12.5"), "f": 3.25, "i": 42, "b": true, "z": nil, "s": "text",
			"l": []any{"a", 1.0, map[string]any{"k": []string{"x", "y"}}}, "raw": json.RawMessage(`{"a":1}`)},
		"nested metadata": {"inner": Metadata{"k": "v"}},
		"other type":      {"t": struct{ A int }{7}},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(md)
			require.NoError(t, err)
			got := md.ApproxSize()
			assert.InDelta(t, len(b), got, float64(len(md)+2), "encoded %s", b)
			assert.GreaterOrEqual(t, got, len(b)-2)
		})
	}
	assert.Zero(t, Metadata(nil).ApproxSize())
}

func TestLatestArtifacts(t *testing.T) {
	art := func(id, text string) Artifact { return Artifact{ArtifactID: id, Parts: []Part{TextPart(text)}} }
	got := LatestArtifacts([]Artifact{art("a", "1"), art("b", "2"), art("a", "3")})
	assert.Equal(t, []Artifact{art("a", "3"), art("b", "2")}, got, "a later version replaces, in the place of the first")
	assert.Empty(t, LatestArtifacts(nil))
}

// A text or data part's mediaType and filename (A2A 1.0's) stay out of the
// 0.3 wire form, which 0.3 clients see as before, and are kept by the
// model's JSON, which stores and queues hold.
func TestModelJSONKeepsWhatTheWireCannot(t *testing.T) {
	text := Part{Kind: PartKindText, Text: "hi", MediaType: "text/markdown", Filename: "a.md"}
	msg := Message{Role: RoleUser, MessageID: "m", Parts: []Part{text}}
	task := Task{ID: "t", ContextID: "c", Status: TaskStatus{State: TaskStateWorking, Message: &msg}, History: []Message{msg},
		Artifacts: []Artifact{{ArtifactID: "a", Parts: []Part{text}}}}

	wire, err := task.AppendJSON(nil)
	require.NoError(t, err)
	assert.NotContains(t, string(wire), "mediaType")
	assert.NotContains(t, string(wire), "filename")
	wirePart := `{"kind":"text","text":"hi"}`
	wireMsg := `{"role":"user","parts":[` + wirePart + `],"messageId":"m","kind":"message"}`
	assert.JSONEq(t, `{"id":"t","contextId":"c","status":{"state":"working","message":`+wireMsg+`},"history":[`+wireMsg+`],
		"artifacts":[{"artifactId":"a","parts":[`+wirePart+`]}],"kind":"task"}`, string(wire))

	stored, err := json.Marshal(task)
	require.NoError(t, err)
	var back Task
	require.NoError(t, json.Unmarshal(stored, &back))
	assert.Equal(t, task, back)

	p := MessageSendParams{Message: msg}
	sent, err := p.AppendJSON(nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"message":`+wireMsg+`}`, string(sent), "the client sends 0.3 as 0.3")
}

func TestDecodeEvent(t *testing.T) {
	task := `{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}`
	msg := `{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"hi"}]}`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"task", task, "task t"},
		{"message", msg, "message m"},
		{"task without kind", `{"id":"t","status":{"state":"working"}}`, "task t"},
		{"message without kind", `{"role":"agent","messageId":"m","parts":[]}`, "message m"},
		{"REST-wrapped task", `{"task":` + task + `}`, "task t"},
		{"REST-wrapped message", `{"message":` + msg + `}`, "message m"},
		{"status update", `{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"completed"},"final":true}`, "status t completed final"},
		{"artifact update", `{"kind":"artifact-update","taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[]},"append":true}`, "artifact t a"},
	} {
		ev, err := DecodeEvent(json.RawMessage(tc.body))
		require.NoError(t, err, tc.name)
		var got string
		switch {
		case ev.Task != nil:
			got = "task " + ev.Task.ID
		case ev.Message != nil:
			got = "message " + ev.Message.MessageID
		case ev.StatusUpdate != nil:
			got = "status " + ev.StatusUpdate.TaskID + " " + string(ev.StatusUpdate.Status.State)
			if ev.StatusUpdate.Final {
				got += " final"
			}
		case ev.ArtifactUpdate != nil:
			got = "artifact " + ev.ArtifactUpdate.TaskID + " " + ev.ArtifactUpdate.Artifact.ArtifactID
		}
		assert.Equal(t, tc.want, got, tc.name)
	}
	for body, want := range map[string]string{
		`{"kind":"nope"}`: `kind "nope" is not task, message`,
		`{"id":"t"}`:      "neither a task nor a message nor an event",
		`[1]`:             "cannot unmarshal array",
		`{"kind":"message","role":"x","parts":{}}`: "cannot unmarshal object",
	} {
		_, err := DecodeEvent(json.RawMessage(body))
		assert.ErrorContains(t, err, want, body)
	}
}
