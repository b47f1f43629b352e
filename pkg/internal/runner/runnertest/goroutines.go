package runnertest

import (
	"bytes"
	"runtime"
	"strings"
)

// GoroutineID returns the id of the calling goroutine as its stack names
// it ("goroutine 42 [running]"): a test tells by it whether two steps ran
// on one goroutine (Alive: whether it still exists; Waiting: whether it
// waits for the next step).
func GoroutineID() string {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	id, _, _ := bytes.Cut(b, []byte(" "))
	return string(id)
}

// Alive reports whether the goroutine GoroutineID named still exists.
func Alive(id string) bool {
	_, ok := stackOf(id)
	return ok
}

// Waiting reports whether the goroutine GoroutineID named waits for work
// in a runner.Goroutines (its own select, not one of a step it runs): a
// step can be handed to it now.
func Waiting(id string) bool {
	s, ok := stackOf(id)
	return ok && WaitsForWork(s)
}

// WaitsForWork reports whether a goroutine's stack, as runtime.Stack
// writes it, is that of a runner.Goroutines goroutine waiting for work.
func WaitsForWork(stack string) bool {
	header, rest, _ := strings.Cut(stack, "\n")
	return strings.Contains(header, " [select") &&
		strings.HasPrefix(rest, "github.com/a2a-lambda/a2a-lambda/pkg/internal/runner.(*Goroutines[...]).serve(")
}

// stackOf returns the stack of goroutine id, and false when there is none.
func stackOf(id string) (string, bool) {
	for s := range strings.SplitSeq(Stacks(), "\n\n") {
		if strings.HasPrefix(s, "goroutine "+id+" [") {
			return s, true
		}
	}
	return "", false
}

// Stacks returns the stacks of every goroutine of the process, as
// runtime.Stack writes them (one block each, blank lines between).
func Stacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
