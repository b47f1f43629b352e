package memqueue

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// fastRetry retries after about a millisecond, so tests do not wait.
func fastRetry(attempts int) push.RetryPolicy {
	return push.RetryPolicy{MaxAttempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
}

// statuses collects every recorded delivery status.
type statuses struct {
	mu  sync.Mutex
	all []push.DeliveryStatus
}

func (s *statuses) RecordOutcome(_ context.Context, st push.DeliveryStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, st)
}

func (s *statuses) get() []push.DeliveryStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]push.DeliveryStatus(nil), s.all...)
}

// final returns the last recorded status of each event id.
func (s *statuses) final() map[string]push.DeliveryStatus {
	out := map[string]push.DeliveryStatus{}
	for _, st := range s.get() {
		out[st.EventID] = st
	}
	return out
}

// newDeliverer returns a real deliverer allowed to reach httptest servers.
func newDeliverer(t *testing.T) *push.Deliverer {
	t.Helper()
	set, err := keys.Generate(keys.AlgES256)
	require.NoError(t, err)
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: set, Issuer: "http://127.0.0.1:8000", Policy: egress.Policy{AllowInsecure: true}})
	require.NoError(t, err)
	return d
}

func newQueue(t *testing.T, o Options) *Queue {
	t.Helper()
	if o.Deliverer == nil {
		o.Deliverer = newDeliverer(t)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	q, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close(context.Background()) })
	return q
}

func notification(url, task string, version int64) push.Notification {
	return push.Notification{
		Config: a2a.PushNotificationConfig{ID: "cfg-" + task, URL: url},
		TaskID: task, TaskVersion: version, Body: []byte(`{"kind":"task","id":"` + task + `"}`),
	}
}

func waitIdle(t *testing.T, q *Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, q.Wait(ctx))
}

// TestRetriesUntilDelivered: a webhook failing three times then succeeding
// gets exactly one successful delivery, and four attempts are recorded.
func TestRetriesUntilDelivered(t *testing.T) {
	var requests, successes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) <= 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		successes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	rec := &statuses{}
	q := newQueue(t, Options{Retry: fastRetry(10), Recorder: rec})

	require.NoError(t, q.Enqueue(context.Background(), notification(srv.URL+"/hook", "task-1", 5)))
	waitIdle(t, q)

	assert.EqualValues(t, 4, requests.Load())
	assert.EqualValues(t, 1, successes.Load())
	got := rec.get()
	require.Len(t, got, 4)
	for i, st := range got {
		assert.Equal(t, i+1, st.Attempts)
		assert.Equal(t, "task-1:5", st.EventID)
		assert.Equal(t, "cfg-task-1", st.ConfigID)
		if i < 3 {
			assert.Equal(t, push.StateRetrying, st.State)
			assert.Equal(t, http.StatusInternalServerError, st.LastStatusCode)
			assert.False(t, st.NextAttemptAt.IsZero())
		}
	}
	last := got[3]
	assert.Equal(t, push.StateDelivered, last.State)
	assert.Equal(t, http.StatusNoContent, last.LastStatusCode)
	assert.False(t, last.DeliveredAt.IsZero())
	assert.Empty(t, q.DeadLetters())
}

// TestFailingWebhookIsDeadLettered: every notification to a webhook that
// always fails ends in the dead-letter list after the last attempt, while
// those to a healthy webhook are delivered; nothing is lost, and the logs
// carry no secret.
func TestFailingWebhookIsDeadLettered(t *testing.T) {
	bad, failing := answering(t, http.StatusBadGateway)
	var mu sync.Mutex
	delivered := map[string]int{}
	good := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		delivered[r.Header.Get(push.HeaderWebhookID)]++
		mu.Unlock()
	}))
	defer good.Close()

	var logs bytes.Buffer
	rec := &statuses{}
	q := newQueue(t, Options{Retry: fastRetry(3), Recorder: rec, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const n = 25
	var badIDs, goodIDs []string
	for i := 1; i <= n; i++ {
		b := notification(bad.URL+"/s3cret-path", fmt.Sprintf("bad-%d", i), int64(i))
		b.Config.Token = "s3cret-token"
		require.NoError(t, q.Enqueue(context.Background(), b))
		badIDs = append(badIDs, b.EventID())
		g := notification(good.URL+"/hook", fmt.Sprintf("good-%d", i), int64(i))
		require.NoError(t, q.Enqueue(context.Background(), g))
		goodIDs = append(goodIDs, g.EventID())
	}
	waitIdle(t, q)

	dead := q.DeadLetters()
	var deadIDs []string
	for _, d := range dead {
		deadIDs = append(deadIDs, d.Notification.EventID())
		assert.Equal(t, d.Notification.EventID(), d.Status.EventID)
		assert.Equal(t, push.StateFailed, d.Status.State)
		assert.Equal(t, 3, d.Status.Attempts)
		assert.Equal(t, http.StatusBadGateway, d.Status.LastStatusCode)
		assert.Equal(t, "s3cret-token", d.Notification.Config.Token, "the dead letter can be redriven")
	}
	sort.Strings(deadIDs)
	sort.Strings(badIDs)
	assert.Equal(t, badIDs, deadIDs)
	assert.EqualValues(t, 3*n, failing.Load())

	mu.Lock()
	assert.Len(t, delivered, n)
	for _, id := range goodIDs {
		assert.Equal(t, 1, delivered[id], id)
	}
	mu.Unlock()

	final := rec.final()
	assert.Len(t, final, 2*n, "every notification has a final status")
	for _, id := range badIDs {
		assert.Equal(t, push.StateFailed, final[id].State, id)
	}
	for _, id := range goodIDs {
		assert.Equal(t, push.StateDelivered, final[id].State, id)
	}

	assert.Contains(t, logs.String(), "push notification dead-lettered")
	assert.Contains(t, logs.String(), "event_id=bad-1:1")
	assert.NotContains(t, logs.String(), "s3cret")
}

// answering starts a webhook that answers every request with status, and
// counts the requests.
func answering(t *testing.T, status int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

func TestPermanentFailureIsNotRetried(t *testing.T) {
	srv, requests := answering(t, http.StatusGone)
	q := newQueue(t, Options{Retry: fastRetry(5)})
	require.NoError(t, q.Enqueue(context.Background(), notification(srv.URL, "t", 1)))
	// A URL the production policy refuses never gets a request either.
	require.NoError(t, q.Enqueue(context.Background(), notification("http://169.254.169.254/latest/meta-data/", "m", 1)))
	waitIdle(t, q)
	assert.EqualValues(t, 1, requests.Load())
	dead := q.DeadLetters()
	require.Len(t, dead, 2)
	for _, d := range dead {
		assert.Equal(t, 1, d.Status.Attempts)
	}
}

// TestHangingWebhookDoesNotDelayOthers: while a webhook hangs on every
// request, another task's webhook gets its notifications at once, and the
// hanging one holds no more than MaxPerWebhook attempts.
func TestHangingWebhookDoesNotDelayOthers(t *testing.T) {
	release := make(chan struct{})
	var inFlight, maxInFlight atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			prev := maxInFlight.Load()
			if cur <= prev || maxInFlight.CompareAndSwap(prev, cur) {
				break
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hang.Close()
	got := make(chan string, 16)
	fast := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get(push.HeaderWebhookID)
	}))
	defer fast.Close()
	defer close(release) // before the servers close: Close waits for handlers

	q := newQueue(t, Options{Retry: fastRetry(2), MaxInFlight: 4, MaxPerWebhook: 2})
	for i := 1; i <= 10; i++ {
		require.NoError(t, q.Enqueue(context.Background(), notification(hang.URL+"/hook", "slow", int64(i))))
	}
	require.Eventually(t, func() bool { return inFlight.Load() == 2 }, 5*time.Second, time.Millisecond,
		"the hanging webhook holds its MaxPerWebhook attempts")
	start := time.Now()
	for i := 1; i <= 5; i++ {
		require.NoError(t, q.Enqueue(context.Background(), notification(fast.URL+"/hook", fmt.Sprintf("fast-%d", i), 1)))
	}
	seen := map[string]bool{}
	timeout := time.After(5 * time.Second) // the hanging webhook would hold a slot for 10 s
	for len(seen) < 5 {
		select {
		case id := <-got:
			seen[id] = true
		case <-timeout:
			t.Fatalf("only %d of 5 notifications reached the healthy webhook", len(seen))
		}
	}
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.LessOrEqual(t, maxInFlight.Load(), int32(2), "the hanging webhook holds at most MaxPerWebhook attempts")
	assert.Positive(t, inFlight.Load(), "the slow webhook is still hanging")
}

// fakeDeliverer answers every attempt with its function's result.
type fakeDeliverer func(ctx context.Context, n push.Notification) push.Result

func (f fakeDeliverer) Deliver(ctx context.Context, n push.Notification) push.Result {
	return f(ctx, n)
}

func failing(attempts *atomic.Int32) fakeDeliverer {
	return func(context.Context, push.Notification) push.Result {
		attempts.Add(1)
		return push.Result{Outcome: push.Retryable, StatusCode: 503, Err: &push.StatusError{Host: "h", Code: 503}, At: time.Now()}
	}
}

// TestCloseDeadLettersWaitingRetries: Close does not wait for backoffs; a
// notification waiting for its retry is dead-lettered, not lost.
func TestCloseDeadLettersWaitingRetries(t *testing.T) {
	var attempts atomic.Int32
	rec := &statuses{}
	q := newQueue(t, Options{
		Deliverer: failing(&attempts),
		Retry:     push.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Hour},
		Recorder:  rec,
	})
	for i := 1; i <= 3; i++ {
		require.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", int64(i))))
	}
	require.Eventually(t, func() bool { return len(rec.get()) == 3 }, 5*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, q.Close(ctx))
	assert.EqualValues(t, 3, attempts.Load())
	dead := q.DeadLetters()
	require.Len(t, dead, 3)
	for _, d := range dead {
		assert.Equal(t, push.StateFailed, d.Status.State)
		assert.Equal(t, 1, d.Status.Attempts)
		assert.True(t, strings.HasPrefix(d.Status.LastError, "queue closed before the retry; last error: webhook h answered 503"), d.Status.LastError)
	}
	for _, st := range rec.final() {
		assert.Equal(t, push.StateFailed, st.State)
	}
	assert.ErrorIs(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", 9)), ErrClosed)
	assert.NoError(t, q.Close(context.Background()), "closing twice is harmless")
}

// TestCloseCancelsAttemptsWhenItsContextEnds: attempts under way and
// notifications waiting for a slot are canceled and dead-lettered.
func TestCloseCancelsAttemptsWhenItsContextEnds(t *testing.T) {
	started := make(chan struct{}, 8)
	hang := fakeDeliverer(func(ctx context.Context, n push.Notification) push.Result {
		started <- struct{}{}
		<-ctx.Done()
		return push.Result{Outcome: push.Retryable, Err: ctx.Err(), At: time.Now()}
	})
	q := newQueue(t, Options{Deliverer: hang, MaxInFlight: 1, Retry: fastRetry(3)})
	for i := 1; i <= 4; i++ {
		require.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", int64(i))))
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, q.Close(ctx), context.DeadlineExceeded)
	dead := q.DeadLetters()
	require.Len(t, dead, 4, "nothing is lost")
	var attempted, notAttempted int
	for _, d := range dead {
		if d.Status.Attempts == 0 {
			notAttempted++
			assert.Equal(t, "queue closed before the attempt", d.Status.LastError)
		} else {
			attempted++
			assert.Contains(t, d.Status.LastError, "context canceled")
		}
	}
	assert.Equal(t, 1, attempted)
	assert.Equal(t, 3, notAttempted)
}

func TestEnqueueFull(t *testing.T) {
	block := make(chan struct{})
	q := newQueue(t, Options{
		Deliverer: fakeDeliverer(func(context.Context, push.Notification) push.Result {
			<-block
			return push.Result{Outcome: push.Delivered}
		}),
		MaxPending: 2,
	})
	require.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", 1)))
	require.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", 2)))
	assert.ErrorIs(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", 3)), ErrFull)
	close(block)
	waitIdle(t, q)
	assert.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", 3)))
	waitIdle(t, q)
}

func TestDeadLetterListIsBounded(t *testing.T) {
	var attempts atomic.Int32
	q := newQueue(t, Options{Deliverer: failing(&attempts), Retry: fastRetry(1), MaxDeadLetters: 2})
	for i := 1; i <= 3; i++ {
		require.NoError(t, q.Enqueue(context.Background(), notification("https://example.com/h", "t", int64(i))))
		waitIdle(t, q)
	}
	dead := q.DeadLetters()
	require.Len(t, dead, 2)
	assert.Equal(t, "t:2", dead[0].Status.EventID)
	assert.Equal(t, "t:3", dead[1].Status.EventID)
}

func TestNewNeedsDeliverer(t *testing.T) {
	_, err := New(Options{})
	assert.Error(t, err)
}

func TestWebhookHost(t *testing.T) {
	assert.Equal(t, "https://example.com:8443", webhookHost("https://EXAMPLE.com:8443/a?b"))
	assert.Equal(t, "", webhookHost("://bad"))
}
