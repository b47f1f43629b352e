package runner_test

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/runner"
)

// Functions run at once, each on a goroutine of its own; the goroutines
// then wait for more, up to the bound, and a later function runs on one
// of them; Close ends them.
func TestGoroutinesWaitForMoreUpToABound(t *testing.T) {
	var begun, ran atomic.Int32
	g := runner.NewGoroutines(16, func(gate chan struct{}) {
		begun.Add(1)
		<-gate
		ran.Add(1)
	})
	release, later := make(chan struct{}), make(chan struct{})
	const n = 40 // more than the goroutines kept
	for range n {
		g.Go(release)
	}
	require.Eventually(t, func() bool { return begun.Load() == n }, 5*time.Second, time.Millisecond)
	assert.Equal(t, n, count(), "every function runs at once")
	close(release)
	require.Eventually(t, func() bool { return ran.Load() == n && count() == 16 }, 5*time.Second, time.Millisecond,
		"16 goroutines wait for work, the others end")

	g.Go(later)
	require.Eventually(t, func() bool { return begun.Load() == n+1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 16, count(), "the later function runs on a goroutine that waited, not a new one")
	close(later)
	require.Eventually(t, func() bool { return ran.Load() == n+1 }, 5*time.Second, time.Millisecond)

	g.Close()
	require.Eventually(t, func() bool { return count() == 0 }, 5*time.Second, time.Millisecond, "Close ends the goroutines that wait")
	open := make(chan struct{})
	close(open)
	g.Go(open)
	require.Eventually(t, func() bool { return ran.Load() == n+2 }, 5*time.Second, time.Millisecond, "Go after Close still runs the work")
	g.Close()
}

// count counts the goroutines in the process that Goroutines started, by
// their stacks.
func count() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "created by github.com/a2a-lambda/a2a-lambda/pkg/internal/runner.(*Goroutines[...]).Go")
		}
		buf = make([]byte, 2*len(buf))
	}
}
