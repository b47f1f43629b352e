package app_test

// Step Functions end to end: moto runs the project's state machine in parser
// mode, and its worker function is bridged to the real worker handler
// (pkg/testkit/sfntest), which runs agent steps on the DynamoDB store in moto.
// The HTTP functions run in stepfunctions or auto mode against the same
// table and state machine, and a client drives them over HTTP.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssfn "github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/workerfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/lambdainvoke"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sfncall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
)

// parityAgent exercises every part of the step protocol: a progress
// message, artifact chunks over two steps joined by a Continue, a question,
// and a final answer built from the reply.
type parityAgent struct{}

func (parityAgent) Info() agent.Info { return agent.Info{Name: "parity"} }

func (parityAgent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	if in.Reply != nil {
		return agent.Complete(agent.Text("done: "+in.Reply.Text),
			a2a.Artifact{ArtifactID: "result", Name: "result", Parts: []a2a.Part{a2a.TextPart("colour " + in.Reply.Text)}}), nil
	}
	if len(in.Checkpoint) == 0 {
		if err := emit.Status(ctx, agent.Text("starting")); err != nil {
			return agent.Outcome{}, err
		}
		if err := emit.Artifact(ctx, a2a.Artifact{ArtifactID: "progress", Name: "progress", Parts: []a2a.Part{a2a.TextPart("one")}}, agent.ArtifactOptions{}); err != nil {
			return agent.Outcome{}, err
		}
		return agent.Continue(0, map[string]int{"step": 1}), nil
	}
	if err := emit.Artifact(ctx, a2a.Artifact{ArtifactID: "progress", Parts: []a2a.Part{a2a.TextPart("two")}}, agent.ArtifactOptions{Append: true, LastChunk: true}); err != nil {
		return agent.Outcome{}, err
	}
	return agent.AskQuestion(agent.Text("Which colour?"), map[string]any{"questions": []string{"Which colour?"}}), nil
}

const sfnToken = "sfn-token"

// stack is the deployed shape in miniature: a table, the worker function
// (in moto's Lambda, bridged to the real worker handler) and the state
// machine that calls it, and the HTTP functions on a listener. It counts
// the Step Functions calls the functions make, by operation, and the
// worker's runs (its asynchronous invocations).
type stack struct {
	url     string
	machine *sfntest.Machine
	store   *dynamo.Store
	sfn     *awstest.OpCounter
	runs    atomic.Int32
	// busy counts the worker invocations under way.
	busy atomic.Int32
}

// idle waits until no worker invocation is under way.
func (s *stack) idle(t *testing.T) {
	require.Eventually(t, func() bool { return s.busy.Load() == 0 }, 30*time.Second, 5*time.Millisecond, "the worker is done")
}

// newStack starts a stack whose functions run ag in mode (stepfunctions or
// auto). ttl is the interrupt TTL, budget the blocking timeout (the inline
// runner's budget in auto mode).
func newStack(t *testing.T, ag agent.Agent, mode string, ttl, budget time.Duration) *stack {
	return newStackOn(t, clienttest.DynamoStore(t), ag, mode, ttl, budget, stackOptions{})
}

// stackOptions change a stack for a test.
type stackOptions struct {
	// logs receives the functions' logs (default: the test's log).
	logs io.Writer
	// wrap wraps the HTTP functions' handler.
	wrap func(http.Handler) http.Handler
	// loopbackWebhooks lets push configs name webhooks on loopback over
	// plain http (A2A_PUSH_ALLOW_INSECURE), where tests receive them.
	loopbackWebhooks bool
}

// newStackOn is newStack on store.
func newStackOn(t *testing.T, store *dynamo.Store, ag agent.Agent, mode string, ttl, budget time.Duration, o stackOptions) *stack {
	cfg, err := config.Load(func(k string) string { return "" })
	require.NoError(t, err)
	cfg.PublicURL = ""
	cfg.Tokens = map[string]string{"alice": sfnToken}
	cfg.InterruptTTL = ttl
	cfg.BlockingTimeout = budget
	cfg.Push.AllowInsecure = o.loopbackWebhooks
	if o.logs == nil {
		o.logs = &testWriter{t}
	}
	log := boot.NewLogger(o.logs, cfg.LogLevel)
	s := &stack{store: store, sfn: awstest.NewOpCounter()}
	var w *worker.Handler
	s.machine = sfntest.New(t, sfntest.Bridge(func(ctx context.Context, ev worker.Event) (worker.Result, error) {
		if ev.Action == worker.ActionRun {
			s.runs.Add(1)
		}
		s.busy.Add(1)
		defer s.busy.Add(-1)
		return w.Handle(ctx, ev)
	}))
	counted := sfntest.API(t, sfncall.Options{HTTPClient: s.sfn.Client(nil)})
	cfg.Execution = config.Execution{Mode: mode, StateMachineARN: s.machine.ARN, WorkerFunction: s.machine.Function}
	w, err = workerfn.NewHandler(cfg, ag, store, counted, nil, nil, log)
	require.NoError(t, err)
	inv, err := lambdainvoke.New(awstest.Config(t), lambdainvoke.Options{})
	require.NoError(t, err)
	h, err := httpfn.NewHandler(cfg, ag, store, httpfn.Options{Routes: httpapi.RoutesAll, StepFunctions: counted, Invoker: inv, Log: log})
	require.NoError(t, err)
	if o.wrap != nil {
		h = o.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// testWriter sends the functions' logs to the test's log.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// summary is a task as the parity test compares it: what a client sees,
// without ids and timestamps.
type summary struct {
	State     a2a.TaskState
	History   []string
	Artifacts map[string]string
}

func summarize(task *a2a.Task) summary {
	s := summary{State: task.Status.State, Artifacts: map[string]string{}}
	for _, m := range task.History {
		line := string(m.Role) + ": " + m.Text()
		if im := m.Metadata.Object("shared").Object("interrupt"); im != nil {
			line += fmt.Sprintf(" [%v %v]", im["type"], im["phase"])
		}
		s.History = append(s.History, line)
	}
	for _, a := range task.Artifacts {
		s.Artifacts[a.ArtifactID] = a2a.PartsText(a.Parts)
	}
	return s
}

// conversation runs the parity scenario through c: a non-blocking send,
// polling until the question, the answer through the callback, polling
// until the task completes.
func conversation(t *testing.T, c *client.Client) summary {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	blocking := false
	res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	fast := client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond}
	asked, err := c.Wait(ctx, res.Task.ID, fast)
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
	p := client.Interrupt(asked)
	require.NotNil(t, p)
	_, err = c.ReplyQuestion(ctx, p.RequestID, [][]string{{"blue"}})
	require.NoError(t, err)
	done, err := c.Wait(ctx, res.Task.ID, fast)
	require.NoError(t, err)
	return summarize(done)
}

// TestParityLocalAndStepFunctions holds the runners to the step protocol:
// one agent driven through the local runner and through the worker and the
// state machine gives the same task, as a client sees it.
func TestParityLocalAndStepFunctions(t *testing.T) {
	want := summary{
		State: a2a.TaskStateCompleted,
		History: []string{
			"user: go",
			"agent: starting",
			"agent: Which colour? [question asked]",
			"user: blue",
			"agent: Reply received; the agent continues. [question resolved]",
			"agent: done: blue",
		},
		Artifacts: map[string]string{"progress": "onetwo", "result": "colour blue"},
	}

	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	cfg.PublicURL = "" // the card takes the listener's URL from the request
	local, err := app.NewLocal(cfg, parityAgent{}, app.LocalOptions{Auth: auth.NewBearer(map[string]string{"alice": sfnToken})})
	require.NoError(t, err)
	t.Cleanup(local.Close)
	localSrv := httptest.NewServer(local.Handler)
	t.Cleanup(localSrv.Close)
	assert.Equal(t, want, conversation(t, client.New(localSrv.URL, client.Options{Token: sfnToken})), "local runner")

	s := newStack(t, parityAgent{}, config.ExecutionStepFunctions, time.Hour, 5*time.Second)
	assert.Equal(t, want, conversation(t, client.New(s.url, client.Options{Token: sfnToken})), "worker and state machine")
	states := s.executionStates(t)
	require.Len(t, states, 1, "one execution per task: its first step ran in the worker, outside it")
	for _, st := range states {
		assert.Equal(t, []string{"Begin", "WaitBeforeStep", "Step", "Route", "AwaitInput", "Step", "Route", "Done"}, st)
	}
	assert.EqualValues(t, 1, s.runs.Load(), "the first step ran on the asynchronous path")
}

// executionStates returns the states each execution entered, by the task
// it runs (an execution is named <taskId>-<suffix>).
func (s *stack) executionStates(t *testing.T) map[string][]string {
	out, err := s.machine.Client.ListExecutions(context.Background(), &awssfn.ListExecutionsInput{StateMachineArn: aws.String(s.machine.ARN)})
	require.NoError(t, err)
	m := map[string][]string{}
	for _, e := range out.Executions {
		s.machine.Wait(aws.ToString(e.ExecutionArn), 10*time.Second)
		states, _ := s.machine.History(aws.ToString(e.ExecutionArn))
		m[taskOfExecution(aws.ToString(e.Name))] = states
	}
	return m
}

// taskOfExecution is the task id an execution's name starts with: a UUID.
func taskOfExecution(name string) string {
	if len(name) > 36 {
		return name[:36]
	}
	return name
}

// TestAutoMode: a task that completes in its first inline step never
// touches Step Functions; one that continues beyond the request's budget is
// handed over.
func TestAutoMode(t *testing.T) {
	ag, err := builtin.Registry().New("demo", func(k string) string {
		return map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_DEMO_STEP_MS": "4000"}[k]
	})
	require.NoError(t, err)
	// The budget leaves the first step (a few requests to moto) room even
	// on a loaded machine; the 4 s wait never fits in it.
	s := newStack(t, ag, config.ExecutionAuto, time.Hour, 2*time.Second)
	c := client.New(s.url, client.Options{Token: sfnToken})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	blocking := true
	send := func(text string) *a2a.Task {
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
		require.NoError(t, err)
		return res.Task
	}

	quick := send("hello")
	assert.Equal(t, a2a.TaskStateCompleted, quick.Status.State, "completed in the request")
	assert.Empty(t, s.executionStates(t), "no execution for a task done inline")

	// "long 2" continues 4 s after its first step, beyond the 2 s budget:
	// the rest runs in an execution that starts at the Continue's wait.
	long := send("long 2")
	done, err := c.Wait(ctx, long.ID, client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	assert.Equal(t, "step 1 of 2step 2 of 2", a2a.PartsText(done.Artifacts[0].Parts))
	states := s.executionStates(t)
	require.Contains(t, states, long.ID)
	assert.Equal(t, []string{"Begin", "WaitBeforeStep", "Step", "Route", "Done"}, states[long.ID])

	// An interrupt asked inline is shown by the execution holding its token.
	perm := send("permission deploy")
	asked, err := c.Wait(ctx, perm.ID, client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
	_, err = c.ReplyPermission(ctx, client.Interrupt(asked).RequestID, "once", "")
	require.NoError(t, err)
	done, err = c.Wait(ctx, perm.ID, client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
	assert.Equal(t, []string{"Begin", "AwaitInput", "Step", "Route", "Done"}, s.executionStates(t)[perm.ID])
}

// TestCancelAndExpiryOnStepFunctions: canceling a task that waits for its
// client ends its execution; an interrupt nobody answers fails the task.
func TestCancelAndExpiryOnStepFunctions(t *testing.T) {
	ag, err := builtin.Registry().New("demo", func(k string) string { return map[string]string{"A2A_DEMO_WORK_MS": "0"}[k] })
	require.NoError(t, err)
	// The interrupt TTL leaves the client's polls, slow on a loaded
	// machine, the time to see the task ask before it expires.
	s := newStack(t, ag, config.ExecutionStepFunctions, 5*time.Second, 5*time.Second)
	c := client.New(s.url, client.Options{Token: sfnToken})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	fast := client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond}
	blocking := false
	start := func(text string) *a2a.Task {
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
		require.NoError(t, err)
		asked, err := c.Wait(ctx, res.Task.ID, fast)
		require.NoError(t, err)
		require.Equal(t, a2a.TaskStateInputRequired, asked.Status.State)
		return asked
	}

	waiting := start("ask Anyone?")
	s.sfn.Reset()
	canceled, err := c.CancelTask(ctx, a2a.TaskIDParams{ID: waiting.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	arn := s.executionARN(t, waiting.ID)
	status := s.machine.Wait(arn, 10*time.Second)
	assert.NotEqual(t, sfntypes.ExecutionStatusRunning, status, "the execution ended")
	assert.Equal(t, map[string]int{"SendTaskFailure": 1}, s.sfn.Counts(), "the wait is failed through its token; nothing is looked for")

	// A task between two steps of its execution: the execution its steps
	// recorded is stopped, found without listing any.
	res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart("long 30")}},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		rec, err := s.store.GetTask(ctx, res.Task.ID, store.GetOptions{})
		return err == nil && rec.ExecutionARN != ""
	}, 30*time.Second, 50*time.Millisecond, "a step of the execution records it")
	rec, err := s.store.GetTask(ctx, res.Task.ID, store.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, s.executionARN(t, res.Task.ID), rec.ExecutionARN)
	s.sfn.Reset()
	canceled, err = c.CancelTask(ctx, a2a.TaskIDParams{ID: res.Task.ID})
	require.NoError(t, err)
	assert.Equal(t, a2a.TaskStateCanceled, canceled.Status.State)
	assert.Equal(t, map[string]int{"StopExecution": 1}, s.sfn.Counts(), "no ListExecutions, no DescribeExecution")
	assert.NotEqual(t, sfntypes.ExecutionStatusRunning, s.machine.Wait(rec.ExecutionARN, 10*time.Second), "the execution was stopped")

	ignored := start("ask Anyone there?")
	var expired *a2a.Task
	require.Eventually(t, func() bool {
		expired, err = c.GetTask(ctx, a2a.TaskQueryParams{ID: ignored.ID})
		return err == nil && expired.Status.State == a2a.TaskStateFailed
	}, 90*time.Second, 100*time.Millisecond, "the unanswered interrupt expires after its 5 s TTL (moto's timer and the worker's retries are slow on a loaded machine)")
	assert.Contains(t, expired.Status.Message.Text(), "The input request expired")
	assert.Equal(t, sfntypes.ExecutionStatusSucceeded, s.machine.Wait(s.executionARN(t, ignored.ID), 10*time.Second), "ExecutionsFailed does not count an interrupt nobody answered")
	states, _ := s.machine.History(s.executionARN(t, ignored.ID))
	assert.Equal(t, []string{"AwaitInput", "Expire", "InputRequestExpired"}, states[len(states)-3:])
}

// executionARN is the ARN of the execution that runs task taskID.
func (s *stack) executionARN(t *testing.T, taskID string) string {
	out, err := s.machine.Client.ListExecutions(context.Background(), &awssfn.ListExecutionsInput{StateMachineArn: aws.String(s.machine.ARN)})
	require.NoError(t, err)
	for _, e := range out.Executions {
		if taskOfExecution(aws.ToString(e.Name)) == taskID {
			return aws.ToString(e.ExecutionArn)
		}
	}
	b, _ := json.Marshal(out.Executions)
	t.Fatalf("no execution of task %s among %s", taskID, b)
	return ""
}

// TestStepFunctionsCost counts what Step Functions bills (state
// transitions: every state entered), the executions started and the
// worker's invocations, for a one-step task, a five-step task and a task
// with one interrupt, sent non-blocking in stepfunctions mode: a task's
// first step runs in the worker on the asynchronous path, so a one-step
// task starts no execution at all. docs/execution.md quotes these numbers.
func TestStepFunctionsCost(t *testing.T) {
	ag, err := builtin.Registry().New("demo", func(k string) string { return map[string]string{"A2A_DEMO_WORK_MS": "0", "A2A_DEMO_STEP_MS": "10"}[k] })
	require.NoError(t, err)
	s := newStack(t, ag, config.ExecutionStepFunctions, time.Hour, 5*time.Second)
	c := client.New(s.url, client.Options{Token: sfnToken})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fast := client.WaitOptions{MinInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond}
	blocking := false
	run := func(text string, reply bool) (executions, transitions, invocations int) {
		s.sfn.Reset()
		s.runs.Store(0)
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
		require.NoError(t, err)
		task, err := c.Wait(ctx, res.Task.ID, fast)
		require.NoError(t, err)
		if reply {
			_, err = c.ReplyQuestion(ctx, client.Interrupt(task).RequestID, [][]string{{"yes"}})
			require.NoError(t, err)
			task, err = c.Wait(ctx, res.Task.ID, fast)
			require.NoError(t, err)
		}
		require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		invocations = int(s.runs.Load())
		if states, ok := s.executionStates(t)[res.Task.ID]; ok {
			_, calls := s.machine.History(s.executionARN(t, res.Task.ID))
			transitions, invocations = len(states), invocations+len(calls)
		}
		return s.sfn.Count("StartExecution"), transitions, invocations
	}
	for _, tt := range []struct {
		name                                 string
		text                                 string
		reply                                bool
		executions, transitions, invocations int
	}{
		{"one step", "hello", false, 0, 0, 1},
		{"five steps", "long 5", false, 1, 14, 5},
		{"one interrupt", "ask Ready?", true, 1, 5, 3},
	} {
		executions, transitions, invocations := run(tt.text, tt.reply)
		t.Logf("%-13s %d executions, %2d state transitions, %d worker invocations", tt.name, executions, transitions, invocations)
		assert.Equal(t, tt.executions, executions, tt.name)
		assert.Equal(t, tt.transitions, transitions, tt.name)
		assert.Equal(t, tt.invocations, invocations, tt.name)
	}
}
