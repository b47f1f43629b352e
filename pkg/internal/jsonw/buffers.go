package jsonw

import "sync"

// Buffers recycles the buffers JSON is appended into, for output that is
// written (copied) and then no longer needed: an answer, a log line. A
// buffer that grew above Max is left to the garbage collector rather than
// held. The zero value is ready, with buffers of 1 KiB and no bound.
type Buffers struct {
	// Max is the capacity above which a buffer is not kept (0: any).
	Max  int
	pool sync.Pool
}

// Get returns an empty buffer; give it back with Put once its bytes are
// written.
func (p *Buffers) Get() *[]byte {
	if buf, ok := p.pool.Get().(*[]byte); ok {
		return buf
	}
	b := make([]byte, 0, 1024)
	return &b
}

// Put keeps buf for another use, with b, what was appended to it (its
// storage, or a grown copy), as its storage.
func (p *Buffers) Put(buf *[]byte, b []byte) {
	if p.Max > 0 && cap(b) > p.Max {
		return
	}
	*buf = b[:0]
	p.pool.Put(buf)
}
