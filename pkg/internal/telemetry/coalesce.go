package telemetry

import (
	"io"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
)

// maxCoalesced is the most a CoalescingWriter gathers before it writes
// without waiting.
const maxCoalesced = 64 << 10

// keptCoalesced is the capacity of the buffer a CoalescingWriter keeps
// from batch to batch (a batch ends with the line that crosses
// maxCoalesced); a larger one, grown by an unusually long line, is let go
// after its batch.
const keptCoalesced = maxCoalesced + 16<<10

// CoalescingWriter writes a line at once when nothing was written for a
// short delay, and otherwise gathers lines and writes them in one call the
// delay after the first of them (or at once when 64 KiB wait): a quiet
// server's lines appear as they come, a busy server makes one write per
// batch of lines instead of one per line (on a small request the write of
// its summary line costs as much as formatting it). A line reaches the
// underlying writer whole, in order, at most the delay late. Close writes
// what waits; lines written after Close go straight through.
//
// The local server's logs go through one. A Lambda function's must not:
// Lambda freezes the process when the invocation returns.
type CoalescingWriter struct {
	w     io.Writer
	clock clock.Clock
	delay time.Duration

	mu     sync.Mutex
	buf    []byte
	closed bool
	// last is when the underlying writer was last written.
	last time.Time

	// pending tells the flusher that something waits (capacity 1).
	pending chan struct{}
	done    chan struct{}
	stopped chan struct{}
}

// NewCoalescingWriter returns a CoalescingWriter over w that writes at
// most delay after a write (clk nil: the system clock).
func NewCoalescingWriter(w io.Writer, delay time.Duration, clk clock.Clock) *CoalescingWriter {
	c := &CoalescingWriter{w: w, clock: clock.Or(clk), delay: delay, buf: make([]byte, 0, keptCoalesced),
		pending: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	go c.flusher()
	return c
}

// Write gathers p; an error is the underlying writer's, when p made the
// writer write at once.
func (c *CoalescingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.closed {
		defer c.mu.Unlock()
		return c.w.Write(p)
	}
	first := len(c.buf) == 0
	if first {
		if now := c.clock.Now(); now.Sub(c.last) >= c.delay {
			defer c.mu.Unlock()
			c.last = now
			return c.w.Write(p)
		}
	}
	c.buf = append(c.buf, p...)
	var err error
	if len(c.buf) >= maxCoalesced {
		err = c.flushLocked()
	}
	c.mu.Unlock()
	if first {
		select {
		case c.pending <- struct{}{}:
		default:
		}
	}
	return len(p), err
}

// Flush writes what waits.
func (c *CoalescingWriter) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushLocked()
}

func (c *CoalescingWriter) flushLocked() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.w.Write(c.buf)
	c.last = c.clock.Now()
	if cap(c.buf) > keptCoalesced {
		c.buf = make([]byte, 0, keptCoalesced)
	} else {
		c.buf = c.buf[:0]
	}
	return err
}

// Close stops the flusher and writes what waits.
func (c *CoalescingWriter) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	close(c.done)
	<-c.stopped
	return c.Flush()
}

// flusher writes what waits the delay after it is signalled.
func (c *CoalescingWriter) flusher() {
	defer close(c.stopped)
	for {
		select {
		case <-c.done:
			return
		case <-c.pending:
		}
		t := c.clock.NewTimer(c.delay)
		select {
		case <-c.done:
			t.Stop()
			return
		case <-t.C():
		}
		_ = c.Flush() // the lines' writer has no one to report to
	}
}
