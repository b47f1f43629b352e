package functions_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/lambdaemu"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
)

// deployed is the send and worker functions as deployed: real binaries
// through the Runtime API emulator, the worker also a function of moto's
// Lambda (its asynchronous invocations and the state machine's reach the
// worker binary) and the state machine in moto.
type deployed struct {
	f      *fixture
	send   *lambdaemu.Process
	worker *lambdaemu.Process
	event  []byte
}

// deploy starts the functions in execution mode mode, the send function
// with the blocking budget budget (whole seconds), the demo agent working
// work per step.
func deploy(t *testing.T, mode string, budget, work time.Duration, extra map[string]string) *deployed {
	functions(t)
	d := &deployed{f: newFixture(t)}
	var worker *lambdaemu.Process
	m := sfntest.New(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, _ := io.ReadAll(r.Body)
		rep, err := worker.Emulator.Invoke(r.Context(), payload)
		if err != nil || rep.Kind != lambdaemu.KindResponse {
			w.WriteHeader(http.StatusInternalServerError)
		}
		w.Write(rep.Body)
	}))
	env := func(extra map[string]string) []string {
		e := map[string]string{
			"A2A_EXECUTION":                mode,
			"A2A_STATE_MACHINE_ARN":        m.ARN,
			"A2A_WORKER_FUNCTION":          m.Function,
			"A2A_DEMO_WORK_MS":             int64String(work.Milliseconds()),
			"A2A_BLOCKING_TIMEOUT_SECONDS": int64String(int64(budget / time.Second)),
			"A2A_LOG_LEVEL":                "info",
		}
		for k, v := range d.f.env {
			if _, set := e[k]; !set {
				e[k] = v
			}
		}
		for k, v := range extra {
			e[k] = v
		}
		return environ(e)
	}
	var err error
	// The send function's timeout: the budget and the reserve the inline
	// runner keeps, and a little room, as template.yaml's 29 s is for 25.
	d.send, err = lambdaemu.Start(filepath.Join(binDir, "send"), env(extra), lambdaemu.Options{Timeout: budget + 4*time.Second})
	require.NoError(t, err)
	t.Cleanup(d.send.Stop)
	worker, err = lambdaemu.Start(filepath.Join(binDir, "worker"), env(extra), lambdaemu.Options{Timeout: time.Minute})
	require.NoError(t, err)
	t.Cleanup(worker.Stop)
	d.worker = worker
	for _, p := range []*lambdaemu.Process{d.send, d.worker} {
		_, rep, err := p.Ready(20 * time.Second)
		require.NoError(t, err, "%s", rep.Body)
	}
	d.event, err = os.ReadFile(filepath.Join("..", "events", "send", "jsonrpc-message-send.json"))
	require.NoError(t, err)
	return d
}

func int64String(n int64) string { return strconv.FormatInt(n, 10) }

// sendBlocking sends the sample blocking message/send and returns the task
// answered and how long the send took.
func (d *deployed) sendBlocking(t *testing.T) (a2a.Task, time.Duration) {
	start := time.Now()
	task, rpcErr := d.invokeSend(t, d.event)
	require.Nil(t, rpcErr)
	return task, time.Since(start)
}

// invokeSend invokes the send function with a JSON-RPC event and returns
// its result or its error.
func (d *deployed) invokeSend(t *testing.T, event []byte) (a2a.Task, *a2a.Error) {
	t.Helper()
	rep, err := d.send.Emulator.Invoke(context.Background(), event)
	require.NoError(t, err)
	require.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s\n%s", rep.Body, d.send.Stderr())
	r, body := httpResponse(t, rep.Body)
	require.Equal(t, 200, r.StatusCode, body)
	var rpc struct {
		Result a2a.Task   `json:"result"`
		Error  *a2a.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &rpc), body)
	return rpc.Result, rpc.Error
}

// finished waits for the task to end and returns it.
func (d *deployed) finished(t *testing.T, id string, within time.Duration) *store.TaskRecord {
	var rec *store.TaskRecord
	require.Eventually(t, func() bool {
		var err error
		rec, err = d.f.store.GetTask(context.Background(), id, store.AllHistory)
		return err == nil && rec.Task.Status.State.Terminal()
	}, within, 50*time.Millisecond, "the task ends\nsend: %s\nworker: %s", d.send.Stderr(), d.worker.Stderr())
	return rec
}

// TestStepLongerThanTheRequest: a blocking send whose agent step takes
// three times the request's budget is never failed for it. The send
// answers working within its budget, the step goes on in the worker (an
// asynchronous invocation), and the task completes with the step's
// artifact, nothing in its history saying it failed. And a blocking send
// whose work goes to the worker from the start (stepfunctions mode) waits
// for it with its budget, and answers completed when the step takes less.
func TestStepLongerThanTheRequest(t *testing.T) {
	t.Run("the step outlives the budget", func(t *testing.T) {
		const budget, step = 2 * time.Second, 6 * time.Second
		d := deploy(t, "auto", budget, step, nil)
		task, took := d.sendBlocking(t)
		t.Logf("the send answered %s after %s", task.Status.State, took.Round(time.Millisecond))
		assert.Equal(t, a2a.TaskStateWorking, task.Status.State)
		// Within the budget, the grace a stopped step gets and the hand-over
		// (a write and an invocation, on moto): 2.0-2.1 s on a quiet machine,
		// 3.0-4.4 s seen under a whole-suite load. A send that waited for
		// the step would take all of its 6 s.
		assert.Less(t, took, step-budget/2, "answered at the end of the budget, not of the step")

		rec := d.finished(t, task.ID, 60*time.Second)
		assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State, "send: %s\nworker: %s", d.send.Stderr(), d.worker.Stderr())
		require.NotEmpty(t, rec.Task.Artifacts)
		assert.Equal(t, "echo: hello from API Gateway", a2a.PartsText(rec.Task.Artifacts[0].Parts))
		for _, m := range rec.Task.History {
			assert.NotContains(t, strings.ToLower(m.Text()), "fail", "nothing in the history says failed")
		}
		assert.Zero(t, rec.Takeovers, "handed over, not taken over")
	})
	t.Run("the work goes to the worker and fits the budget", func(t *testing.T) {
		const budget = 6 * time.Second
		d := deploy(t, "stepfunctions", budget, time.Second, nil)
		task, took := d.sendBlocking(t)
		t.Logf("the send answered %s after %s", task.Status.State, took.Round(time.Millisecond))
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State, "send: %s\nworker: %s", d.send.Stderr(), d.worker.Stderr())
		require.NotEmpty(t, task.Artifacts)
		assert.Equal(t, "echo: hello from API Gateway", a2a.PartsText(task.Artifacts[0].Parts))
		assert.Less(t, took, budget)
	})
}

// What a function logs per invocation at the template's defaults
// (A2A_LOG_LEVEL=info, A2A_METRICS=emf): its summary line and its EMF
// line, at most. pkg/internal/app's TestCostPerTask prices the logs of a
// task with the same bounds (CloudWatch Logs bills every byte ingested):
// keep the two in step.
const (
	logBytesPerSend   = 1100 // a send, blocking or not
	logBytesPerPoll   = 950  // a tasks/get (JSON-RPC, or REST with its longer route key)
	logBytesPerWorker = 700  // a worker's run of a step
)

// TestLogBytesPerInvocation measures the log bytes of the send function's
// blocking and non-blocking sends and polls and of the worker's run, as
// the deployed binaries write them, and holds them to the bounds above.
func TestLogBytesPerInvocation(t *testing.T) {
	d := deploy(t, "auto", 5*time.Second, 0, map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "stack-SendFunction-1", "A2A_METRICS": "emf"})
	// quiet waits until p's stderr stopped growing (the pipe from the
	// process caught up, a cold start's lines included) and returns its
	// length.
	quiet := func(p *lambdaemu.Process) int {
		n := len(p.Stderr())
		for range 50 {
			time.Sleep(200 * time.Millisecond)
			if m := len(p.Stderr()); m != n {
				n = m
				continue
			}
			return n
		}
		t.Fatalf("the function's stderr never stopped growing")
		return 0
	}
	logged := func(p *lambdaemu.Process, do func()) int {
		before := quiet(p)
		do()
		return quiet(p) - before
	}
	blocking := logged(d.send, func() { d.sendBlocking(t) })
	nonBlockingEvent := strings.Replace(strings.Replace(string(d.event), `\"blocking\":true`, `\"blocking\":false`, 1),
		"2f4c6e80-1a3b-4c5d-8e9f-0a1b2c3d4e5f", "2f4c6e80-1a3b-4c5d-8e9f-0a1b2c3d4e60", 1)
	require.NotEqual(t, string(d.event), nonBlockingEvent)
	var id string
	run := 0
	nonBlocking := logged(d.send, func() {
		run = logged(d.worker, func() {
			d.event = []byte(nonBlockingEvent)
			task, _ := d.sendBlocking(t)
			id = task.ID
			d.finished(t, id, 30*time.Second)
		})
	})
	get, err := os.ReadFile(filepath.Join("..", "events", "send", "jsonrpc-tasks-get.json"))
	require.NoError(t, err)
	get = []byte(strings.Replace(string(get), "0b8e5d4a-6f1c-4e2b-9a37-5c1d2e3f4a50", id, 1))
	poll := logged(d.send, func() {
		task, rpcErr := d.invokeSend(t, get)
		require.Nil(t, rpcErr)
		assert.Equal(t, id, task.ID)
	})
	t.Logf("log bytes per invocation: blocking send %d, non-blocking send %d, poll %d, worker run %d", blocking, nonBlocking, poll, run)
	t.Logf("send:\n%s\nworker:\n%s", d.send.Stderr(), d.worker.Stderr())
	for _, c := range []struct {
		name     string
		n, bound int
	}{
		{"blocking send", blocking, logBytesPerSend},
		{"non-blocking send", nonBlocking, logBytesPerSend},
		{"poll", poll, logBytesPerPoll},
		{"worker run", run, logBytesPerWorker},
	} {
		assert.Positive(t, c.n, c.name)
		assert.LessOrEqual(t, c.n, c.bound, "%s: pkg/internal/app's cost table assumes at most %d", c.name, c.bound)
	}
}

// An idle stack's cost is mostly its sweep's: an invocation a minute. One
// that finds nothing stuck publishes no metrics (custom metrics are billed
// for every month they are published) and logs only its summary line.
func TestAnIdleSweepPublishesNoMetrics(t *testing.T) {
	functions(t)
	f := newFixture(t)
	e := map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "stack-SweepFunction-1", "A2A_METRICS": "emf", "A2A_LOG_LEVEL": "info"}
	for k, v := range f.env {
		if _, set := e[k]; !set {
			e[k] = v
		}
	}
	sweep, err := lambdaemu.Start(filepath.Join(binDir, "sweep"), environ(e), lambdaemu.Options{})
	require.NoError(t, err)
	defer sweep.Stop()
	_, rep, err := sweep.Ready(20 * time.Second)
	require.NoError(t, err, "%s", rep.Body)
	tick, err := os.ReadFile(filepath.Join("..", "events", "sweep-schedule.json"))
	require.NoError(t, err)
	before := len(sweep.Stderr())
	for range 3 {
		rep, err := sweep.Emulator.Invoke(context.Background(), tick)
		require.NoError(t, err)
		require.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s", rep.Body)
	}
	time.Sleep(300 * time.Millisecond) // the pipe from the process catches up
	out := sweep.Stderr()[before:]
	assert.NotContains(t, out, `"_aws"`, "no EMF metrics")
	// The lines of the ticks carry their invocation's id; a start-up line
	// the pipe delivered late does not.
	var ticks []string
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.Contains(line, `"aws_request_id"`) {
			ticks = append(ticks, line)
		}
	}
	assert.Len(t, ticks, 3, "one summary line a tick:\n%s", out)
	t.Logf("an idle tick logs %d bytes", len(strings.Join(ticks, ""))/3)
}
