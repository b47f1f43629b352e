package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/inline"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// The bearer token and the task ids the sample events in events/ carry.
const (
	eventsToken          = "events-sample-token"
	eventTaskGet         = "0b8e5d4a-6f1c-4e2b-9a37-5c1d2e3f4a50"
	eventTaskCancelRPC   = "6a1f0c9e-2b3d-4c5e-8f70-1a2b3c4d5e61"
	eventTaskCancelREST  = "7c2e1d0f-3a4b-4d6e-9081-2b3c4d5e6f72"
	eventsOwner          = config.DefaultTokenName
	eventSendMessageText = "hello from API Gateway"
)

// lambdaFn is a Lambda function's handler, as main hands it to lambda.Start.
type lambdaFn = boot.HTTPFunc

// lambdaEnv is the environment of the functions on a new table, created
// here as the stack creates it (the functions refuse to create one).
func lambdaEnv(t *testing.T) map[string]string {
	env := awstest.SDKEnv(t)
	env["A2A_TASK_STORE_BACKEND"] = "dynamodb"
	env["A2A_TASK_STORE_TABLE"] = awstest.UniqueName(t, "lambda")
	env["A2A_BEARER_TOKEN"] = eventsToken
	env["A2A_AGENT"] = "echo"
	env["A2A_LOG_LEVEL"] = "error"
	storeOf(t, env)
	return env
}

func getenv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// startFunction starts a function the way its main does: a cold start.
func startFunction(t *testing.T, env map[string]string, routes httpapi.Routes) lambdaFn {
	t.Helper()
	h, err := httpfn.New(context.Background(), getenv(env), builtin.Registry(), routes, io.Discard)
	require.NoError(t, err)
	return boot.LambdaHTTP(h, nil)
}

// storeOf opens the functions' table directly, to arrange and inspect.
func storeOf(t *testing.T, env map[string]string) *dynamo.Store {
	t.Helper()
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	cfg.TaskStore.CreateTable = true
	s, err := app.OpenDynamoStore(context.Background(), cfg, app.StoreOptions{})
	require.NoError(t, err)
	return s
}

// newTable creates a task table of the test's own on the stand-in and
// returns a client of it and its name.
func newTable(t *testing.T, prefix string) (*dynamodb.Client, string) {
	t.Helper()
	db := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, prefix)
	require.NoError(t, dynamo.CreateTable(context.Background(), db, table))
	return db, table
}

func loadEvent(t *testing.T, name string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "events", name))
	require.NoError(t, err)
	var ev events.APIGatewayV2HTTPRequest
	require.NoError(t, json.Unmarshal(b, &ev))
	return ev
}

// createTask stores a task of the events' caller.
// deferredJob is the job the inline runner recorded on a task (see
// inline.Record), with its message read from the task's history, or nil.
func deferredJob(t *testing.T, s *dynamo.Store, taskID string) *engine.Job {
	t.Helper()
	raw, _, err := s.DeferredJob(context.Background(), taskID)
	require.NoError(t, err)
	if raw == nil {
		return nil
	}
	var d inline.Recorded
	require.NoError(t, json.Unmarshal(raw, &d))
	job := &engine.Job{TaskID: taskID, Reply: d.Reply, Blocking: d.Blocking, Resume: d.Resume}
	rec, err := s.GetTask(context.Background(), taskID, store.AllHistory)
	require.NoError(t, err)
	for i, m := range rec.Task.History {
		if d.MessageID != "" && m.MessageID == d.MessageID {
			job.Message = &rec.Task.History[i]
		}
	}
	return job
}

func createTask(t testing.TB, s store.TaskStore, taskID string, state a2a.TaskState) {
	t.Helper()
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "m-" + taskID, TaskID: taskID, ContextID: "ctx-events", Parts: []a2a.Part{a2a.TextPart("hi")}}
	ts := a2a.FormatTime(time.Now())
	require.NoError(t, s.CreateTask(context.Background(), store.NewTask{Owner: eventsOwner, Task: a2a.Task{
		ID: taskID, ContextID: "ctx-events", History: []a2a.Message{m}, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: ts},
	}}))
	if state != a2a.TaskStateSubmitted {
		_, err := s.UpdateTask(context.Background(), store.Update{TaskID: taskID, IfVersion: 1, Status: &a2a.TaskStatus{State: state, Timestamp: ts,
			Message: &a2a.Message{Role: a2a.RoleAgent, MessageID: "s-" + taskID, TaskID: taskID, ContextID: "ctx-events", Parts: []a2a.Part{a2a.TextPart("done")}}}})
		require.NoError(t, err)
	}
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func body(t *testing.T, resp events.APIGatewayV2HTTPResponse) []byte {
	t.Helper()
	if resp.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(resp.Body)
		require.NoError(t, err)
		return b
	}
	return []byte(resp.Body)
}

func rpcResult(t *testing.T, resp events.APIGatewayV2HTTPResponse, id string, v any) {
	t.Helper()
	require.Equal(t, 200, resp.StatusCode, "body: %s", resp.Body)
	var r rpcResponse
	require.NoError(t, json.Unmarshal(body(t, resp), &r))
	assert.Equal(t, "2.0", r.JSONRPC)
	assert.Equal(t, id, r.ID)
	require.Nil(t, r.Error, "JSON-RPC error")
	require.NoError(t, json.Unmarshal(r.Result, v))
}

func restResult(t *testing.T, resp events.APIGatewayV2HTTPResponse, v any) {
	t.Helper()
	require.Equal(t, 200, resp.StatusCode, "body: %s", resp.Body)
	assert.Equal(t, "application/json", resp.Headers["Content-Type"])
	require.NoError(t, json.Unmarshal(body(t, resp), v))
}

// Every sample event, fed to the function that serves its route, against
// DynamoDB (moto), gets the answer the protocol asks for.
func TestEvents(t *testing.T) {
	env := lambdaEnv(t)
	send := startFunction(t, env, httpapi.RoutesRPC)
	tasks := startFunction(t, env, httpapi.RoutesTasks)
	store := storeOf(t, env)
	createTask(t, store, eventTaskGet, a2a.TaskStateCompleted)
	createTask(t, store, eventTaskCancelRPC, a2a.TaskStateSubmitted)
	createTask(t, store, eventTaskCancelREST, a2a.TaskStateWorking)

	for _, tc := range []struct {
		event string
		fn    lambdaFn
		check func(t *testing.T, resp events.APIGatewayV2HTTPResponse)
	}{
		{"send/jsonrpc-message-send.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			rpcResult(t, resp, "req-1", &task)
			assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "a blocking send runs the agent in the request")
			require.Len(t, task.Artifacts, 1)
			assert.Equal(t, eventSendMessageText, a2a.PartsText(task.Artifacts[0].Parts))
			assert.Equal(t, eventSendMessageText, task.History[0].Text())
		}},
		{"send/jsonrpc-tasks-get.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			rpcResult(t, resp, "req-2", &task)
			assert.Equal(t, eventTaskGet, task.ID)
			assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
			require.Len(t, task.History, 1, "historyLength 1")
			assert.Equal(t, "s-"+eventTaskGet, task.History[0].MessageID)
		}},
		{"send/jsonrpc-tasks-cancel.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			rpcResult(t, resp, "req-3", &task)
			assert.Equal(t, eventTaskCancelRPC, task.ID)
			assert.Equal(t, a2a.TaskStateCanceled, task.Status.State)
		}},
		{"send/jsonrpc-tasks-list.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var res a2a.ListTasksResult
			rpcResult(t, resp, "req-4", &res)
			assert.Equal(t, 2, res.PageSize)
			for _, task := range res.Tasks {
				assert.Equal(t, a2a.TaskStateSubmitted, task.Status.State)
			}
			assert.Equal(t, res.TotalSize > 2, res.NextPageToken != "")
		}},
		{"send/rest-message-send.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			restResult(t, resp, &task)
			assert.Equal(t, a2a.TaskStateSubmitted, task.Status.State, "a non-blocking send returns the submitted task")
			job := deferredJob(t, store, task.ID)
			require.NotNil(t, job, "the task does not say it awaits execution")
			require.NotNil(t, job.Message)
			assert.Equal(t, "queue this", job.Message.Text())
		}},
		{"send/jsonrpc-v1-send-message.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var res struct {
				Task struct {
					ID     string `json:"id"`
					Status struct {
						State string `json:"state"`
					} `json:"status"`
				} `json:"task"`
			}
			rpcResult(t, resp, "req-v1", &res)
			assert.Equal(t, "TASK_STATE_COMPLETED", res.Task.Status.State, "A2A 1.0: SendMessage waits unless returnImmediately")
		}},
		{"send/oap-orchestrate.json", send, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, "evt-0001", resp.Headers["Orch-Id"])
			assert.Equal(t, "session-0001", resp.Headers["Orch-Session-Id"])
			var env struct {
				ID     string   `json:"id"`
				Result a2a.Task `json:"result"`
				Meta   struct {
					Trace  string `json:"trace"`
					OrchID string `json:"orch_id"`
				} `json:"_meta"`
			}
			require.NoError(t, json.Unmarshal(body(t, resp), &env))
			assert.Equal(t, "env-1", env.ID)
			assert.Equal(t, "session-0001", env.Result.ContextID, "Orch-Session-Id is the context")
			assert.Equal(t, a2a.TaskStateCompleted, env.Result.Status.State)
			assert.Equal(t, "orch-trace-1", env.Meta.Trace)
			assert.Equal(t, "evt-0001", env.Meta.OrchID)
		}},
		{"tasks/rest-v1-tasks-get.json", tasks, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			assert.Equal(t, "application/json", resp.Headers["Content-Type"])
			var task struct {
				ID     string `json:"id"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			}
			require.NoError(t, json.Unmarshal(body(t, resp), &task))
			assert.Equal(t, eventTaskGet, task.ID)
			assert.Equal(t, "TASK_STATE_COMPLETED", task.Status.State)
		}},
		{"tasks/health.json", tasks, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			require.Equal(t, 200, resp.StatusCode, resp.Body)
			var p map[string]any
			require.NoError(t, json.Unmarshal(body(t, resp), &p))
			assert.Equal(t, "dynamodb", p["store_backend"])
			assert.Equal(t, "inline", p["execution_mode"])
		}},
		{"tasks/rest-tasks-get.json", tasks, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			restResult(t, resp, &task)
			assert.Equal(t, eventTaskGet, task.ID)
			assert.Len(t, task.History, 1)
		}},
		{"tasks/rest-tasks-cancel.json", tasks, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var task a2a.Task
			restResult(t, resp, &task)
			assert.Equal(t, eventTaskCancelREST, task.ID)
			assert.Equal(t, a2a.TaskStateCanceled, task.Status.State)
		}},
		{"tasks/rest-tasks-list.json", tasks, func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			var res a2a.ListTasksResult
			restResult(t, resp, &res)
			assert.Equal(t, 2, res.PageSize)
			assert.NotEmpty(t, res.Tasks)
			for _, task := range res.Tasks {
				assert.Equal(t, a2a.TaskStateSubmitted, task.Status.State)
			}
		}},
	} {
		t.Run(tc.event, func(t *testing.T) {
			resp, err := tc.fn(context.Background(), loadEvent(t, tc.event))
			require.NoError(t, err)
			tc.check(t, resp)
		})
	}
}

// The edge answers what the events must not get: a wrong token (401), a
// route of the other function (404), an unknown task (-32001, HTTP 404 on
// REST), a cancel of a finished task (-32002).
func TestEventErrors(t *testing.T) {
	env := lambdaEnv(t)
	send := startFunction(t, env, httpapi.RoutesRPC)
	tasks := startFunction(t, env, httpapi.RoutesTasks)
	createTask(t, storeOf(t, env), eventTaskCancelRPC, a2a.TaskStateCompleted)

	withToken := func(ev events.APIGatewayV2HTTPRequest, tok string) events.APIGatewayV2HTTPRequest {
		ev.Headers = map[string]string{"authorization": "Bearer " + tok, "content-type": "application/json"}
		return ev
	}
	rpcError := func(t *testing.T, resp events.APIGatewayV2HTTPResponse, code a2a.Code) {
		require.Equal(t, 200, resp.StatusCode)
		var r rpcResponse
		require.NoError(t, json.Unmarshal(body(t, resp), &r))
		require.NotNil(t, r.Error, "want error %d, got %s", code, resp.Body)
		assert.Equal(t, int(code), r.Error.Code)
	}
	for _, tc := range []struct {
		name  string
		fn    lambdaFn
		event events.APIGatewayV2HTTPRequest
		check func(t *testing.T, resp events.APIGatewayV2HTTPResponse)
	}{
		{"wrong token", send, withToken(loadEvent(t, "send/jsonrpc-tasks-get.json"), "nope"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			assert.Equal(t, 401, resp.StatusCode)
		}},
		{"task route on the send function", send, loadEvent(t, "tasks/rest-tasks-get.json"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			assert.Equal(t, 404, resp.StatusCode)
		}},
		{"JSON-RPC on the tasks function", tasks, loadEvent(t, "send/jsonrpc-tasks-get.json"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			assert.Equal(t, 404, resp.StatusCode)
		}},
		{"unknown task", send, loadEvent(t, "send/jsonrpc-tasks-get.json"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			rpcError(t, resp, a2a.CodeTaskNotFound)
		}},
		{"unknown task, REST", tasks, loadEvent(t, "tasks/rest-tasks-get.json"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			assert.Equal(t, 404, resp.StatusCode)
			assert.Contains(t, string(body(t, resp)), "TASK_NOT_FOUND")
		}},
		{"cancel a completed task", send, loadEvent(t, "send/jsonrpc-tasks-cancel.json"), func(t *testing.T, resp events.APIGatewayV2HTTPResponse) {
			rpcError(t, resp, a2a.CodeTaskNotCancelable)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.fn(context.Background(), tc.event)
			require.NoError(t, err)
			tc.check(t, resp)
		})
	}
}

// A task sent through one function instance is read by a new instance (a
// later cold start) of the other: tasks live in the table, not in the
// process.
func TestTaskSurvivesRestart(t *testing.T) {
	env := lambdaEnv(t)
	send := startFunction(t, env, httpapi.RoutesRPC)
	resp, err := send(context.Background(), loadEvent(t, "send/rest-message-send.json"))
	require.NoError(t, err)
	var sent a2a.Task
	restResult(t, resp, &sent)

	tasks := startFunction(t, env, httpapi.RoutesTasks) // a new handler, same table
	ev := loadEvent(t, "tasks/rest-tasks-get.json")
	ev.RawPath = "/rest/v1/tasks/" + sent.ID
	ev.RawQueryString = ""
	ev.RequestContext.HTTP.Path = ev.RawPath
	resp, err = tasks(context.Background(), ev)
	require.NoError(t, err)
	var got a2a.Task
	restResult(t, resp, &got)
	assert.Equal(t, sent.ID, got.ID)
	assert.Equal(t, sent.ContextID, got.ContextID)
	assert.Equal(t, a2a.TaskStateSubmitted, got.Status.State)
	require.Len(t, got.History, 1)
	assert.Equal(t, "queue this", got.History[0].Text())
}

// The functions refuse to start without DynamoDB or without bearer tokens,
// or asked to create their table, naming the variable.
func TestLambdaRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"memory store", map[string]string{"A2A_BEARER_TOKEN": "test-token-16-ch"}, []string{"A2A_TASK_STORE_BACKEND=memory"}},
		{"no tokens", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks", "AWS_REGION": "us-east-1"},
			[]string{"A2A_BEARER_TOKEN"}},
		{"neither", map[string]string{}, []string{"A2A_TASK_STORE_BACKEND", "A2A_BEARER_TOKEN"}},
		{"dynamodb without table", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_BEARER_TOKEN": "test-token-16-ch"}, []string{"A2A_TASK_STORE_TABLE", "AWS_REGION"}},
		{"unknown agent", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks", "AWS_REGION": "us-east-1", "A2A_BEARER_TOKEN": "test-token-16-ch", "A2A_AGENT": "nope"},
			[]string{"A2A_AGENT"}},
		// The stack creates the table: a function links no code to create one.
		{"table creation", map[string]string{"A2A_TASK_STORE_BACKEND": "dynamodb", "A2A_TASK_STORE_TABLE": "tasks", "AWS_REGION": "us-east-1", "A2A_BEARER_TOKEN": "test-token-16-ch", "A2A_TASK_STORE_CREATE_TABLE": "true"},
			[]string{"A2A_TASK_STORE_CREATE_TABLE=true is for the local server"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := httpfn.New(context.Background(), getenv(tc.env), builtin.Registry(), httpapi.RoutesRPC, io.Discard)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// make run with A2A_TASK_STORE_BACKEND=dynamodb: the local server keeps its
// tasks in the table, so a restarted server still has them; the memory
// backend stays the default.
func TestLocalServerOnDynamoDB(t *testing.T) {
	env := lambdaEnv(t)
	delete(env, "A2A_BEARER_TOKEN")
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	ag, err := builtin.Registry().New("echo", getenv(env))
	require.NoError(t, err)
	serve := func() *httptest.Server {
		store, err := app.OpenTaskStore(context.Background(), cfg, app.StoreOptions{})
		require.NoError(t, err)
		require.IsType(t, &dynamo.Store{}, store)
		srv, err := app.NewLocal(cfg, ag, app.LocalOptions{Auth: auth.Anonymous{}, Store: store})
		require.NoError(t, err)
		hs := httptest.NewServer(srv.Handler)
		t.Cleanup(func() { hs.Close(); srv.Close() })
		return hs
	}
	call := func(hs *httptest.Server, method string, params any) a2a.Task {
		t.Helper()
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "local", "method": method, "params": params})
		require.NoError(t, err)
		resp, err := http.Post(hs.URL+"/", "application/json", strings.NewReader(string(b)))
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var task a2a.Task
		rpcResult(t, events.APIGatewayV2HTTPResponse{StatusCode: resp.StatusCode, Body: string(raw)}, "local", &task)
		return task
	}

	first := serve()
	sent := call(first, "message/send", map[string]any{
		"message":       map[string]any{"role": "user", "messageId": "local-1", "parts": []any{map[string]any{"kind": "text", "text": "persist me"}}},
		"configuration": map[string]any{"blocking": true},
	})
	assert.Equal(t, a2a.TaskStateCompleted, sent.Status.State)
	first.Close()

	got := call(serve(), "tasks/get", map[string]any{"id": sent.ID})
	assert.Equal(t, sent.ID, got.ID)
	assert.Equal(t, a2a.TaskStateCompleted, got.Status.State)
	require.Len(t, got.Artifacts, 1)
	assert.Equal(t, "persist me", a2a.PartsText(got.Artifacts[0].Parts))

	mem, err := app.OpenTaskStore(context.Background(), config.Config{TaskStore: config.TaskStore{Backend: config.BackendMemory}}, app.StoreOptions{})
	require.NoError(t, err)
	assert.IsType(t, &memory.Store{}, mem)
}

// slowAgent asks for its next step an hour later.
type slowAgent struct{}

func (slowAgent) Info() agent.Info { return agent.Info{Name: "slow"} }

func (slowAgent) Step(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
	return agent.Continue(time.Hour, map[string]int{"step": 1}), nil
}

// A blocking send whose work does not fit the request answers at once with
// the working task, which records that it awaits execution: waiting for it
// would only run into API Gateway's timeout.
func TestBlockingSendBeyondTheBudget(t *testing.T) {
	env := lambdaEnv(t)
	env["A2A_BLOCKING_TIMEOUT_SECONDS"] = "5"
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	store := storeOf(t, env)
	h, err := httpfn.NewHandler(cfg, slowAgent{}, store, httpfn.Options{Routes: httpapi.RoutesRPC})
	require.NoError(t, err)

	start := time.Now()
	resp, err := boot.LambdaHTTP(h, nil)(context.Background(), loadEvent(t, "send/jsonrpc-message-send.json"))
	require.NoError(t, err)
	var task a2a.Task
	rpcResult(t, resp, "req-1", &task)
	assert.Less(t, time.Since(start), 2*time.Second, "the send waited for work no one runs")
	assert.Equal(t, a2a.TaskStateWorking, task.Status.State)
	job := deferredJob(t, store, task.ID)
	require.NotNil(t, job, "the continuation was not recorded")
	assert.Nil(t, job.Message, "the next step follows a Continue: no message")
}
