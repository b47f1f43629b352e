// Package runner holds what the runners below it share: goroutines that
// run one step after another.
package runner

import (
	"sync"
	"sync/atomic"
)

// Goroutines runs functions on goroutines that wait for the next function
// instead of ending, at most a bound of them waiting: a goroutine that ran
// a step has the stack steps need, which a new one grows again, copying it
// at each doubling (runtime.copystack and newstack were 7-8% of a blocking
// send's CPU). Close ends those waiting, and each one that finishes after
// it.
type Goroutines struct {
	handoff  chan func()
	idle     atomic.Int32
	maxIdle  int32
	done     chan struct{}
	doneOnce sync.Once
}

// NewGoroutines returns Goroutines that keep at most maxIdle waiting.
func NewGoroutines(maxIdle int) *Goroutines {
	return &Goroutines{handoff: make(chan func()), maxIdle: int32(maxIdle), done: make(chan struct{})}
}

// Go runs f on a goroutine that waits for work, or on a new one when none
// does.
func (g *Goroutines) Go(f func()) {
	select {
	case g.handoff <- f:
	default:
		go g.serve(f)
	}
}

// serve runs f and then the functions handed to it, until it would be one
// too many waiting or g is closed.
func (g *Goroutines) serve(f func()) {
	for {
		f()
		f = nil // a waiting goroutine holds nothing of what it ran
		if g.idle.Add(1) > g.maxIdle {
			g.idle.Add(-1)
			return
		}
		select {
		case f = <-g.handoff:
			g.idle.Add(-1)
		case <-g.done:
			g.idle.Add(-1)
			return
		}
	}
}

// Close ends the goroutines waiting for work; those still running end when
// their function returns. Go after Close still runs f, on a new goroutine.
func (g *Goroutines) Close() { g.doneOnce.Do(func() { close(g.done) }) }
