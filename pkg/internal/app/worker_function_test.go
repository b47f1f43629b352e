package app_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/workerfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// The task and interrupt ids the worker's sample events carry.
const (
	workerStepTask     = "5f0c6a1e-8b2d-4e3f-9a4b-1c2d3e4f5a01"
	workerAwaitTask    = "5f0c6a1e-8b2d-4e3f-9a4b-1c2d3e4f5a02"
	workerAwaitRequest = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b01"
	workerFailTask     = "5f0c6a1e-8b2d-4e3f-9a4b-1c2d3e4f5a03"
)

// storeTask stores a submitted task whose user message says text.
func storeTask(t *testing.T, s store.TaskStore, taskID, text string) {
	t.Helper()
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + taskID, TaskID: taskID, ContextID: "ctx-worker", Parts: []a2a.Part{a2a.TextPart(text)}}
	require.NoError(t, s.CreateTask(context.Background(), store.NewTask{Owner: eventsOwner, Task: a2a.Task{
		ID: taskID, ContextID: "ctx-worker", History: []a2a.Message{m},
		Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: a2a.FormatTime(time.Now())},
	}}))
}

// askPending records on a task the question interrupt a step asked for, as
// the step does: the interrupt's agent message carries the request id in
// metadata.shared.interrupt (the wire format clients read).
func askPending(t *testing.T, s store.TaskStore, taskID, requestID string) {
	t.Helper()
	msg := &a2a.Message{Role: a2a.RoleAgent, MessageID: "q-" + taskID, TaskID: taskID, ContextID: "ctx-worker",
		Parts: []a2a.Part{a2a.TextPart("What is your name?")},
		Metadata: a2a.Metadata{"shared": map[string]any{"interrupt": map[string]any{
			"request_id": requestID, "type": "question", "phase": "asked", "details": map[string]any{},
		}}}}
	_, err := s.UpdateTask(context.Background(), store.Update{TaskID: taskID, IfVersion: 1, Pending: &store.PendingInterrupt{
		RequestID: requestID, Type: "question", State: a2a.TaskStateInputRequired, Message: msg, Details: map[string]any{},
	}})
	require.NoError(t, err)
}

func readEvent(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "events", name))
	require.NoError(t, err)
	return b
}

// Every sample event of the worker (the payloads the state machine sends),
// fed through the Lambda handler as the runtime calls it (JSON in, JSON
// out), against DynamoDB (moto): a step runs the agent, await shows the
// interrupt and binds the execution's token, expire fails the unanswered
// task, fail records why a step failed.
func TestWorkerEvents(t *testing.T) {
	env := lambdaEnv(t)
	env["A2A_AGENT"] = "demo"
	env["A2A_DEMO_WORK_MS"] = "0"
	ts := storeOf(t, env)
	h, err := workerfn.New(context.Background(), getenv(env), builtin.Registry(), io.Discard)
	require.NoError(t, err)
	invoke := lambda.NewHandler(h.Handle)

	storeTask(t, ts, workerStepTask, "hello")
	storeTask(t, ts, workerAwaitTask, "ask What is your name?")
	askPending(t, ts, workerAwaitTask, workerAwaitRequest)
	storeTask(t, ts, workerFailTask, "long 100")

	task := func(t *testing.T, id string) *store.TaskRecord {
		rec, err := ts.GetTask(context.Background(), id, store.AllHistory)
		require.NoError(t, err)
		return rec
	}
	for _, tc := range []struct {
		event string
		want  worker.Result
		check func(t *testing.T)
	}{
		{"worker-step.json", worker.Result{Next: "done", State: "completed",
			Carry: json.RawMessage(`{"taskId":"` + workerStepTask + `","interruptTtlSeconds":600,"steps":1,"maxSteps":500}`)}, func(t *testing.T) {
			rec := task(t, workerStepTask)
			require.Len(t, rec.Task.Artifacts, 1)
			assert.Equal(t, "echo: hello", a2a.PartsText(rec.Task.Artifacts[0].Parts))
		}},
		{"worker-await.json", worker.Result{Next: "await", RequestID: workerAwaitRequest, Trigger: "reply", State: "input-required"}, func(t *testing.T) {
			rec := task(t, workerAwaitTask)
			assert.Equal(t, a2a.TaskStateInputRequired, rec.Task.Status.State, "the interrupt is shown")
			b, err := ts.GetInterrupt(context.Background(), workerAwaitRequest)
			require.NoError(t, err)
			assert.Equal(t, "AQCEAAAAKgAAAAMAAAAAAAAAAQp7InNhbXBsZSI6InRhc2stdG9rZW4tZm9yLXNhbS1sb2NhbCJ9", b.TaskToken, "the execution's token is bound to the interrupt")
		}},
		{"worker-expire.json", worker.Result{Next: "done", State: "failed"}, func(t *testing.T) {
			rec := task(t, workerAwaitTask)
			assert.Equal(t, a2a.TaskStateFailed, rec.Task.Status.State)
			assert.Contains(t, rec.Task.Status.Message.Text(), "The input request expired")
		}},
		{"worker-fail.json", worker.Result{Next: "done", State: "failed"}, func(t *testing.T) {
			rec := task(t, workerFailTask)
			assert.Equal(t, "The task failed: a step ran out of time.", rec.Task.Status.Message.Text())
		}},
	} {
		t.Run(tc.event, func(t *testing.T) {
			out, err := invoke.Invoke(context.Background(), readEvent(t, tc.event))
			require.NoError(t, err)
			var res worker.Result
			require.NoError(t, json.Unmarshal(out, &res))
			assert.Equal(t, tc.want, res)
			tc.check(t)
		})
	}

	// What the state machine would never send is an error, which the
	// runtime reports to Step Functions (the state's Catch then fails the
	// task).
	_, err = invoke.Invoke(context.Background(), []byte(`{"action":"dance","taskId":"`+workerStepTask+`"}`))
	assert.ErrorContains(t, err, `unknown action "dance"`)
	_, err = invoke.Invoke(context.Background(), []byte(`"step"`))
	assert.Error(t, err)
}
