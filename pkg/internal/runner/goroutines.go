// Package runner holds what the runners below it share: goroutines that
// run one step after another.
package runner

import (
	"sync"
	"sync/atomic"
)

// Goroutines runs work (each a T, given to run) on goroutines that wait for
// the next work instead of ending, at most a bound of them waiting: a
// goroutine that ran a step has the stack steps need, which a new one grows
// again, copying it at each doubling (runtime.copystack and newstack were
// 7-8% of a blocking send's CPU). Work passes by value: no allocation per
// call. Close ends those waiting, and each one that finishes after it.
type Goroutines[T any] struct {
	run      func(T)
	handoff  chan T
	idle     atomic.Int32
	maxIdle  int32
	done     chan struct{}
	doneOnce sync.Once
}

// NewGoroutines returns Goroutines that run work with run and keep at most
// maxIdle waiting. What run refers to stays reachable as long as they do.
func NewGoroutines[T any](maxIdle int, run func(T)) *Goroutines[T] {
	return &Goroutines[T]{run: run, handoff: make(chan T), maxIdle: int32(maxIdle), done: make(chan struct{})}
}

// Go runs w on a goroutine that waits for work, or on a new one when none
// does.
func (g *Goroutines[T]) Go(w T) {
	select {
	case g.handoff <- w:
	default:
		go g.serve(w)
	}
}

// serve runs w and then the work handed to it, until it would be one too
// many waiting or g is closed.
func (g *Goroutines[T]) serve(w T) {
	var none T
	for {
		g.run(w)
		w = none // a waiting goroutine holds nothing of what it ran
		if g.idle.Add(1) > g.maxIdle {
			g.idle.Add(-1)
			return
		}
		select {
		case w = <-g.handoff:
			g.idle.Add(-1)
		case <-g.done:
			g.idle.Add(-1)
			return
		}
	}
}

// Close ends the goroutines waiting for work; those still running end when
// their work is done. Go after Close still runs the work, on a new
// goroutine.
func (g *Goroutines[T]) Close() { g.doneOnce.Do(func() { close(g.done) }) }
