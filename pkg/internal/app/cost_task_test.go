package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/deliverfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/pushfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/serverless"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/pushtest"
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
	priceSQS         = 0.40 / 1e6   // SQS standard queue, per request (64 KB chunk)
	functionGB       = 0.25         // MemorySize 256
	billedSeconds    = 0.025        // per invocation of ours, the agent's own time aside (assumed: a few DynamoDB calls of 5-8 ms)
	accessLogBytes   = 260          // one API Gateway access log line (template.yaml's format, filled)
	platformLogBytes = 0            // Lambda's START/END/REPORT lines: none at SystemLogLevel WARN (template.yaml)
	// What one invocation logs at the template's defaults (its summary
	// line and its EMF line), at most: functions/ TestLogBytesPerInvocation
	// measures the real binaries and holds them to the same bounds.
	sendLogBytes   = 1100 // a send, blocking or not
	pollLogBytes   = 950  // a tasks/get
	workerLogBytes = 700  // a worker's run of a step
	// otherLogBytes bounds the push and deliver functions' lines (not
	// measured by that test).
	otherLogBytes = 1250
)

// taskCost is what one task's life asked of AWS.
type taskCost struct {
	requests     int // HTTP API requests (each an invocation of send or tasks)
	polls        int // of which tasks/get
	workerCalls  int // worker invocations: runs (asynchronous) and the state machine's
	executions   int // Step Functions executions started
	transitions  int // state transitions
	pushCalls    int // push function invocations: stream records its filter lets through, one each at most
	deliverCalls int // deliver function invocations: one a notification at most (batches of 10)
	sqs          int // SQS requests: the push function's sends, and the deliver mapping's receive and delete of each job
	dynamo       dynamocost.Counts
}

func (c taskCost) invocations() int { return c.requests + c.workerCalls + c.pushCalls + c.deliverCalls }

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
		{"sqs", float64(c.sqs) * priceSQS},
		{"logs", float64(c.requests*accessLogBytes+c.invocations()*platformLogBytes+
			(c.requests-c.polls)*sendLogBytes+c.polls*pollLogBytes+c.workerCalls*workerLogBytes+
			(c.pushCalls+c.deliverCalls)*otherLogBytes) / 1e9 * priceLogGB},
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
	db, table := newTable(t, "cost")
	meter, err := dynamocost.New(ctx, db, table)
	require.NoError(t, err)
	ts, err := dynamo.New(meter, dynamo.Options{Table: table})
	require.NoError(t, err)
	// The test's own reads go around the meter.
	look, err := dynamo.New(db, dynamo.Options{Table: table})
	require.NoError(t, err)
	// Count the requests, and the polls among them.
	var requests, polls atomic.Int32
	s := newStackOn(t, ts, costAgent{}, config.ExecutionAuto, time.Hour, 20*time.Second, stackOptions{
		loopbackWebhooks: true,
		wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost { // the card is the card function's, and cached
					requests.Add(1)
					body, err := io.ReadAll(r.Body)
					require.NoError(t, err)
					var rpc struct{ Method string }
					require.NoError(t, json.Unmarshal(body, &rpc))
					if rpc.Method == "tasks/get" || rpc.Method == "GetTask" {
						polls.Add(1)
					}
					r.Body = io.NopCloser(bytes.NewReader(body))
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
		polls.Store(0)
		taskID := do()
		s.idle(t)
		mu.Lock()
		defer mu.Unlock()
		cost := taskCost{requests: int(requests.Load()), polls: int(polls.Load()), workerCalls: int(s.runs.Load()), executions: s.sfn.Count("StartExecution"),
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
			rec, err := look.GetTask(ctx, id, store.AllHistory)
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
	// A webhook's notification through the deployed pipeline: the
	// table's stream through the push function's filter (as the
	// template's event source mapping has it), the push function, the
	// delivery queue and the deliver function on the same metered table.
	hooks := newCostWebhook(t, ctx, table, meter)
	var webhook taskCost
	withWebhook := measure(func() string {
		hooks.skip() // the other tasks' records
		blocking := false
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{Message: a2a.Message{Parts: []a2a.Part{a2a.TextPart("hello webhook")}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking, PushNotificationConfig: &a2a.PushNotificationConfig{URL: hooks.url, Token: costHookToken}}})
		require.NoError(t, err)
		assert.Equal(t, a2a.TaskStateCompleted, settled(res.Task.ID).Status.State)
		webhook = hooks.deliver(1)
		return res.Task.ID
	})
	withWebhook = add(withWebhook, webhook)

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
		{"non-blocking one-step + one webhook", withWebhook},
		{"continues twice", continues},
		{"one interrupt answered", interrupt},
		{"tasks/get (one poll)", getOnly},
	}
	var out strings.Builder
	for _, r := range rows {
		usd, items := r.cost.usd()
		c := r.cost
		fmt.Fprintf(&out, "%s: requests=%d invocations=%d executions=%d transitions=%d dynamodb=%d (%s) rru=%.1f wru=%.1f sqs=%d usd_per_million=%.2f (%s)\n",
			r.name, c.requests, c.invocations(), c.executions, c.transitions, c.dynamo.Total(), c.dynamo.Ops(), c.dynamo.Read, c.dynamo.Write, c.sqs, usd, items)
	}
	t.Logf("\n%s", out.String())

	assert.Zero(t, nonBlocking.executions, "a one-step task starts no execution")
	assert.Zero(t, nonBlocking.transitions)
	assert.Equal(t, 1, nonBlocking.workerCalls, "its step runs in one worker invocation")
	assert.Zero(t, blockingTask.executions+blockingTask.workerCalls, "a blocking one-step task runs in its request")
	assert.Equal(t, 1, continues.executions, "a task that continues goes on in one execution")
	assert.Equal(t, 1, interrupt.executions, "an interrupt waits in one execution")
	assert.Equal(t, 1, webhook.deliverCalls, "a one-step task notifies once: its completion")
	assert.Equal(t, webhook.deliverCalls, webhook.pushCalls, "only the notifying change passes the stream filter")
}

// add returns the sum of costs.
func add(costs ...taskCost) taskCost {
	out := taskCost{dynamo: dynamocost.Counts{Requests: map[string]int{}}}
	for _, c := range costs {
		out.requests += c.requests
		out.polls += c.polls
		out.workerCalls += c.workerCalls
		out.executions += c.executions
		out.transitions += c.transitions
		out.pushCalls += c.pushCalls
		out.deliverCalls += c.deliverCalls
		out.sqs += c.sqs
		out.dynamo.Read += c.dynamo.Read
		out.dynamo.Write += c.dynamo.Write
		out.dynamo.IndexWrite += c.dynamo.IndexWrite
		for op, n := range c.dynamo.Requests {
			out.dynamo.Requests[op] += n
		}
	}
	return out
}

const costHookToken = "cost-hook-token-0123456789"

// costWebhook is the push pipeline of the cost test: the table's stream,
// the push function (with the template's stream filter), the delivery
// queue, the deliver function on the metered table, and a receiver that
// verifies each notification.
type costWebhook struct {
	t         *testing.T
	ctx       context.Context
	url       string
	rcv       *pushtest.Receiver
	stream    *awstest.StreamReader
	filters   []string
	fanout    *serverless.Fanout
	deliverFn *serverless.Deliver
	sqs       *awstest.OpCounter
	queue     string
}

func newCostWebhook(t *testing.T, ctx context.Context, table string, meter dynamo.API) *costWebhook {
	t.Helper()
	env := lambdaEnv(t)
	env["A2A_TASK_STORE_TABLE"] = table
	env["A2A_PUSH_DELIVERY_QUEUE_URL"], env["A2A_PUSH_DEAD_LETTER_QUEUE_URL"] = awstest.Queues(t, awstest.SQS(t), 12)
	_, env["A2A_PUSH_STREAM_DEAD_LETTER_QUEUE_URL"] = awstest.Queues(t, awstest.SQS(t), 1)
	env["A2A_PUSH_SIGNING_KEYS"] = keystest.PEM(t, "cost")
	env["A2A_PUBLIC_URL"] = pipelineIssuer
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	ks, err := keys.Parse([]byte(env["A2A_PUSH_SIGNING_KEYS"]))
	require.NoError(t, err)
	w := &costWebhook{t: t, ctx: ctx, rcv: pushtest.NewReceiver(t, ks, pipelineIssuer), stream: awstest.NewStreamReader(t, table),
		filters: pushStreamFilters(t), sqs: awstest.NewOpCounter(), queue: env["A2A_PUSH_DELIVERY_QUEUE_URL"]}
	w.url = w.rcv.Hook("/hook", pushtest.Behaviour{Token: costHookToken})
	counted := awstest.SQSCall(t, sqscall.Options{HTTPClient: w.sqs.Client(nil)})
	w.fanout, err = pushfn.NewFanout(cfg, counted, nil)
	require.NoError(t, err)
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: pipelineIssuer, Policy: egress.Policy{AllowInsecure: true}})
	require.NoError(t, err)
	store, err := dynamo.New(meter, dynamo.Options{Table: table})
	require.NoError(t, err)
	w.deliverFn, err = deliverfn.NewDeliver(cfg, store, counted, d, nil, nil)
	require.NoError(t, err)
	return w
}

// skip reads past the stream's records so far.
func (w *costWebhook) skip() {
	_, err := w.stream.Read(w.ctx)
	require.NoError(w.t, err)
}

// deliver runs the pipeline on the stream's new records until the
// receiver has want notifications, and counts what it asked of AWS (the
// metered table counts its DynamoDB requests with the task's).
func (w *costWebhook) deliver(want int) taskCost {
	w.sqs.Reset()
	recs, err := w.stream.Read(w.ctx)
	require.NoError(w.t, err)
	var cost taskCost
	var passed []events.DynamoDBEventRecord
	for _, r := range recs {
		ok, err := awstest.FilterPasses(w.filters, r)
		require.NoError(w.t, err)
		if ok {
			passed = append(passed, r)
		}
	}
	cost.pushCalls = len(passed) // one invocation a record, at most
	resp, err := w.fanout.Handle(w.ctx, events.DynamoDBEvent{Records: passed})
	require.NoError(w.t, err)
	require.Empty(w.t, resp.BatchItemFailures)
	jobs := w.sqs.Count("SendMessage") + w.sqs.Count("SendMessageBatch")
	awstest.Pump(w.t, awstest.SQS(w.t), w.queue, func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		cost.deliverCalls++
		return w.deliverFn.Handle(ctx, ev)
	}, 30*time.Second, func() bool { return len(w.rcv.Delivered("/hook")) >= want })
	assert.Len(w.t, w.rcv.Delivered("/hook"), want)
	// The push function's sends and the deliver function's own calls
	// (counted), and the event source mapping's receive and delete of
	// each job (Lambda makes them; its idle polling is in the idle cost).
	for _, n := range w.sqs.Counts() {
		cost.sqs += n
	}
	cost.sqs += 2 * jobs
	return cost
}

// pushStreamFilters returns the filter patterns of the push function's
// stream mapping in template.yaml.
func pushStreamFilters(t *testing.T) []string {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join("..", "..", "..", "template.yaml"))
	require.NoError(t, err)
	var out []string
	for _, f := range tpl.Resources["PushStreamMapping"].Prop("FilterCriteria", "Filters").Content {
		p, ok := samtemplate.Scalar(samtemplate.Get(f, "Pattern"))
		require.True(t, ok)
		out = append(out, p)
	}
	require.NotEmpty(t, out)
	return out
}
