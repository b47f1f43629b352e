package runner_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner/runnertest"
)

// Work given at once runs at once, each on a goroutine of its own; the
// goroutines then wait for more, up to the bound, and later work runs on
// one of them; closing done ends them.
func TestGoroutinesWaitForMoreUpToABound(t *testing.T) {
	var begun, ran atomic.Int32
	done := make(chan struct{})
	g := runner.NewGoroutines(16, func(gate chan struct{}) {
		begun.Add(1)
		<-gate
		ran.Add(1)
	}, done)
	release, later := make(chan struct{}), make(chan struct{})
	const n = 40 // more than the goroutines kept
	for range n {
		g.Go(release)
	}
	require.Eventually(t, func() bool { return begun.Load() == n }, 5*time.Second, time.Millisecond)
	assert.Equal(t, n, count(), "every function runs at once")
	close(release)
	require.Eventually(t, func() bool { return ran.Load() == n && count() == 16 && waiting() == 16 }, 5*time.Second, time.Millisecond,
		"16 goroutines wait for work, the others end")

	g.Go(later)
	require.Eventually(t, func() bool { return begun.Load() == n+1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 16, count(), "the later function runs on a goroutine that waited, not a new one")
	close(later)
	require.Eventually(t, func() bool { return ran.Load() == n+1 }, 5*time.Second, time.Millisecond)

	close(done)
	require.Eventually(t, func() bool { return count() == 0 }, 5*time.Second, time.Millisecond, "closing done ends the goroutines that wait")
	open := make(chan struct{})
	close(open)
	g.Go(open)
	require.Eventually(t, func() bool { return ran.Load() == n+2 && count() == 0 }, 5*time.Second, time.Millisecond,
		"Go after done still runs the work, on a goroutine that then ends")
}

// count counts the goroutines in the process that Goroutines started, and
// waiting those of them that wait for work, by their stacks.
func count() int   { c, _ := counts(); return c }
func waiting() int { _, w := counts(); return w }

func counts() (all, waiting int) {
	for s := range strings.SplitSeq(runnertest.Stacks(), "\n\n") {
		if strings.Contains(s, "created by github.com/a2a-lambda/a2a-lambda/pkg/internal/runner.(*Goroutines[...]).Go") {
			all++
			if runnertest.WaitsForWork(s) {
				waiting++
			}
		}
	}
	return all, waiting
}
