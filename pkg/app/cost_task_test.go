package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
)

// costAgent makes the tasks whose cost TestCostPerTask counts: a message
// "steps N" continues N-1 times, 10 ms apart, then completes; "ask"
// asks a question and completes with the answer; any other message
// completes at once. Each completes with one small artifact, as most
// agents do.
type costAgent struct{}

func (costAgent) Info() agent.Info { return agent.Info{Name: "cost"} }

func (costAgent) Step(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	answer := func(text string) agent.Outcome {
		return agent.Complete(agent.Text("done"), a2a.Artifact{ArtifactID: "answer", Parts: []a2a.Part{a2a.TextPart(text)}})
	}
	if in.Reply != nil {
		return answer("you said " + in.Reply.Text), nil
	}
	text := in.Message.Text()
	var n, step int
	if _, err := fmt.Sscanf(text, "steps %d", &n); err == nil {
		if len(in.Checkpoint) > 0 {
			fmt.Sscanf(string(in.Checkpoint), "%d", &step)
		}
		if step++; step < n {
			return agent.Continue(10*time.Millisecond, step), nil
		}
		return answer(fmt.Sprintf("%d steps", n)), nil
	}
	if text == "ask" {
		return agent.AskQuestion(agent.Text("Which colour?"), nil), nil
	}
	return answer("echo: " + text), nil
}

// List prices, us-east-1, USD (../shared/reference/aws-prices.md, checked
// 2026-11), and the assumptions the table states.
const (
	priceHTTPAPI     = 1.00 / 1e6   // per request
	priceLambdaReq   = 0.20 / 1e6   // per invocation, sync or async
	priceLambdaGBs   = 0.0000133334 // per GB-second, arm64
	priceWRU         = 0.625 / 1e6  // DynamoDB on-demand write request unit
	priceRRU         = 0.125 / 1e6  // DynamoDB on-demand read request unit
	priceTransition  = 25.0 / 1e6   // Step Functions Standard
	priceLogGB       = 0.50         // CloudWatch Logs ingestion, per GB
	functionGB       = 0.25         // MemorySize 256
	billedSeconds    = 0.025        // per invocation of ours, the agent's own time aside (assumed: a few DynamoDB calls of 5-8 ms)
	accessLogBytes   = 260          // one API Gateway access log line (template.yaml's format, filled)
	platformLogBytes = 0            // Lambda's START/END/REPORT lines: none at SystemLogLevel WARN (template.yaml)
	// functionLogBytes is what one invocation of a function logs at the
	// template's defaults (its summary line and EMF metrics), at most:
	// functions/ TestLogBytesPerInvocation measures the real binaries and
	// holds them to it.
	functionLogBytes = 1250
)

// taskCost is what one task's life asked of AWS.
type taskCost struct {
	requests    int // HTTP API requests (each an invocation of send or tasks)
	workerCalls int // worker invocations: runs (asynchronous) and the state machine's
	executions  int // Step Functions executions started
	transitions int // state transitions
	dynamo      dynamocost.Counts
}

func (c taskCost) invocations() int { return c.requests + c.workerCalls }

// usd is the task's cost at list prices, in USD per million tasks.
func (c taskCost) usd() (total float64, items string) {
	lines := []struct {
		name string
		usd  float64
	}{
		{"api", float64(c.requests) * priceHTTPAPI},
		{"lambda", float64(c.invocations()) * (priceLambdaReq + billedSeconds*functionGB*priceLambdaGBs)},
		{"dynamodb", c.dynamo.Write*priceWRU + c.dynamo.Read*priceRRU},
		{"sfn", float64(c.transitions) * priceTransition},
		{"logs", float64(c.requests*accessLogBytes+c.invocations()*(functionLogBytes+platformLogBytes)) / 1e9 * priceLogGB},
	}
	var parts []string
	for _, l := range lines {
		total += l.usd * 1e6
		parts = append(parts, fmt.Sprintf("%s %.2f", l.name, l.usd*1e6))
	}
	return total, strings.Join(parts, ", ")
}

// costPerTask runs each kind of task through the deployed shape in
// miniature (the send function's handler, the worker in moto's Lambda, the
// state machine in moto) on one metered table, and counts what each asked
// of AWS: the rows of docs/costs.md's "Cost per task".
func costPerTask(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	db := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "cost")
	require.NoError(t, dynamo.CreateTable(ctx, db, table))
	meter, err := dynamocost.New(ctx, db, table)
	require.NoError(t, err)
	store, err := dynamo.New(meter, dynamo.Options{Table: table})
	require.NoError(t, err)
	// The test's own reads go around the meter.
	look, err := dynamo.New(db, dynamo.Options{Table: table})
	require.NoError(t, err)
	// Count the requests.
	var requests atomic.Int32
	s := newStackOn(t, store, costAgent{}, config.ExecutionAuto, time.Hour, 20*time.Second, stackOptions{
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost { // the card is the card function's, and cached
					requests.Add(1)
				}
				next.ServeHTTP(w, r)
			})
		},
	})
	c := client.New(s.url, client.Options{Token: sfnToken})
	// The client reads the agent card once (the card function's, cached
	// by clients): before the count.
	_, err = c.Card(ctx)
	require.NoError(t, err)

	var mu sync.Mutex
	measure := func(do func() string) taskCost {
		meter.Reset()
		s.sfn.Reset()
		s.runs.Store(0)
		requests.Store(0)
		taskID := do()
		s.idle(t)
		mu.Lock()
		defer mu.Unlock()
		cost := taskCost{requests: int(requests.Load()), workerCalls: int(s.runs.Load()), executions: s.sfn.Count("StartExecution"),
			dynamo: meter.Counts()}
		if states, ok := s.executionStates(t)[taskID]; ok {
			_, calls := s.machine.History(s.executionARN(t, taskID))
			cost.transitions, cost.workerCalls = len(states), cost.workerCalls+len(calls)
		}
		return cost
	}
	send := func(text string, blocking bool, taskID string) *a2a.Task {
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{TaskID: taskID, Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking}})
		require.NoError(t, err)
		require.NotNil(t, res.Task)
		return res.Task
	}
	// settled waits for the task outside the count: the polls a client
	// makes are rows of their own.
	settled := func(id string) *a2a.Task {
		var task *a2a.Task
		require.Eventually(t, func() bool {
			rec, err := look.GetTask(ctx, id, service.AllHistory)
			if err != nil || !rec.Task.Status.State.Settled() {
				return false
			}
			task = &rec.Task
			return true
		}, 60*time.Second, 20*time.Millisecond)
		return task
	}

	var done *a2a.Task
	blockingTask := measure(func() string {
		done = send("hello", true, "")
		require.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		return done.ID
	})
	getOnly := measure(func() string {
		_, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: done.ID})
		require.NoError(t, err)
		return done.ID
	})
	nonBlocking := measure(func() string {
		task := send("hello again", false, "")
		assert.Equal(t, a2a.TaskStateCompleted, settled(task.ID).Status.State)
		return task.ID
	})
	continues := measure(func() string {
		task := send("steps 3", false, "")
		assert.Equal(t, a2a.TaskStateCompleted, settled(task.ID).Status.State)
		return task.ID
	})
	interrupt := measure(func() string {
		task := send("ask", false, "")
		require.Equal(t, a2a.TaskStateInputRequired, settled(task.ID).Status.State)
		send("blue", false, task.ID)
		require.Eventually(t, func() bool { return settled(task.ID).Status.State == a2a.TaskStateCompleted }, 60*time.Second, 20*time.Millisecond)
		return task.ID
	})

	rows := []struct {
		name string
		cost taskCost
	}{
		{"blocking one-step", blockingTask},
		{"non-blocking one-step", nonBlocking},
		{"non-blocking one-step + 3 polls", add(nonBlocking, getOnly, getOnly, getOnly)},
		{"continues twice", continues},
		{"one interrupt answered", interrupt},
		{"tasks/get (one poll)", getOnly},
	}
	var out strings.Builder
	for _, r := range rows {
		usd, items := r.cost.usd()
		c := r.cost
		fmt.Fprintf(&out, "%s: requests=%d invocations=%d executions=%d transitions=%d dynamodb=%d (%s) rru=%.1f wru=%.1f usd_per_million=%.2f (%s)\n",
			r.name, c.requests, c.invocations(), c.executions, c.transitions, c.dynamo.Total(), c.dynamo.Ops(), c.dynamo.Read, c.dynamo.Write, usd, items)
	}
	t.Logf("\n%s", out.String())

	assert.Zero(t, nonBlocking.executions, "a one-step task starts no execution")
	assert.Zero(t, nonBlocking.transitions)
	assert.Equal(t, 1, nonBlocking.workerCalls, "its step runs in one worker invocation")
	assert.Zero(t, blockingTask.executions+blockingTask.workerCalls, "a blocking one-step task runs in its request")
	assert.Equal(t, 1, continues.executions, "a task that continues goes on in one execution")
	assert.Equal(t, 1, interrupt.executions, "an interrupt waits in one execution")
}

// add returns the sum of costs.
func add(costs ...taskCost) taskCost {
	out := taskCost{dynamo: dynamocost.Counts{Requests: map[string]int{}}}
	for _, c := range costs {
		out.requests += c.requests
		out.workerCalls += c.workerCalls
		out.executions += c.executions
		out.transitions += c.transitions
		out.dynamo.Read += c.dynamo.Read
		out.dynamo.Write += c.dynamo.Write
		out.dynamo.IndexWrite += c.dynamo.IndexWrite
		for op, n := range c.dynamo.Requests {
			out.dynamo.Requests[op] += n
		}
	}
	return out
}
