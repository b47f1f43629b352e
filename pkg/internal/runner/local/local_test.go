package local_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/runnertest"
)

// The local runner times everything itself: the waits between steps and
// the interrupts' expiry, both on the injected clock.
func TestFollowsTheClock(t *testing.T) {
	runnertest.Run(t, func(t *testing.T, exec *engine.Executor, clk *clocktest.Clock) engine.Runner {
		r := local.New(exec, local.Options{Clock: clk})
		t.Cleanup(r.Close)
		return r
	}, runnertest.Options{ExpiresInterrupts: true, WaitsOnTheClock: true})
}

func TestAcrossEpochs(t *testing.T) { clocktest.RunAcrossEpochs(t, ".") }

// steps is an Executor whose steps wait for release, then end the task.
type steps struct {
	ran     atomic.Int32
	release chan struct{}
}

func (s *steps) Step(ctx context.Context, _ engine.Job) (engine.StepResult, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return engine.StepResult{}, ctx.Err()
	}
	s.ran.Add(1)
	return engine.StepResult{Next: engine.NextDone}, nil
}

func (s *steps) Await(context.Context, engine.AwaitRequest) (engine.StepResult, error) {
	return engine.StepResult{Next: engine.NextDone}, nil
}

func (s *steps) Expire(context.Context, string, string) (engine.StepResult, error) {
	return engine.StepResult{Next: engine.NextDone}, nil
}

// The goroutines that ran steps wait for more, up to a bound, and end
// with the runner: tasks started at once each run at once, in their own
// goroutine, and a later task runs in one of those that wait.
func TestWorkersWaitForMoreUpToABound(t *testing.T) {
	exec := &steps{release: make(chan struct{})}
	r := local.New(exec, local.Options{})
	const tasks = 40 // more than the goroutines kept
	for i := range tasks {
		require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: fmt.Sprintf("t%d", i)}))
	}
	assert.Equal(t, tasks, workers(), "every task runs at once")
	close(exec.release)
	require.Eventually(t, func() bool { return exec.ran.Load() == tasks }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return workers() == 16 }, 5*time.Second, time.Millisecond,
		"16 goroutines wait for work, the others end")

	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "later"}))
	require.Eventually(t, func() bool { return exec.ran.Load() == tasks+1 }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return workers() == 16 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 16, workers(), "the later task ran in a goroutine that waited")

	r.Close()
	assert.Zero(t, workers(), "closing the runner ends the goroutines that wait")
}

// workers counts the runner's goroutines in the process: those Start
// created, by their stacks.
func workers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "created by github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/local.(*Runner).Start")
		}
		buf = make([]byte, 2*len(buf))
	}
}
