package telemetry_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
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

// A line after a quiet delay is written at once; lines that follow it
// within the delay reach the writer in one call, in order, the delay after
// the first of them, and not before.
func TestCoalescingWriterWritesABatchAfterTheDelay(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	out := &writes{}
	c := telemetry.NewCoalescingWriter(out, 10*time.Millisecond, clk)
	defer c.Close()
	write := func(l string) {
		t.Helper()
		n, err := c.Write([]byte(l))
		require.NoError(t, err)
		assert.Equal(t, len(l), n)
	}
	flushed := func(calls int) {
		t.Helper()
		require.Eventually(t, func() bool { return clk.TimerAfter(10 * time.Millisecond) }, 5*time.Second, time.Millisecond, "the flusher waits")
		clk.Advance(10 * time.Millisecond)
		require.Eventually(t, func() bool { n, _ := out.state(); return n == calls }, 5*time.Second, time.Millisecond)
	}

	write("zero\n")
	calls, text := out.state()
	assert.Equal(t, 1, calls, "a line after a quiet delay is written at once")
	assert.Equal(t, "zero\n", text)

	for _, l := range []string{"one\n", "two\n", "three\n"} {
		write(l)
	}
	calls, _ = out.state()
	assert.Equal(t, 1, calls, "lines that follow within the delay wait")
	flushed(2)
	_, text = out.state()
	assert.Equal(t, "zero\none\ntwo\nthree\n", text)

	// Right after a batch, the next line starts the next batch.
	write("four\n")
	flushed(3)
	_, text = out.state()
	assert.Equal(t, "zero\none\ntwo\nthree\nfour\n", text)

	// A quiet delay later, a line is written at once again.
	clk.Advance(10 * time.Millisecond)
	write("five\n")
	calls, text = out.state()
	assert.Equal(t, 4, calls)
	assert.True(t, strings.HasSuffix(text, "four\nfive\n"))
}

// 64 KiB waiting are written at once; Close writes the rest, and what
// comes after Close goes straight through.
func TestCoalescingWriterSizeAndClose(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	out := &writes{}
	c := telemetry.NewCoalescingWriter(out, time.Hour, clk)
	_, err := c.Write([]byte("first\n"))
	require.NoError(t, err)
	line := strings.Repeat("x", 1023) + "\n"
	for range 64 {
		_, err := c.Write([]byte(line))
		require.NoError(t, err)
	}
	calls, text := out.state()
	assert.Equal(t, 2, calls, "the first line at once, then 64 KiB without waiting")
	assert.Len(t, text, len("first\n")+64<<10)

	_, err = c.Write([]byte("tail\n"))
	require.NoError(t, err)
	require.NoError(t, c.Close())
	calls, text = out.state()
	assert.Equal(t, 3, calls)
	assert.True(t, strings.HasSuffix(text, line+"tail\n"))

	_, err = c.Write([]byte("after\n"))
	require.NoError(t, err)
	calls, text = out.state()
	assert.Equal(t, 4, calls, "after Close a line is written at once")
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
