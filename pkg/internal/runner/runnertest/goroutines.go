package runnertest

import (
	"bytes"
	"runtime"
	"strings"
)

// GoroutineID returns the id of the calling goroutine as its stack names
// it ("goroutine 42 [running]"): a test tells by it whether two steps ran
// on one goroutine (Alive, whether it still exists).
func GoroutineID() string {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	id, _, _ := bytes.Cut(b, []byte(" "))
	return string(id)
}

// Alive reports whether the goroutine GoroutineID named still exists.
func Alive(id string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.HasPrefix(string(buf[:n]), "goroutine "+id+" [") || strings.Contains(string(buf[:n]), "\n\ngoroutine "+id+" [")
		}
		buf = make([]byte, 2*len(buf))
	}
}
