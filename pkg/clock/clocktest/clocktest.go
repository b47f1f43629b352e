// Package clocktest provides the fake clock every test drives time with.
//
// A Clock starts at the instant a test chooses and moves only when told to
// (Advance, Set), or by a fixed tick on every reading when the test wants
// distinct, ordered timestamps (WithTick). Its timers fire when the clock
// reaches them, whatever the wall clock says.
//
// Start gives the instant a suite's fake clocks start from. It is a fixed
// date, or the one in the CLOCKTEST_START environment variable, so that
// RunAcrossEpochs can run a whole suite again far in the past and far in
// the future: a test that depends on today's date fails there.
package clocktest

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
)

// Clock is a fake clock.Clock. It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	tick   time.Duration
	timers []*timer
}

var _ clock.Clock = (*Clock)(nil)

// Option configures a Clock.
type Option func(*Clock)

// WithTick makes every reading of Now move the clock forward by d first,
// so that no two readings are equal.
func WithTick(d time.Duration) Option { return func(c *Clock) { c.tick = d } }

// New returns a clock stopped at start.
func New(start time.Time, opts ...Option) *Clock {
	c := &Clock{now: start}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Now implements clock.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tick > 0 {
		c.moveTo(c.now.Add(c.tick))
	}
	return c.now
}

// Advance moves the clock forward by d, firing the timers it reaches.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveTo(c.now.Add(d))
}

// Set moves the clock to t (forward or back), firing the timers it reaches.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveTo(t)
}

// Timers is the number of timers waiting to fire: a test waits for a
// goroutine to be waiting on the clock before it moves the clock.
func (c *Clock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// TimerAt reports whether a timer waits to fire at t: a test that knows
// when a goroutine's wait ends waits for that wait, which another
// goroutine's timer on the same clock cannot stand in for.
func (c *Clock) TimerAt(t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tm := range c.timers {
		if tm.at.Equal(t) {
			return true
		}
	}
	return false
}

// TimerAfter reports whether a timer waits to fire d or more from now,
// without moving the clock: a test that knows only how long a goroutine
// waits (not from when, as with WithTick) tells that wait from shorter
// ones on the same clock.
func (c *Clock) TimerAfter(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tm := range c.timers {
		if tm.at.Sub(c.now) >= d {
			return true
		}
	}
	return false
}

// NewTimer implements clock.Clock.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{clock: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// moveTo sets the time and fires the timers due, in the order of their
// instants. c.mu is held.
func (c *Clock) moveTo(t time.Time) {
	c.now = t
	sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	n := 0
	for _, tm := range c.timers {
		if tm.at.After(t) {
			c.timers[n] = tm
			n++
			continue
		}
		tm.ch <- t
	}
	clear(c.timers[n:])
	c.timers = c.timers[:n]
}

type timer struct {
	clock *Clock
	at    time.Time
	ch    chan time.Time
}

func (t *timer) C() <-chan time.Time { return t.ch }

func (t *timer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, tm := range c.timers {
		if tm == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// EnvStart names the environment variable that overrides Start (RFC 3339).
const EnvStart = "CLOCKTEST_START"

// DefaultStart is the instant suites start from unless EnvStart says
// otherwise. It is fixed: nothing in a test may read today's date.
func DefaultStart() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

// Epochs are the instants RunAcrossEpochs runs a suite at: far in the past
// and far in the future, each 30 s before a year's (or a leap day's) end.
func Epochs() []time.Time {
	return []time.Time{
		time.Date(2020, 2, 29, 23, 59, 30, 0, time.UTC),
		time.Date(2031, 12, 31, 23, 59, 30, 0, time.UTC),
	}
}

// Start returns the instant a suite's fake clocks start from.
func Start(tb testing.TB) time.Time {
	tb.Helper()
	v := os.Getenv(EnvStart)
	if v == "" {
		return DefaultStart()
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		tb.Fatalf("clocktest: %s=%q is not an RFC 3339 time: %v", EnvStart, v, err)
	}
	return t
}

// RunAcrossEpochs runs the tests of the calling package that match pattern
// again, in a child process of the test binary, once for every instant of
// Epochs (as Start), and fails t with the child's output if any fails. In
// the child it does nothing, so that it does not run itself.
func RunAcrossEpochs(t *testing.T, pattern string) {
	t.Helper()
	if os.Getenv(EnvStart) != "" {
		return
	}
	for _, at := range Epochs() {
		t.Run(at.Format("2006-01-02"), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", pattern, "-test.count", "1")
			cmd.Env = append(os.Environ(), EnvStart+"="+at.Format(time.RFC3339Nano))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the suite fails when its clocks start at %s: %v\n%s", at, err, tail(out, 8000))
			}
		})
	}
}

func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("...%s", b[len(b)-n:])
}
