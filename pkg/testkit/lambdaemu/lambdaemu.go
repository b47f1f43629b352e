// Package lambdaemu is a Lambda Runtime API for tests: an HTTP server that
// hands events to a real function binary (a provided.al2023 `bootstrap`)
// and collects what it answers, as Lambda does. Start the binary with
// AWS_LAMBDA_RUNTIME_API set to Addr().
//
//	GET  /2018-06-01/runtime/invocation/next          blocks until an event is queued
//	POST /2018-06-01/runtime/invocation/{id}/response  the function's result
//	POST /2018-06-01/runtime/invocation/{id}/error     the function's error
//	POST /2018-06-01/runtime/init/error                a failed cold start
package lambdaemu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Report kinds.
const (
	KindResponse  = "response"
	KindError     = "error"
	KindInitError = "init-error"
)

// Report is what the function posted.
type Report struct {
	// Kind is KindResponse, KindError or KindInitError.
	Kind string
	// Body is the posted body: the result, or the error's JSON
	// ({"errorMessage", "errorType"}).
	Body []byte
	// ErrorType is the Lambda-Runtime-Function-Error-Type header.
	ErrorType string
}

// Options configure an emulator.
type Options struct {
	// Timeout is the function's timeout: each event's deadline (default
	// 30 s).
	Timeout time.Duration
	// FunctionARN is the invoked function's ARN.
	FunctionARN string
}

type invocation struct {
	id      string
	payload []byte
	done    chan Report
}

// Emulator is one function's Runtime API.
type Emulator struct {
	srv       *httptest.Server
	opts      Options
	queue     chan *invocation
	mu        sync.Mutex
	inflight  map[string]*invocation
	seq       int
	firstNext chan struct{}
	nextOnce  sync.Once
	initErr   chan Report
	// closed ends every Invoke still waiting once Close is called.
	closed    chan struct{}
	closeOnce sync.Once
}

// ErrClosed is what Invoke returns once the emulator is closed: the
// function is gone, no answer will come.
var ErrClosed = errors.New("lambdaemu: the emulator is closed")

// New starts an emulator; Close stops it.
func New(o Options) *Emulator {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.FunctionARN == "" {
		o.FunctionARN = "arn:aws:lambda:us-east-1:123456789012:function:test"
	}
	e := &Emulator{opts: o, queue: make(chan *invocation), inflight: map[string]*invocation{},
		firstNext: make(chan struct{}), initErr: make(chan Report, 1), closed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", e.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", e.report(KindResponse))
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", e.report(KindError))
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", e.initError)
	e.srv = httptest.NewServer(mux)
	return e
}

// Addr is the value for AWS_LAMBDA_RUNTIME_API (host:port).
func (e *Emulator) Addr() string { return strings.TrimPrefix(e.srv.URL, "http://") }

// Close stops the server; a function still waiting for an event gets an
// error and exits, and an Invoke still waiting returns ErrClosed (a test's
// fake Lambda API that forwards to the function may otherwise wait for an
// answer that never comes, and hold its own server's Close).
func (e *Emulator) Close() {
	e.closeOnce.Do(func() { close(e.closed) })
	e.srv.CloseClientConnections()
	e.srv.Close()
}

// Ready is closed when the function first asks for an event: its cold
// start is over.
func (e *Emulator) Ready() <-chan struct{} { return e.firstNext }

// InitError receives the report of a failed cold start.
func (e *Emulator) InitError() <-chan Report { return e.initErr }

// Invoke hands payload to the function and returns what it reported.
func (e *Emulator) Invoke(ctx context.Context, payload []byte) (Report, error) {
	e.mu.Lock()
	e.seq++
	// Request ids are shaped like Lambda's (a UUID): what a function logs
	// per invocation is measured with ids of the real length.
	inv := &invocation{id: fmt.Sprintf("00000000-0000-4000-8000-%012d", e.seq), payload: payload, done: make(chan Report, 1)}
	e.inflight[inv.id] = inv
	e.mu.Unlock()
	select {
	case e.queue <- inv:
	case <-ctx.Done():
		return Report{}, fmt.Errorf("lambdaemu: the function did not ask for the event: %w", ctx.Err())
	case <-e.closed:
		return Report{}, ErrClosed
	}
	select {
	case r := <-inv.done:
		return r, nil
	case <-ctx.Done():
		return Report{}, fmt.Errorf("lambdaemu: no answer to %s: %w", inv.id, ctx.Err())
	case <-e.closed:
		return Report{}, fmt.Errorf("no answer to %s: %w", inv.id, ErrClosed)
	}
}

func (e *Emulator) next(w http.ResponseWriter, r *http.Request) {
	e.nextOnce.Do(func() { close(e.firstNext) })
	select {
	case inv := <-e.queue:
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(e.opts.Timeout).UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", e.opts.FunctionARN)
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-6740c0de-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=0")
		h.Set("Content-Type", "application/json")
		w.Write(inv.payload)
	case <-r.Context().Done():
	}
}

func (e *Emulator) report(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		inv := e.inflight[r.PathValue("id")]
		delete(e.inflight, r.PathValue("id"))
		e.mu.Unlock()
		if inv == nil {
			http.Error(w, "unknown request id", http.StatusBadRequest)
			return
		}
		inv.done <- Report{Kind: kind, Body: body, ErrorType: r.Header.Get("Lambda-Runtime-Function-Error-Type")}
		w.WriteHeader(http.StatusAccepted)
	}
}

func (e *Emulator) initError(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case e.initErr <- Report{Kind: KindInitError, Body: body, ErrorType: r.Header.Get("Lambda-Runtime-Function-Error-Type")}:
	default: // reported twice: keep the first
	}
	w.WriteHeader(http.StatusAccepted)
}
