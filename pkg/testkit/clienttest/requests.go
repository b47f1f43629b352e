package clienttest

import (
	"net/http"
	"sync"
)

// Request is what a RequestLog keeps of a request.
type Request struct {
	Method, Path string
	// Version is the request's A2A-Version header.
	Version string
}

// String is "METHOD /path".
func (r Request) String() string { return r.Method + " " + r.Path }

// RequestLog records the requests a handler receives; the zero value is
// ready.
type RequestLog struct {
	mu   sync.Mutex
	reqs []Request
}

// Wrap records every request before next serves it.
func (l *RequestLog) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.reqs = append(l.reqs, Request{Method: r.Method, Path: r.URL.Path, Version: r.Header.Get("A2A-Version")})
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// Take returns the requests recorded so far and forgets them.
func (l *RequestLog) Take() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.reqs
	l.reqs = nil
	return out
}
