package local_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
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

// steps is an Executor whose steps wait for release, then end the task;
// it records the goroutine each step ran on.
type steps struct {
	ran     atomic.Int32
	release chan struct{}
	mu      sync.Mutex
	ids     []string
}

func (s *steps) Step(ctx context.Context, _ engine.Job) (engine.StepResult, error) {
	s.mu.Lock()
	s.ids = append(s.ids, runnertest.GoroutineID())
	s.mu.Unlock()
	select {
	case <-s.release:
	case <-ctx.Done():
		return engine.StepResult{}, ctx.Err()
	}
	s.ran.Add(1)
	return engine.StepResult{Next: engine.NextDone}, nil
}

func (s *steps) goroutines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ids)
}

func (s *steps) Await(context.Context, engine.AwaitRequest) (engine.StepResult, error) {
	return engine.StepResult{Next: engine.NextDone}, nil
}

func (s *steps) Expire(context.Context, string, string) (engine.StepResult, error) {
	return engine.StepResult{Next: engine.NextDone}, nil
}

// Tasks started at once each run at once, on a goroutine of their own; the
// goroutines then wait for more (runner.Goroutines), a later task runs on
// one of them, and closing the runner ends them.
func TestWorkersWaitForMore(t *testing.T) {
	exec := &steps{release: make(chan struct{})}
	r := local.New(exec, local.Options{})
	const tasks = 3
	for i := range tasks {
		require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: fmt.Sprintf("t%d", i)}))
	}
	require.Eventually(t, func() bool { return len(exec.goroutines()) == tasks }, 5*time.Second, time.Millisecond, "every task runs at once")
	first := exec.goroutines()
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(first))), tasks, "each on a goroutine of its own")
	close(exec.release)
	require.Eventually(t, func() bool { return exec.ran.Load() == tasks }, 5*time.Second, time.Millisecond)
	for _, id := range first {
		require.Eventually(t, func() bool { return runnertest.Waiting(id) }, 5*time.Second, time.Millisecond, "the goroutines wait for work")
	}

	require.NoError(t, r.Start(context.Background(), engine.Job{TaskID: "later"}))
	require.Eventually(t, func() bool { return exec.ran.Load() == tasks+1 }, 5*time.Second, time.Millisecond)
	assert.Contains(t, first, exec.goroutines()[tasks], "the later task ran on a goroutine that waited")

	r.Close()
	for _, id := range first {
		require.Eventually(t, func() bool { return !runnertest.Alive(id) }, 5*time.Second, time.Millisecond, "closing the runner ends the goroutines that wait")
	}
}
