package local_test

import (
	"testing"

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
