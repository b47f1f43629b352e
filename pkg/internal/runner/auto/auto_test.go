package auto_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/lambdainvoke"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/async"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/auto"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/runnertest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/stepfunctions"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/worker"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sfntest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// recorder records the jobs and cancels a runner gets; a machine recorder
// answers replies with err.
type recorder struct {
	started  []engine.Job
	canceled []engine.CancelRequest
	err      error
}

func (r *recorder) Start(_ context.Context, j engine.Job) error {
	r.started = append(r.started, j)
	if j.TaskToken != "" {
		return r.err
	}
	return nil
}

func (r *recorder) Cancel(_ context.Context, c engine.CancelRequest) error {
	r.canceled = append(r.canceled, c)
	return nil
}

// Each job goes where it costs least: a blocking send's step in the
// request (auto mode), a step to run now to the asynchronous path, a reply
// to the execution waiting on its token, a wait or an interrupt to a new
// execution; a first step never to Step Functions.
func TestRouting(t *testing.T) {
	ctx := context.Background()
	blocking := engine.Job{TaskID: "t1", Blocking: true}
	nonBlocking := engine.Job{TaskID: "t2"}
	reply := engine.Job{TaskID: "t3", Reply: &agent.Reply{RequestID: "r1"}, TaskToken: "tok"}
	tokenless := engine.Job{TaskID: "t4", Reply: &agent.Reply{RequestID: "r2"}}
	takeover := engine.Job{TaskID: "t5", Takeover: 1, Trigger: store.TriggerContinue}
	wait := engine.Job{TaskID: "t6", Resume: &engine.Resume{After: time.Minute, Version: 3}}
	interrupt := engine.Job{TaskID: "t7", Resume: &engine.Resume{AwaitRequestID: "r3", Version: 2}}
	jobs := []engine.Job{blocking, nonBlocking, reply, tokenless, takeover, wait, interrupt}

	t.Run("auto", func(t *testing.T) {
		steps, machine, in := &recorder{}, &recorder{}, &recorder{}
		r := auto.New(steps, machine)
		r.RunInline(in)
		for _, j := range jobs {
			require.NoError(t, r.Start(ctx, j))
		}
		require.NoError(t, r.Cancel(ctx, engine.CancelRequest{TaskID: "t1", ExecutionARN: "arn"}))
		assert.Equal(t, []engine.Job{blocking}, in.started, "a blocking send's step runs in the request")
		assert.Equal(t, []engine.Job{nonBlocking, tokenless, takeover}, steps.started, "steps to run now go to the worker")
		assert.Equal(t, []engine.Job{reply, wait, interrupt}, machine.started, "replies, waits and interrupts go to Step Functions")
		assert.Equal(t, []engine.CancelRequest{{TaskID: "t1", ExecutionARN: "arn"}}, machine.canceled)
	})
	t.Run("stepfunctions", func(t *testing.T) {
		steps, machine := &recorder{}, &recorder{}
		r := auto.New(steps, machine)
		for _, j := range jobs {
			require.NoError(t, r.Start(ctx, j))
		}
		assert.Equal(t, []engine.Job{blocking, nonBlocking, tokenless, takeover}, steps.started, "no step runs in a request")
		assert.Equal(t, []engine.Job{reply, wait, interrupt}, machine.started)
	})
	t.Run("a reply no execution waits for runs on the asynchronous path", func(t *testing.T) {
		steps, machine := &recorder{}, &recorder{err: stepfunctions.ErrNotWaiting}
		r := auto.New(steps, machine)
		require.NoError(t, r.Start(ctx, reply))
		assert.Equal(t, []engine.Job{reply}, machine.started)
		assert.Equal(t, []engine.Job{{TaskID: "t3", Reply: reply.Reply}}, steps.started)
	})
	t.Run("a function without a worker starts no step", func(t *testing.T) {
		r := auto.New(nil, &recorder{})
		assert.ErrorContains(t, r.Start(ctx, nonBlocking), "A2A_WORKER_FUNCTION")
		assert.NoError(t, r.Start(ctx, wait))
	})
}

// The runner of the Lambda functions (stepfunctions mode: the asynchronous
// path and the state machine), on moto: the worker function, invoked
// asynchronously for a task's first step and by the state machine for the
// rest, is bridged to the real worker handler. The executor and the service
// tell the time with the injected clock, so a reply is taken or refused by
// it, whatever the state machine's timer says.
func TestFollowsTheClock(t *testing.T) {
	runnertest.Run(t, func(t *testing.T, exec *engine.Executor, clk *clocktest.Clock) engine.Runner {
		var w *worker.Handler
		m := sfntest.New(t, sfntest.Bridge(func(ctx context.Context, ev worker.Event) (worker.Result, error) { return w.Handle(ctx, ev) }))
		machine, err := stepfunctions.New(m.API, stepfunctions.Options{StateMachineARN: m.ARN, InterruptTTL: runnertest.InterruptTTL})
		require.NoError(t, err)
		w = worker.New(exec, machine, nil)
		inv, err := lambdainvoke.New(awstest.Config(t), lambdainvoke.Options{})
		require.NoError(t, err)
		steps, err := async.New(inv, m.Function, nil)
		require.NoError(t, err)
		return auto.New(steps, machine)
	}, runnertest.Options{})
}

func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, "^TestFollowsTheClock$") }
