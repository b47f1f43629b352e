package verify

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// receiver is a webhook whose handler is the verifier's middleware around
// an application handler.
type receiver struct {
	url     string
	calls   atomic.Int32
	respond func(w http.ResponseWriter, r *http.Request, n *Notification)
}

func newReceiver(t *testing.T, o Options, respond func(http.ResponseWriter, *http.Request, *Notification)) *receiver {
	t.Helper()
	rc := &receiver{respond: respond}
	srv := httptest.NewUnstartedServer(nil)
	rc.url = "http://" + srv.Listener.Addr().String() + "/hook"
	o.Audience = rc.url
	v := newVerifier(t, o)
	srv.Config.Handler = v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.calls.Add(1)
		n, ok := FromContext(r.Context())
		require.True(t, ok)
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		assert.Equal(t, n.Body, body, "the handler reads the body as usual")
		if rc.respond != nil {
			rc.respond(w, r, n)
		}
	}))
	srv.Start()
	t.Cleanup(srv.Close)
	return rc
}

func deliverer(t *testing.T, set *keys.Set, c *clocktest.Clock) *push.Deliverer {
	t.Helper()
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: set, Issuer: agentURL, Policy: egress.Policy{AllowInsecure: true}, Clock: c})
	require.NoError(t, err)
	return d
}

// unanswered records what OnUnanswered is told.
type unanswered struct {
	mu   sync.Mutex
	seen []string
}

func (u *unanswered) record(_ *http.Request, status int, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.seen = append(u.seen, fmt.Sprintf("%d %v", status, err))
}

func (u *unanswered) all() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

func TestMiddleware(t *testing.T) {
	set := generate(t, keys.AlgES256)
	c := newClock(t)
	failNext := atomic.Bool{}
	told := &unanswered{}
	rc := newReceiver(t, Options{Keys: static(t, set.JWKS()), Token: "tok", Clock: c, OnUnanswered: told.record}, func(w http.ResponseWriter, _ *http.Request, n *Notification) {
		if failNext.CompareAndSwap(true, false) {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	d := deliverer(t, set, c)
	ctx := context.Background()
	n := push.Notification{Config: a2a.PushNotificationConfig{URL: rc.url, Token: "tok"}, TaskID: "t", TaskVersion: 1, Body: []byte(`{"id":"t"}`)}

	r := d.Deliver(ctx, n)
	assert.Equal(t, push.Delivered, r.Outcome, r.Err)
	assert.EqualValues(t, 1, rc.calls.Load())

	r = d.Deliver(ctx, n)
	assert.Equal(t, push.Delivered, r.Outcome, "a duplicate is acknowledged, so the agent stops retrying")
	assert.EqualValues(t, 1, rc.calls.Load(), "but not handled again")

	// The handler fails: the event is not remembered, and the retry is
	// handled.
	n.TaskVersion = 2
	failNext.Store(true)
	r = d.Deliver(ctx, n)
	assert.Equal(t, push.Retryable, r.Outcome)
	assert.EqualValues(t, 2, rc.calls.Load())
	r = d.Deliver(ctx, n)
	assert.Equal(t, push.Delivered, r.Outcome)
	assert.EqualValues(t, 3, rc.calls.Load())

	// A wrong token, and a key the receiver does not know.
	n.TaskVersion = 3
	n.Config.Token = "other"
	r = d.Deliver(ctx, n)
	assert.Equal(t, push.Permanent, r.Outcome)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	n.Config.Token = "tok"
	r = deliverer(t, generate(t, keys.AlgEdDSA), c).Deliver(ctx, n)
	assert.Equal(t, push.Retryable, r.Outcome, "an unknown kid may be a fresh rotation")
	assert.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	assert.EqualValues(t, 3, rc.calls.Load())

	// OnUnanswered heard of every request the handler did not see.
	got := told.all()
	require.Len(t, got, 3)
	assert.Equal(t, "200 "+ErrDuplicate.Error(), got[0])
	assert.True(t, strings.HasPrefix(got[1], "401 "), got[1])
	assert.True(t, strings.HasPrefix(got[2], "503 "), got[2])
}

// roundTripFunc lets a test alter requests on the wire.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestMiddlewareRefusals(t *testing.T) {
	set := generate(t, keys.AlgES256)
	c := newClock(t)
	rc := newReceiver(t, Options{Keys: static(t, set.JWKS()), Clock: c, MaxBodyBytes: 64}, nil)
	ctx := context.Background()
	n := push.Notification{Config: a2a.PushNotificationConfig{URL: rc.url}, TaskID: "t", TaskVersion: 1, Body: []byte(`{"id":"t","state":"completed"}`)}

	// A man in the middle changes the body but keeps the signature.
	tamper := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := `{"id":"t","state":"failed"}`
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		return http.DefaultTransport.RoundTrip(r)
	})}
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: set, Issuer: agentURL, Policy: egress.Policy{AllowInsecure: true}, Clock: c, Client: tamper})
	require.NoError(t, err)
	r := d.Deliver(ctx, n)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.Equal(t, push.Permanent, r.Outcome)

	big := n
	big.TaskVersion = 2
	big.Body = []byte(strings.Repeat("x", 65))
	r = deliverer(t, set, c).Deliver(ctx, big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.StatusCode)

	resp, err := http.Post(rc.url, "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no signature")
	assert.Zero(t, rc.calls.Load())

	r = deliverer(t, set, c).Deliver(ctx, n)
	assert.Equal(t, push.Delivered, r.Outcome, "the untampered notification is accepted")
}

// TestMiddlewareSameEventInFlight: while one request for an event is being
// handled, another one for the same event is told to come back later.
func TestMiddlewareSameEventInFlight(t *testing.T) {
	set := generate(t, keys.AlgES256)
	c := newClock(t)
	entered := make(chan struct{})
	release := make(chan struct{})
	rc := newReceiver(t, Options{Keys: static(t, set.JWKS()), Clock: c}, func(http.ResponseWriter, *http.Request, *Notification) {
		entered <- struct{}{}
		<-release
	})
	d := deliverer(t, set, c)
	n := push.Notification{Config: a2a.PushNotificationConfig{URL: rc.url}, TaskID: "t", TaskVersion: 1}
	first := make(chan push.Result)
	go func() { first <- d.Deliver(context.Background(), n) }()
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the first delivery never reached the handler")
	}
	r := d.Deliver(context.Background(), n)
	assert.Equal(t, push.Retryable, r.Outcome)
	assert.Equal(t, http.StatusTooManyRequests, r.StatusCode)
	assert.Equal(t, 10*time.Second, r.RetryAfter)
	close(release)
	assert.Equal(t, push.Delivered, (<-first).Outcome)
	assert.EqualValues(t, 1, rc.calls.Load())
}
