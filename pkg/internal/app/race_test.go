package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// gateAgent holds every step until its task's gate opens, then completes
// the task with an answer and an artifact.
type gateAgent struct {
	entered chan string
	gates   map[string]chan struct{}
}

func (g *gateAgent) Info() agent.Info { return agent.Info{Name: "gate"} }

func (g *gateAgent) Step(ctx context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	g.entered <- in.Task.ID
	select {
	case <-g.gates[in.Task.ID]:
	case <-ctx.Done():
		return agent.Outcome{}, ctx.Err()
	}
	return agent.Complete(agent.Text("done"), a2a.Artifact{ArtifactID: "result", Parts: []a2a.Part{a2a.TextPart("42")}}), nil
}

// 50 live tasks, each with a client canceling it (through the send
// function) while its worker completes it: every task ends in exactly one
// terminal state, and each side was told the truth: the canceler got the
// canceled task or -32002, the worker stored completed or learnt that the
// task was already terminal.
func TestCancelCompleteRace(t *testing.T) {
	const pairs = 50
	env := lambdaEnv(t)
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	ts := storeOf(t, env)
	gate := &gateAgent{entered: make(chan string, pairs), gates: map[string]chan struct{}{}}
	h, err := httpfn.NewHandler(cfg, gate, ts, httpfn.Options{Routes: httpapi.RoutesRPC})
	require.NoError(t, err)
	send := boot.LambdaHTTP(h, nil)
	worker := engine.NewExecutor(ts, gate, engine.Options{})
	ctx := context.Background()

	ids := make([]string, pairs)
	for i := range ids {
		ids[i] = fmt.Sprintf("race-%02d", i)
		gate.gates[ids[i]] = make(chan struct{})
		createTask(t, ts, ids[i], a2a.TaskStateSubmitted)
	}
	// The workers start their steps: each task goes working and its agent
	// waits at its gate.
	steps := make([]engine.StepResult, pairs)
	stepErrs := make([]error, pairs)
	var workers sync.WaitGroup
	for i, id := range ids {
		workers.Go(func() {
			steps[i], stepErrs[i] = worker.Step(ctx, engine.Job{TaskID: id})
		})
	}
	for range pairs {
		select {
		case <-gate.entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the workers did not all start")
		}
	}

	// Then, at once, every canceler sends tasks/cancel and every gate opens.
	cancels := make([]events.APIGatewayV2HTTPResponse, pairs)
	cancelErrs := make([]error, pairs)
	start := make(chan struct{})
	var racers sync.WaitGroup
	for i, id := range ids {
		racers.Go(func() {
			ev := loadEvent(t, "send/jsonrpc-tasks-cancel.json")
			ev.Body = fmt.Sprintf(`{"jsonrpc":"2.0","id":"cancel-%d","method":"tasks/cancel","params":{"id":%q}}`, i, id)
			<-start
			cancels[i], cancelErrs[i] = send(ctx, ev)
		})
		racers.Go(func() {
			<-start
			// Spread the completions over the cancels, so that both win
			// some races.
			time.Sleep(time.Duration(i%10) * 100 * time.Millisecond)
			close(gate.gates[id])
		})
	}
	close(start)
	racers.Wait()
	workers.Wait()

	canceled, completed := 0, 0
	for i, id := range ids {
		require.NoError(t, stepErrs[i], "worker of %s", id)
		require.NoError(t, cancelErrs[i], "canceler of %s", id)
		var r rpcResponse
		require.NoError(t, json.Unmarshal([]byte(cancels[i].Body), &r), "canceler of %s", id)
		rec, err := ts.GetTask(ctx, id, store.AllHistory)
		require.NoError(t, err)
		final := rec.Task.Status.State
		assert.Equal(t, engine.NextDone, steps[i].Next, "worker of %s", id)
		assert.Equal(t, final, steps[i].State, "the worker of %s was told another state than the stored one", id)

		if r.Error == nil {
			var task a2a.Task
			require.NoError(t, json.Unmarshal(r.Result, &task))
			assert.Equal(t, a2a.TaskStateCanceled, task.Status.State, "canceler of %s", id)
			assert.Equal(t, a2a.TaskStateCanceled, final, "%s: the canceler was told canceled", id)
			assert.Empty(t, rec.Task.Artifacts, "%s: the canceled task got the worker's artifact", id)
			canceled++
		} else {
			assert.Equal(t, int(a2a.CodeTaskNotCancelable), r.Error.Code, "canceler of %s: %s", id, r.Error.Message)
			assert.Equal(t, a2a.TaskStateCompleted, final, "%s: the canceler was told it was too late", id)
			assert.Len(t, rec.Task.Artifacts, 1)
			completed++
		}
	}
	assert.Equal(t, pairs, canceled+completed)
	t.Logf("%d pairs: %d canceled first, %d completed first", pairs, canceled, completed)
}
