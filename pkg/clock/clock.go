// Package clock is the one source of time on the server side: the service,
// the runners, the stores, push delivery and verification, and the worker
// read the time and wait for it through a Clock, so that a test can drive
// them all with one fake clock (package clocktest) and production uses the
// system clock everywhere.
//
// Timeouts of I/O may still go through contexts; what a Clock is for is
// every instant that is compared with another one: expiry times, deadlines
// kept in the store, delays between steps.
package clock

import (
	"context"
	"time"
)

// Clock tells the time and waits for it.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that fires once the clock has moved d past
	// the current time; d <= 0 fires at once.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer of a Clock.
type Timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped
	// the timer (false: it had fired or been stopped already).
	Stop() bool
}

// System is the real clock.
type System struct{}

var _ Clock = System{}

// Now implements Clock.
func (System) Now() time.Time { return time.Now() }

// NewTimer implements Clock.
func (System) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time { return t.t.C }
func (t systemTimer) Stop() bool          { return t.t.Stop() }

// Or returns c, or the system clock when c is nil: the default of every
// Options.Clock.
func Or(c Clock) Clock {
	if c == nil {
		return System{}
	}
	return c
}

// Sleep waits until d has passed on c. It returns ctx.Err() when ctx ends
// first, and nil at once for d <= 0.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}

// SleepUntil waits until c reads at or after at; see Sleep.
func SleepUntil(ctx context.Context, c Clock, at time.Time) error {
	return Sleep(ctx, c, at.Sub(c.Now()))
}
