// Package runner holds what the runners below it share: goroutines that
// run one step after another.
package runner

import "sync/atomic"

// Goroutines runs work (each a T, given to run) on goroutines that wait for
// the next work instead of ending, at most a bound of them waiting: a
// goroutine that ran a step has the stack steps need, which a new one grows
// again, copying it at each doubling (runtime.copystack and newstack were
// 7-8% of a blocking send's CPU). Work passes by value: no allocation per
// call. Once done is closed, the waiting goroutines end, and each one that
// finishes after it. A Goroutines is used where it is kept (a field of its
// runner): it must not be copied after its first Go.
type Goroutines[T any] struct {
	run     func(T)
	handoff chan T
	done    <-chan struct{}
	maxIdle int32
	idle    int32 // atomic
}

// NewGoroutines returns Goroutines that run work with run and keep at most
// maxIdle waiting, until done is closed. What run refers to stays
// reachable as long as they wait.
func NewGoroutines[T any](maxIdle int, run func(T), done <-chan struct{}) Goroutines[T] {
	return Goroutines[T]{run: run, handoff: make(chan T), done: done, maxIdle: int32(maxIdle)}
}

// Go runs w on a goroutine that waits for work, or on a new one when none
// does (after done is closed: always a new one).
func (g *Goroutines[T]) Go(w T) {
	select {
	case g.handoff <- w:
	default:
		go g.serve(w)
	}
}

// serve runs w and then the work handed to it, until it would be one too
// many waiting or done is closed.
func (g *Goroutines[T]) serve(w T) {
	var none T
	for {
		g.run(w)
		w = none // a waiting goroutine holds nothing of what it ran
		if atomic.AddInt32(&g.idle, 1) > g.maxIdle {
			atomic.AddInt32(&g.idle, -1)
			return
		}
		select {
		case w = <-g.handoff:
			atomic.AddInt32(&g.idle, -1)
		case <-g.done:
			atomic.AddInt32(&g.idle, -1)
			return
		}
	}
}
