// Package pushtest is a webhook receiver for tests of push notifications:
// an httptest server whose hooks verify every notification with
// pkg/push/verify, as a real receiver would, and can be told to fail or
// hang.
package pushtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/verify"
)

// Behaviour says how a hook answers.
type Behaviour struct {
	// FailFirst answers the first FailFirst attempts 503.
	FailFirst int
	// Status, when set, answers every attempt with it (after verifying).
	Status int
	// Hang, when set, holds every attempt until it is closed (or the
	// request ends).
	Hang <-chan struct{}
	// Token is the notification token the hook expects.
	Token string
}

// Attempt is one request a hook received.
type Attempt struct {
	At time.Time
	// Status is the answer.
	Status int
	// Notification is the verified notification, nil when verification
	// failed (Err says why).
	Notification *verify.Notification
	Err          error
}

// Receiver serves hooks.
type Receiver struct {
	t      testing.TB
	srv    *httptest.Server
	jwks   []byte
	issuer string

	mu       sync.Mutex
	hooks    map[string]*hook
	received chan struct{}
}

type hook struct {
	b        Behaviour
	handler  http.Handler
	attempts []Attempt
}

// NewReceiver starts a receiver that trusts the public keys of ks and,
// when issuer is set, wants it as the iss claim.
func NewReceiver(t testing.TB, ks *keys.Set, issuer string) *Receiver {
	r := &Receiver{t: t, jwks: ks.JWKS(), issuer: issuer, hooks: map[string]*hook{}, received: make(chan struct{}, 1)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// Hook registers a hook at path and returns its URL, the push config's url.
func (r *Receiver) Hook(path string, b Behaviour) string {
	r.t.Helper()
	url := r.srv.URL + path
	src, err := verify.StaticKeys(r.jwks)
	require.NoError(r.t, err)
	h := &hook{b: b}
	v, err := verify.New(verify.Options{Keys: src, Audience: url, Issuer: r.issuer, Token: b.Token,
		OnUnanswered: func(_ *http.Request, status int, err error) {
			r.record(h, Attempt{At: time.Now(), Status: status, Err: fmt.Errorf("refused by the verifier: %w", err)})
		}})
	require.NoError(r.t, err)
	h.handler = v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.answer(w, req, h) }))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks[path] = h
	return url
}

// serve runs the hook's verifying middleware; what it answers without
// reaching the hook (a notification that does not verify, a duplicate) is
// recorded through the verifier's OnUnanswered.
func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	h := r.hooks[req.URL.Path]
	r.mu.Unlock()
	if h == nil {
		http.NotFound(w, req)
		return
	}
	h.handler.ServeHTTP(w, req)
}

// answer is the hook behind the verifier: the notification verified.
func (r *Receiver) answer(w http.ResponseWriter, req *http.Request, h *hook) {
	n, _ := verify.FromContext(req.Context())
	if h.b.Hang != nil {
		select {
		case <-h.b.Hang:
		case <-req.Context().Done():
		}
	}
	a := Attempt{At: time.Now(), Notification: n}
	r.mu.Lock()
	switch {
	case len(h.attempts) < h.b.FailFirst:
		a.Status = http.StatusServiceUnavailable
	case h.b.Status != 0:
		a.Status = h.b.Status
	default:
		a.Status = http.StatusNoContent
	}
	r.mu.Unlock()
	r.record(h, a)
	w.WriteHeader(a.Status)
}

func (r *Receiver) record(h *hook, a Attempt) {
	r.mu.Lock()
	h.attempts = append(h.attempts, a)
	r.mu.Unlock()
	select {
	case r.received <- struct{}{}:
	default:
	}
}

// Attempts returns the requests the hook at path received.
func (r *Receiver) Attempts(path string) []Attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.hooks[path]; h != nil {
		return append([]Attempt(nil), h.attempts...)
	}
	return nil
}

// Delivered returns the notifications the hook verified and accepted
// (answered 2xx), duplicates not included.
func (r *Receiver) Delivered(path string) []*verify.Notification {
	var out []*verify.Notification
	for _, a := range r.Attempts(path) {
		if a.Notification != nil && a.Status < 300 {
			out = append(out, a.Notification)
		}
	}
	return out
}

// Delivery is an accepted notification with the A2A 0.3 task it carries.
type Delivery struct {
	*verify.Notification
	Task a2a.Task
}

// DeliveredTasks returns what Delivered does, ordered by task version (a
// queue may deliver out of order), each with its task decoded; it fails
// the test when a body is not a task.
func (r *Receiver) DeliveredTasks(path string) []Delivery {
	r.t.Helper()
	var out []Delivery
	for _, n := range r.Delivered(path) {
		d := Delivery{Notification: n}
		require.NoError(r.t, json.Unmarshal(n.Body, &d.Task), "notification %s", n.EventID)
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TaskVersion < out[j].TaskVersion })
	return out
}

// WaitAttempts waits until the hook at path received at least n requests,
// failing the test after timeout.
func (r *Receiver) WaitAttempts(path string, n int, timeout time.Duration) []Attempt {
	r.t.Helper()
	deadline := time.After(timeout)
	for {
		if as := r.Attempts(path); len(as) >= n {
			return as
		}
		select {
		case <-r.received:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			r.t.Fatalf("hook %s received %d requests, want %d within %v", path, len(r.Attempts(path)), n, timeout)
			return nil
		}
	}
}
