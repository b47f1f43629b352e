// Package readdeadline serves the read deadlines of a listener's
// connections from one goroutine that looks at them a few times a second,
// instead of a runtime timer set, moved and stopped for each.
//
// net/http sets a connection's read deadline three times a request when a
// server has read and idle timeouts (for the headers, the whole request,
// then the wait for the next one) and clears it twice more around the
// handler: each a timer taken out of and put back into the runtime's heap
// under its lock. For a small request that is a twentieth of the server's
// work. Here setting a deadline stores a number; the watcher enforces the
// deadlines that passed, at most one resolution late, by giving the real
// connection a deadline in the past, which ends a pending read with the
// timeout error a deadline gives. A deadline set in the past (what net/http
// uses to interrupt a read at once) reaches the real connection at once.
package readdeadline

import (
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// expired marks a connection whose deadline the watcher enforced: its real
// connection holds a deadline in the past until the next one is set.
const expired = math.MinInt64

var (
	// aLongTimeAgo is the deadline that ends a pending read at once.
	aLongTimeAgo = time.Unix(1, 0)
	// farAway is later than any deadline worth a timer, and within what
	// UnixNano holds.
	farAway = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Listener is a net.Listener whose connections' read deadlines are
// enforced by its watcher, every resolution. Write deadlines and the
// rest of a connection are the wrapped connection's own.
type Listener struct {
	net.Listener
	resolution time.Duration

	mu    sync.Mutex
	conns map[*conn]struct{}
	// lastCheck is when the watcher last looked, in Unix nanoseconds: a
	// deadline before it has passed for certain.
	lastCheck atomic.Int64
	started   bool
	done      chan struct{}
	closeOnce sync.Once
	// stopped is set when the watcher stops: deadlines go to the real
	// connections from then on.
	stopped atomic.Bool
}

// Wrap returns ln with read deadlines enforced at most resolution late.
// The watcher starts with the first connection and stops when the
// listener is closed.
func Wrap(ln net.Listener, resolution time.Duration) *Listener {
	l := &Listener{Listener: ln, resolution: resolution, conns: map[*conn]struct{}{}, done: make(chan struct{})}
	l.lastCheck.Store(time.Now().UnixNano())
	return l
}

// Accept waits for the next connection and watches its read deadline.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	wc := &conn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[wc] = struct{}{}
	if !l.started {
		l.started = true
		go l.watch()
	}
	l.mu.Unlock()
	return wc, nil
}

// Close closes the listener and stops the watcher; connections accepted
// keep their deadlines until they close.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (l *Listener) watch() {
	t := time.NewTicker(l.resolution)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			// Enforce what is left as real deadlines: the connections
			// open outlive the watcher (a server shutting down waits for
			// them).
			l.stopped.Store(true)
			l.mu.Lock()
			for c := range l.conns {
				c.release()
			}
			l.mu.Unlock()
			return
		case now := <-t.C:
			l.check(now)
		}
	}
}

// check enforces the deadlines passed at now.
func (l *Listener) check(now time.Time) {
	n := now.UnixNano()
	l.lastCheck.Store(n)
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		if d := c.deadline.Load(); d != 0 && d != expired && d <= n {
			c.expire(d)
		}
	}
}

func (l *Listener) forget(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

type conn struct {
	net.Conn
	l *Listener
	// deadline is the read deadline in Unix nanoseconds, 0 for none, or
	// expired: the real connection holds a deadline of its own (until
	// the watcher stops, one that has passed).
	deadline atomic.Int64
	// mu orders giving the real connection a deadline (expire, a
	// deadline in the past, release) with taking it back.
	mu sync.Mutex
	// released reports that the watcher stopped: deadlines go to the
	// real connection. Under mu.
	released bool
}

// SetReadDeadline stores t for the watcher; a deadline already passed,
// or set after the watcher stopped, goes to the real connection at once.
func (c *conn) SetReadDeadline(t time.Time) error {
	var n int64
	switch {
	case t.IsZero():
	case t.Before(aLongTimeAgo):
		return c.setReal(t)
	case t.After(farAway):
		n = math.MaxInt64 // never, in effect
	default:
		if n = t.UnixNano(); n < c.l.lastCheck.Load() {
			return c.setReal(t)
		}
	}
	if c.l.stopped.Load() {
		return c.setReal(t)
	}
	if old := c.deadline.Swap(n); old == expired {
		return c.clearReal()
	}
	return nil
}

// SetDeadline sets both deadlines: the read one as SetReadDeadline does.
func (c *conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

// Close closes the connection and stops watching it.
func (c *conn) Close() error {
	c.l.forget(c)
	return c.Conn.Close()
}

// setReal gives the real connection deadline t now.
func (c *conn) setReal(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline.Store(expired)
	return c.Conn.SetReadDeadline(t)
}

// clearReal takes back the deadline expire or setReal gave the real
// connection, once a new one is stored; after the watcher stopped, it
// gives the real connection the new one.
func (c *conn) clearReal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return c.handOver()
	}
	if c.deadline.Load() == expired {
		return nil // enforced again since
	}
	return c.Conn.SetReadDeadline(time.Time{})
}

// expire enforces deadline d, unless another was set since.
func (c *conn) expire(d int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || !c.deadline.CompareAndSwap(d, expired) {
		return
	}
	_ = c.Conn.SetReadDeadline(aLongTimeAgo)
}

// release hands the stored deadline to the real connection when the
// watcher stops; a deadline stored later finds expired and is handed over
// too (clearReal).
func (c *conn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.released = true
	_ = c.handOver()
}

// handOver gives the stored deadline to the real connection. Callers hold
// c.mu.
func (c *conn) handOver() error {
	d := c.deadline.Swap(expired)
	switch d {
	case expired:
		return nil
	case 0:
		return c.Conn.SetReadDeadline(time.Time{})
	}
	return c.Conn.SetReadDeadline(time.Unix(0, d))
}
