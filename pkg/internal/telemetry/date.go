package telemetry

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/httpstatus"
)

// An answer's Date header (RFC 9110, section 6.6.1) is what net/http
// writes for every answer from a clock reading of its own, formatted anew
// each time: a fifth of the cost of writing the header of the agent card's
// answer. Middleware writes it instead, from the clock the request's
// telemetry reads, formatted once a second.

// dateCache is the Date header's value of the last second asked for,
// and the clock it reads.
type dateCache struct {
	clock clock.Clock
	last  atomic.Pointer[dated]
}

type dated struct {
	unix   int64
	header []string
}

// header is the Date header's value at unix (seconds), one slice for
// every answer of that second: net/http only reads it, and a handler's Set
// replaces it (its length is its capacity, so that an Add copies it).
func (c *dateCache) header(unix int64) []string {
	if d := c.last.Load(); d != nil && d.unix == unix {
		return d.header
	}
	d := &dated{unix: unix, header: []string{time.Unix(unix, 0).UTC().Format(http.TimeFormat)}}
	c.last.Store(d)
	return d.header
}

// answer is the writer Middleware gives a handler: it remembers the
// status (httpstatus.Writer) and dates the answer by the clock when its
// header is written, unless it has a Date: a document's, which Middleware
// sets first, the handler's own, or a nil one (net/http's "none").
type answer struct {
	httpstatus.Writer
	dates *dateCache
}

// WriteHeader dates a final status's header and writes it.
func (a *answer) WriteHeader(code int) {
	if code >= http.StatusOK {
		a.date()
	}
	a.Writer.WriteHeader(code)
}

// Write dates the header if it is not written yet and writes p.
func (a *answer) Write(p []byte) (int, error) {
	a.date()
	return a.Writer.Write(p)
}

func (a *answer) date() {
	if a.Status() != 0 {
		return // the header is written
	}
	h := a.Header()
	if _, ok := h["Date"]; ok {
		return
	}
	h["Date"] = a.dates.header(a.dates.clock.Now().Unix())
}
