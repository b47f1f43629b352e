package a2av1_test

import (
	"encoding/json"
	"testing"
	"time"

	v2 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

func intp(n int) *int    { return &n }
func boolp(v bool) *bool { return &v }

// fixtureTask holds every kind of part, in history, status and artifacts.
func fixtureTask() a2a.Task {
	agentMsg := a2a.Message{Role: a2a.RoleAgent, MessageID: "m2", TaskID: "t1", ContextID: "c1",
		Parts:    []a2a.Part{a2a.TextPart("What is your name?")},
		Metadata: a2a.Metadata{"shared": map[string]any{"interrupt": map[string]any{"phase": "asked"}}}}
	return a2a.Task{
		ID: "t1", ContextID: "c1",
		Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: &agentMsg, Timestamp: "2026-03-12T10:00:00.000Z"},
		History: []a2a.Message{{Role: a2a.RoleUser, MessageID: "m1", TaskID: "t1", ContextID: "c1",
			Parts: []a2a.Part{
				a2a.TextPart("hello"),
				a2a.FileBytesPart("aGk=", "hi.txt", "text/plain"),
				a2a.FileURIPart("https://example.com/a.png", "a.png", "image/png"),
				{Kind: a2a.PartKindData, Data: json.RawMessage(`{"n":1}`), Metadata: a2a.Metadata{"k": "v"}},
			},
			ReferenceTaskIDs: []string{"t0"}, Extensions: []string{"https://ext.example/x"}}, agentMsg},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Name: "echo", Description: "the echo", Parts: []a2a.Part{a2a.TextPart("echo: hello")}, Metadata: a2a.Metadata{"x": true}}},
		Metadata:  a2a.Metadata{"shared": map[string]any{"session": map[string]any{"id": "s1"}}},
	}
}

// TestTaskReadByA2AGo checks the encoder against the official 1.0 types:
// a2a-go v2.3.1 reads every field back.
func TestTaskReadByA2AGo(t *testing.T) {
	task := fixtureTask()
	b, err := a2av1.AppendTask(nil, &task)
	require.NoError(t, err)
	var got v2.Task
	require.NoError(t, json.Unmarshal(b, &got), "%s", b)

	assert.Equal(t, v2.TaskID("t1"), got.ID)
	assert.Equal(t, "c1", got.ContextID)
	assert.Equal(t, v2.TaskStateInputRequired, got.Status.State)
	assert.Equal(t, time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC), got.Status.Timestamp.UTC())
	assert.Equal(t, v2.MessageRoleAgent, got.Status.Message.Role)
	assert.Equal(t, "What is your name?", got.Status.Message.Parts[0].Text())
	require.Len(t, got.History, 2)
	user := got.History[0]
	assert.Equal(t, v2.MessageRoleUser, user.Role)
	assert.Equal(t, []v2.TaskID{"t0"}, user.ReferenceTasks)
	assert.Equal(t, []string{"https://ext.example/x"}, user.Extensions)
	require.Len(t, user.Parts, 4)
	assert.Equal(t, "hello", user.Parts[0].Text())
	assert.Equal(t, []byte("hi"), user.Parts[1].Raw())
	assert.Equal(t, "hi.txt", user.Parts[1].Filename)
	assert.Equal(t, "text/plain", user.Parts[1].MediaType)
	assert.Equal(t, v2.URL("https://example.com/a.png"), user.Parts[2].URL())
	assert.Equal(t, "image/png", user.Parts[2].MediaType)
	assert.Equal(t, map[string]any{"n": float64(1)}, user.Parts[3].Data())
	assert.Equal(t, map[string]any{"k": "v"}, user.Parts[3].Metadata)
	require.Len(t, got.Artifacts, 1)
	assert.Equal(t, "echo", got.Artifacts[0].Name)
	assert.Equal(t, "echo: hello", got.Artifacts[0].Parts[0].Text())
	assert.Equal(t, map[string]any{"session": map[string]any{"id": "s1"}}, got.Metadata["shared"])
}

func TestTaskStatesAndRoles(t *testing.T) {
	for _, st := range a2a.TaskStates {
		name := a2av1.State(st)
		back, ok := a2av1.ParseState(name)
		if st == a2a.TaskStateUnknown {
			assert.Equal(t, "TASK_STATE_UNSPECIFIED", name)
			assert.True(t, ok)
			assert.Equal(t, a2a.TaskState(""), back)
			continue
		}
		require.True(t, ok, name)
		assert.Equal(t, st, back)
		var v v2.TaskState
		require.NoError(t, json.Unmarshal([]byte(`"`+name+`"`), &v))
		assert.False(t, v.Terminal() != st.Terminal(), "%s terminal", name)
	}
	_, ok := a2av1.ParseState("TASK_STATE_SLEEPING")
	assert.False(t, ok)
	_, ok = a2av1.ParseState("TASK_STATE_UNKNOWN")
	assert.False(t, ok)
	st, ok := a2av1.ParseState("completed")
	assert.True(t, ok, "0.3 names are read too")
	assert.Equal(t, a2a.TaskStateCompleted, st)
	assert.Equal(t, string(v2.MessageRoleUser), a2av1.Role(a2a.RoleUser))
	assert.Equal(t, string(v2.MessageRoleAgent), a2av1.Role(a2a.RoleAgent))
}

// TestDecodeA2AGoRequests decodes requests as the official 1.0 client
// writes them.
func TestDecodeA2AGoRequests(t *testing.T) {
	req := v2.SendMessageRequest{
		Message: &v2.Message{ID: "m1", ContextID: "c1", Role: v2.MessageRoleUser, Parts: v2.ContentParts{
			v2.NewTextPart("hello"),
			{Content: v2.Raw("hi"), Filename: "hi.txt", MediaType: "text/plain"},
			v2.NewFileURLPart("https://example.com/a.png", "image/png"),
			v2.NewDataPart(map[string]any{"n": 1}),
		}, Metadata: map[string]any{"shared": map[string]any{"model": map[string]any{"providerID": "p", "modelID": "m"}}}},
		Config: &v2.SendMessageConfig{AcceptedOutputModes: []string{"text/plain"}, HistoryLength: intp(2), ReturnImmediately: true,
			PushConfig: &v2.PushConfig{URL: "https://hook.example/a", Token: "tok", Auth: &v2.PushAuthInfo{Scheme: "Bearer", Credentials: "secret"}}},
		Metadata: map[string]any{"trace": "x"},
	}
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	p, err := a2av1.DecodeSendMessageRequest(raw)
	require.NoError(t, err, "%s", raw)
	require.NoError(t, p.Validate())
	want := a2a.MessageSendParams{
		Message: a2a.Message{Role: a2a.RoleUser, MessageID: "m1", ContextID: "c1", Parts: []a2a.Part{
			a2a.TextPart("hello"),
			a2a.FileBytesPart("aGk=", "hi.txt", "text/plain"),
			a2a.FileURIPart("https://example.com/a.png", "", "image/png"),
			{Kind: a2a.PartKindData, Data: json.RawMessage(`{"n":1}`)},
		}, Metadata: a2a.Metadata{"shared": map[string]any{"model": map[string]any{"providerID": "p", "modelID": "m"}}}},
		Configuration: &a2a.MessageSendConfiguration{AcceptedOutputModes: []string{"text/plain"}, HistoryLength: intp(2), Blocking: boolp(false),
			PushNotificationConfig: &a2a.PushNotificationConfig{URL: "https://hook.example/a", Token: "tok", Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: "secret"}}},
		Metadata: a2a.Metadata{"trace": "x"},
	}
	assert.Equal(t, want, p)

	getRaw, _ := json.Marshal(v2.GetTaskRequest{ID: "t1", HistoryLength: intp(0)})
	g, err := a2av1.DecodeGetTaskRequest(getRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskQueryParams{ID: "t1", HistoryLength: intp(0)}, g)

	cancelRaw, _ := json.Marshal(v2.CancelTaskRequest{ID: "t1"})
	c, err := a2av1.DecodeCancelTaskRequest(cancelRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskIDParams{ID: "t1"}, c)

	after := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	listRaw, _ := json.Marshal(v2.ListTasksRequest{ContextID: "c1", Status: v2.TaskStateWorking, PageSize: 10, PageToken: "p", HistoryLength: intp(1), StatusTimestampAfter: &after, IncludeArtifacts: true})
	l, err := a2av1.DecodeListTasksRequest(listRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.ListTasksParams{ContextID: "c1", Status: a2a.TaskStateWorking, PageSize: intp(10), PageToken: "p", HistoryLength: intp(1),
		StatusTimestampAfter: "2026-03-01T00:00:00Z", IncludeArtifacts: true}, l)
	require.NoError(t, l.Validate())

	pcRaw, _ := json.Marshal(v2.PushConfig{TaskID: "t1", ID: "cfg", URL: "https://hook.example/a", Auth: &v2.PushAuthInfo{Scheme: "Bearer"}})
	pc, err := a2av1.DecodePushConfig(pcRaw, "")
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskPushNotificationConfig{TaskID: "t1", PushNotificationConfig: a2a.PushNotificationConfig{ID: "cfg", URL: "https://hook.example/a",
		Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer"}}}}, pc)

	refRaw, _ := json.Marshal(v2.GetTaskPushConfigRequest{TaskID: "t1", ID: "cfg"})
	gp, err := a2av1.DecodeGetPushConfigRequest(refRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.GetTaskPushNotificationConfigParams{ID: "t1", PushNotificationConfigID: "cfg"}, gp)
	dp, err := a2av1.DecodeDeletePushConfigRequest(refRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.DeleteTaskPushNotificationConfigParams{ID: "t1", PushNotificationConfigID: "cfg"}, dp)
	lpRaw, _ := json.Marshal(v2.ListTaskPushConfigRequest{TaskID: "t1", PageSize: 5})
	lp, err := a2av1.DecodeListPushConfigsRequest(lpRaw)
	require.NoError(t, err)
	assert.Equal(t, a2a.ListTaskPushNotificationConfigParams{ID: "t1"}, lp)
}

func TestPushConfigEncoding(t *testing.T) {
	c := a2a.TaskPushNotificationConfig{TaskID: "t1", PushNotificationConfig: a2a.PushNotificationConfig{ID: "cfg", URL: "https://hook.example/a", Token: "tok",
		Authentication: &a2a.PushAuthenticationInfo{Schemes: []string{"Bearer", "Basic"}}}}
	b := a2av1.AppendPushConfig(nil, &c)
	assert.JSONEq(t, `{"id":"cfg","taskId":"t1","url":"https://hook.example/a","token":"tok","authentication":{"scheme":"Bearer"}}`, string(b))
	var got v2.PushConfig
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "Bearer", got.Auth.Scheme)

	list := a2av1.AppendListPushConfigsResponse(nil, []a2a.TaskPushNotificationConfig{c, c})
	var resp v2.ListTaskPushConfigResponse
	require.NoError(t, json.Unmarshal(list, &resp))
	assert.Len(t, resp.Configs, 2)
	assert.JSONEq(t, `{"configs":[],"nextPageToken":""}`, string(a2av1.AppendListPushConfigsResponse(nil, nil)))
}

func TestResultsReadByA2AGo(t *testing.T) {
	task := fixtureTask()
	b, err := a2av1.AppendSendResult(nil, &task)
	require.NoError(t, err)
	var sr v2.StreamResponse
	require.NoError(t, json.Unmarshal(b, &sr))
	got, ok := sr.Event.(*v2.Task)
	require.True(t, ok, "%T", sr.Event)
	assert.Equal(t, v2.TaskID("t1"), got.ID)

	b, err = a2av1.AppendListTasksResponse(nil, &a2a.ListTasksResult{Tasks: []a2a.Task{task}, NextPageToken: "n", PageSize: 1, TotalSize: 3})
	require.NoError(t, err)
	var lr v2.ListTasksResponse
	require.NoError(t, json.Unmarshal(b, &lr))
	assert.Equal(t, v2.ListTasksResponse{Tasks: lr.Tasks, NextPageToken: "n", PageSize: 1, TotalSize: 3}, lr)
	require.Len(t, lr.Tasks, 1)
}

func TestPushNotificationBodies(t *testing.T) {
	task := fixtureTask()
	b, err := a2av1.TaskNotification(&task)
	require.NoError(t, err)
	var sr v2.StreamResponse
	require.NoError(t, json.Unmarshal(b, &sr), "%s", b)
	got, ok := sr.Event.(*v2.Task)
	require.True(t, ok, "%T", sr.Event)
	assert.Equal(t, v2.TaskStateInputRequired, got.Status.State)
	assert.Len(t, got.History, 2)

	b, err = a2av1.StatusUpdateNotification(&task)
	require.NoError(t, err)
	assert.JSONEq(t, `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","timestamp":"2026-03-12T10:00:00.000Z",
		"message":{"messageId":"m2","contextId":"c1","taskId":"t1","role":"ROLE_AGENT","parts":[{"text":"What is your name?"}],"metadata":{"shared":{"interrupt":{"phase":"asked"}}}}}}}`, string(b))
	sr = v2.StreamResponse{}
	require.NoError(t, json.Unmarshal(b, &sr))
	su, ok := sr.Event.(*v2.TaskStatusUpdateEvent)
	require.True(t, ok, "%T", sr.Event)
	assert.Equal(t, v2.TaskID("t1"), su.TaskID)
	assert.Equal(t, v2.TaskStateInputRequired, su.Status.State)
	assert.Equal(t, "application/a2a+json", a2av1.ContentType)
}

func TestErrors(t *testing.T) {
	e := a2a.TaskNotFound("t1")
	o := a2av1.RPCError(e)
	b, err := json.Marshal(o)
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":-32001,"message":"task t1 not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}`, string(b))
	var decoded struct {
		Data []*errordetails.Typed `json:"data"`
	}
	require.NoError(t, json.Unmarshal(b, &decoded), "the official client reads error.data as typed details")
	assert.Equal(t, errordetails.ErrorInfoType, decoded.Data[0].TypeURL)

	withData := a2a.Errorf(a2a.CodeMethodNotFound, "Unsupported method: x").WithData(map[string]any{"method": "x", "supported_methods": []string{"a", "b"}, "n": 2})
	info := a2av1.Info(withData)
	assert.Equal(t, map[string]string{"method": "x", "supported_methods": `["a","b"]`, "n": "2"}, info.Metadata)
	assert.Equal(t, "METHOD_NOT_FOUND", info.Reason)

	status, body := a2av1.StatusBody(a2a.Errorf(a2a.CodeTaskNotCancelable, "task t1 is completed and cannot be canceled"))
	assert.Equal(t, 400, status)
	b, err = json.Marshal(body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"task t1 is completed and cannot be canceled",
		"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}`, string(b))
}

// TestEventsReadByA2AGo checks the 1.0 events the host writes (push bodies,
// a StreamResponse) and a text part's mediaType and filename, which the
// model now keeps, against the official 1.0 types.
func TestEventsReadByA2AGo(t *testing.T) {
	part := a2a.Part{Kind: a2a.PartKindText, Text: "# hi", MediaType: "text/markdown", Filename: "hi.md"}
	ev := a2a.Event{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1",
		Artifact: a2a.Artifact{ArtifactID: "a1", Parts: []a2a.Part{part}}, Append: true, LastChunk: true}}
	b, err := a2av1.AppendStreamResponse(nil, &ev)
	require.NoError(t, err)
	var sr v2.StreamResponse
	require.NoError(t, json.Unmarshal(b, &sr), "%s", b)
	au, ok := sr.Event.(*v2.TaskArtifactUpdateEvent)
	require.True(t, ok, "%T", sr.Event)
	assert.Equal(t, v2.TaskID("t1"), au.TaskID)
	assert.True(t, au.Append)
	assert.True(t, au.LastChunk)
	require.Len(t, au.Artifact.Parts, 1)
	assert.Equal(t, "# hi", au.Artifact.Parts[0].Text())
	assert.Equal(t, "text/markdown", au.Artifact.Parts[0].MediaType)
	assert.Equal(t, "hi.md", au.Artifact.Parts[0].Filename)

	back, err := a2av1.DecodeStreamResponse(b)
	require.NoError(t, err)
	assert.Equal(t, ev, back)
}
