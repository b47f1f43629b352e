// Package httpstatus tells which status code a handler answered with, for
// middleware that logs, counts or acts on it.
package httpstatus

import "net/http"

// Writer is an http.ResponseWriter that remembers the final status code
// written through it: the first one of 200 or above, informational (1xx)
// codes passed over, or 200 once the body is written without one.
type Writer struct {
	http.ResponseWriter
	code int
}

// NewWriter returns a Writer over w.
func NewWriter(w http.ResponseWriter) *Writer { return &Writer{ResponseWriter: w} }

// WriteHeader writes and remembers the status code.
func (w *Writer) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes the body, with the status code 200 when none was written.
func (w *Writer) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer (its
// Flush, deadlines).
func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Status returns the final status code written so far, 0 when none was
// (a handler that returns without writing is answered 200 by net/http).
func (w *Writer) Status() int { return w.code }
