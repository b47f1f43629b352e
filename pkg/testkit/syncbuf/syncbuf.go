// Package syncbuf is a bytes.Buffer that one goroutine may write while
// another reads it: the output of a server or a process under test.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is a goroutine-safe buffer; the zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
