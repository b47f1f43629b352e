package telemetry_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

// writes counts the underlying writer's calls.
type writes struct {
	mu    sync.Mutex
	calls int
	b     strings.Builder
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	return w.b.Write(p)
}

func (w *writes) state() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls, w.b.String()
}

// Lines written together reach the writer in one call, in order, the
// delay after the first of them, and not before.
func TestCoalescingWriterWritesABatchAfterTheDelay(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	out := &writes{}
	c := telemetry.NewCoalescingWriter(out, 10*time.Millisecond, clk)
	defer c.Close()

	for _, l := range []string{"one\n", "two\n", "three\n"} {
		n, err := c.Write([]byte(l))
		require.NoError(t, err)
		assert.Equal(t, len(l), n)
	}
	require.Eventually(t, func() bool { return clk.TimerAfter(10 * time.Millisecond) }, 5*time.Second, time.Millisecond, "the flusher waits")
	calls, text := out.state()
	assert.Zero(t, calls, "nothing is written before the delay")
	assert.Empty(t, text)

	clk.Advance(10 * time.Millisecond)
	require.Eventually(t, func() bool { calls, _ := out.state(); return calls == 1 }, 5*time.Second, time.Millisecond)
	_, text = out.state()
	assert.Equal(t, "one\ntwo\nthree\n", text)

	// The next line starts the next batch.
	_, err := c.Write([]byte("four\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return clk.TimerAfter(10 * time.Millisecond) }, 5*time.Second, time.Millisecond)
	clk.Advance(10 * time.Millisecond)
	require.Eventually(t, func() bool { calls, _ := out.state(); return calls == 2 }, 5*time.Second, time.Millisecond)
	_, text = out.state()
	assert.Equal(t, "one\ntwo\nthree\nfour\n", text)
}

// 64 KiB waiting are written at once; Close writes the rest, and what
// comes after Close goes straight through.
func TestCoalescingWriterSizeAndClose(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	out := &writes{}
	c := telemetry.NewCoalescingWriter(out, time.Hour, clk)
	line := strings.Repeat("x", 1023) + "\n"
	for range 64 {
		_, err := c.Write([]byte(line))
		require.NoError(t, err)
	}
	calls, text := out.state()
	assert.Equal(t, 1, calls, "64 KiB are written without waiting")
	assert.Len(t, text, 64<<10)

	_, err := c.Write([]byte("tail\n"))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	calls, text = out.state()
	assert.Equal(t, 2, calls)
	assert.True(t, strings.HasSuffix(text, line+"tail\n"))

	_, err = c.Write([]byte("after\n"))
	require.NoError(t, err)
	calls, text = out.state()
	assert.Equal(t, 3, calls, "after Close a line is written at once")
	assert.True(t, strings.HasSuffix(text, "tail\nafter\n"))
	require.NoError(t, c.Close(), "closing twice is harmless")
}

// Concurrent writers' lines arrive whole.
func TestCoalescingWriterKeepsLinesWhole(t *testing.T) {
	out := &writes{}
	c := telemetry.NewCoalescingWriter(out, time.Millisecond, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := strings.Repeat(string(rune('a'+g)), 99) + "\n"
			for range 200 {
				_, _ = c.Write([]byte(line))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, c.Close())
	_, text := out.state()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	assert.Len(t, lines, 1600)
	for _, l := range lines {
		assert.Equal(t, strings.Repeat(l[:1], 99), l)
	}
}
