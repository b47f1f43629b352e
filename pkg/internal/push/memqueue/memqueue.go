// Package memqueue is the in-process push-notification queue of the local
// server: it replaces the DynamoDB stream and SQS with goroutines, but uses
// the same delivery code (push.Deliverer) and retry policy
// (push.RetryPolicy) as the Lambda functions.
//
// Every accepted notification ends either delivered or in the dead-letter
// list, and every attempt's outcome is reported to an OutcomeRecorder. A
// slow or broken webhook never delays another: each notification runs on
// its own, waits for its retries without holding anything, and attempts
// are bounded both overall (MaxInFlight) and per webhook host
// (MaxPerWebhook), so a hanging host can hold at most MaxPerWebhook of the
// MaxInFlight attempt slots.
package memqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
)

// Defaults of Options.
const (
	DefaultMaxInFlight    = 16
	DefaultMaxPerWebhook  = 2
	DefaultMaxPending     = 10_000
	DefaultMaxDeadLetters = 1_000
	// recordTimeout bounds one call to the OutcomeRecorder.
	recordTimeout = 5 * time.Second
)

// Errors of Enqueue.
var (
	// ErrClosed: the queue is closed and accepts nothing.
	ErrClosed = errors.New("push queue is closed")
	// ErrFull: MaxPending notifications are already waiting.
	ErrFull = errors.New("push queue is full")
)

// Deliverer makes one delivery attempt; *push.Deliverer implements it.
type Deliverer interface {
	Deliver(ctx context.Context, n push.Notification) push.Result
}

// OutcomeRecorder receives the status of a notification after every
// attempt (and a final failed status when the queue closes before a
// retry), for example to store it for operators. It is called from many
// goroutines, must be safe for concurrent use, and should not block long
// (the context carries a short deadline). It cannot fail the delivery: an
// implementation handles (logs) its own errors.
type OutcomeRecorder interface {
	RecordOutcome(ctx context.Context, s push.DeliveryStatus)
}

// Options configure a Queue.
type Options struct {
	// Deliverer sends notifications. Required.
	Deliverer Deliverer
	// Retry is the retry policy.
	Retry push.RetryPolicy
	// Clock times the waits between attempts; nil means the system clock.
	Clock clock.Clock
	// Recorder, when set, receives every delivery status.
	Recorder OutcomeRecorder
	// Logger logs retries and dead letters (never URLs or secrets); nil
	// means slog.Default().
	Logger *slog.Logger
	// MaxInFlight bounds concurrent attempts (DefaultMaxInFlight).
	MaxInFlight int
	// MaxPerWebhook bounds concurrent attempts to one webhook host (scheme
	// host and port) (DefaultMaxPerWebhook).
	MaxPerWebhook int
	// MaxPending bounds accepted but unfinished notifications
	// (DefaultMaxPending).
	MaxPending int
	// MaxDeadLetters bounds the dead-letter list; beyond it the oldest is
	// dropped, with an error log (DefaultMaxDeadLetters).
	MaxDeadLetters int
}

// DeadLetter is a notification that will not be attempted again.
type DeadLetter struct {
	// Notification is the notification as enqueued. It includes the
	// config's token and credentials: do not log it whole.
	Notification push.Notification
	// Status is its final status (State push.StateFailed).
	Status push.DeliveryStatus
}

// Queue delivers notifications in the background. Its methods are safe for
// concurrent use.
type Queue struct {
	deliverer      Deliverer
	retry          push.RetryPolicy
	clock          clock.Clock
	recorder       OutcomeRecorder
	log            *slog.Logger
	maxPending     int
	maxPerWebhook  int
	maxDeadLetters int

	slots chan struct{} // global attempt slots

	// attemptCtx is canceled when Close gives up waiting.
	attemptCtx context.Context
	cancel     context.CancelFunc
	// closing is closed by Close: retries stop, Enqueue refuses.
	closing chan struct{}

	mu          sync.Mutex
	closed      bool
	pending     int
	idle        []chan struct{} // closed when pending reaches 0
	hosts       map[string]*hostSlots
	deadLetters []DeadLetter
}

// hostSlots are one webhook host's attempt slots.
type hostSlots struct {
	slots chan struct{}
	refs  int
}

// New returns a running queue, or an error when Deliverer is missing.
func New(o Options) (*Queue, error) {
	if o.Deliverer == nil {
		return nil, errors.New("push queue: a deliverer is required")
	}
	q := &Queue{
		deliverer:      o.Deliverer,
		retry:          o.Retry,
		clock:          clock.Or(o.Clock),
		recorder:       o.Recorder,
		log:            o.Logger,
		maxPending:     positive.Or(o.MaxPending, DefaultMaxPending),
		maxPerWebhook:  positive.Or(o.MaxPerWebhook, DefaultMaxPerWebhook),
		maxDeadLetters: positive.Or(o.MaxDeadLetters, DefaultMaxDeadLetters),
		slots:          make(chan struct{}, positive.Or(o.MaxInFlight, DefaultMaxInFlight)),
		closing:        make(chan struct{}),
		hosts:          map[string]*hostSlots{},
	}
	if q.log == nil {
		q.log = slog.Default()
	}
	q.attemptCtx, q.cancel = context.WithCancel(context.Background())
	return q, nil
}

// Enqueue accepts n for delivery and returns at once (ctx is not used; it
// is there for callers that treat this queue and SQS alike). It returns
// ErrClosed after Close, and ErrFull when MaxPending notifications are
// unfinished; in both cases n is not accepted.
func (q *Queue) Enqueue(_ context.Context, n push.Notification) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	if q.pending >= q.maxPending {
		return fmt.Errorf("%w (%d notifications waiting)", ErrFull, q.pending)
	}
	q.pending++
	go q.run(n)
	return nil
}

// Wait blocks until every accepted notification is delivered or
// dead-lettered, or until ctx ends (returning its error).
func (q *Queue) Wait(ctx context.Context) error {
	q.mu.Lock()
	if q.pending == 0 {
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.idle = append(q.idle, ch)
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the queue: Enqueue refuses from now on; notifications waiting
// for a retry are dead-lettered at once; attempts that are due or under way
// finish (a failure is then dead-lettered, not retried). When ctx ends
// first, the attempts under way are canceled and dead-lettered too, and
// Close returns ctx's error. Either way, every accepted notification is
// delivered or in the dead-letter list when Close returns. Closing twice is
// harmless.
func (q *Queue) Close(ctx context.Context) error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.closing)
	}
	q.mu.Unlock()
	err := q.Wait(ctx)
	if err != nil {
		q.cancel()
		_ = q.Wait(context.Background())
	}
	q.cancel()
	return err
}

// DeadLetters returns a copy of the dead-letter list, oldest first.
func (q *Queue) DeadLetters() []DeadLetter {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]DeadLetter(nil), q.deadLetters...)
}

// run delivers one notification until it is delivered or dead-lettered.
func (q *Queue) run(n push.Notification) {
	defer q.done()
	host := webhookHost(n.Config.URL)
	log := q.log.With("event_id", n.EventID(), "task_id", n.TaskID, "config_id", n.Config.ID, "host", host)
	var last push.DeliveryStatus
	for attempt := 1; ; attempt++ {
		if !q.acquire(host) {
			q.deadLetter(log, n, closedStatus(n, last, "queue closed before the attempt"))
			return
		}
		r := q.deliverer.Deliver(q.attemptCtx, n)
		q.release(host)

		d := q.retry.Decide(n, attempt, r)
		last = d.Status
		switch {
		case d.Status.State == push.StateDelivered:
			q.record(d.Status)
			log.Debug("push notification delivered", "attempts", attempt, "status", r.StatusCode)
			return
		case !d.Retry:
			q.deadLetter(log, n, d.Status)
			return
		}
		if q.isClosing() {
			q.deadLetter(log, n, closedStatus(n, d.Status, "queue closed before the retry"))
			return
		}
		q.record(d.Status)
		log.Warn("push notification attempt failed, will retry", "attempt", attempt,
			"outcome", r.Outcome.String(), "status", r.StatusCode, "error", d.Status.LastError, "retry_in", d.Delay)
		timer := q.clock.NewTimer(d.Delay)
		select {
		case <-timer.C():
		case <-q.closing:
			timer.Stop()
			q.deadLetter(log, n, closedStatus(n, d.Status, "queue closed before the retry"))
			return
		}
	}
}

// closedStatus is the final status of a notification the queue gave up on
// because it closed; last is the status after the previous attempt, if any.
func closedStatus(n push.Notification, last push.DeliveryStatus, why string) push.DeliveryStatus {
	s := last
	s.EventID, s.TaskID, s.ConfigID = n.EventID(), n.TaskID, n.Config.ID
	s.State = push.StateFailed
	s.NextAttemptAt = time.Time{}
	if s.LastError == "" {
		s.LastError = why
	} else {
		s.LastError = why + "; last error: " + s.LastError
	}
	return s
}

// deadLetter records and logs a final failure (s.State is
// push.StateFailed) and keeps it in the list.
func (q *Queue) deadLetter(log *slog.Logger, n push.Notification, s push.DeliveryStatus) {
	q.record(s)
	log.Error("push notification dead-lettered", "attempts", s.Attempts, "status", s.LastStatusCode, "error", s.LastError)
	q.mu.Lock()
	q.deadLetters = append(q.deadLetters, DeadLetter{Notification: n, Status: s})
	var dropped *DeadLetter
	if len(q.deadLetters) > q.maxDeadLetters {
		d := q.deadLetters[0]
		dropped = &d
		q.deadLetters = append(q.deadLetters[:0:0], q.deadLetters[1:]...)
	}
	q.mu.Unlock()
	if dropped != nil {
		q.log.Error("push dead-letter list full, dropped the oldest entry",
			"event_id", dropped.Status.EventID, "task_id", dropped.Status.TaskID, "config_id", dropped.Status.ConfigID)
	}
}

func (q *Queue) record(s push.DeliveryStatus) {
	if q.recorder == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	q.recorder.RecordOutcome(ctx, s)
}

func (q *Queue) isClosing() bool {
	select {
	case <-q.closing:
		return true
	default:
		return false
	}
}

// acquire takes a slot of host, then a global slot. It returns false when
// Close gave up waiting first.
func (q *Queue) acquire(host string) bool {
	q.mu.Lock()
	h := q.hosts[host]
	if h == nil {
		h = &hostSlots{slots: make(chan struct{}, q.maxPerWebhook)}
		q.hosts[host] = h
	}
	h.refs++
	q.mu.Unlock()

	select {
	case h.slots <- struct{}{}:
	case <-q.attemptCtx.Done():
		q.unref(host, h)
		return false
	}
	select {
	case q.slots <- struct{}{}:
		return true
	case <-q.attemptCtx.Done():
		<-h.slots
		q.unref(host, h)
		return false
	}
}

// release returns the slots taken by acquire.
func (q *Queue) release(host string) {
	<-q.slots
	q.mu.Lock()
	h := q.hosts[host]
	q.mu.Unlock()
	<-h.slots
	q.unref(host, h)
}

func (q *Queue) unref(host string, h *hostSlots) {
	q.mu.Lock()
	h.refs--
	if h.refs == 0 {
		delete(q.hosts, host)
	}
	q.mu.Unlock()
}

// done marks one notification finished.
func (q *Queue) done() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending--
	if q.pending == 0 {
		for _, ch := range q.idle {
			close(ch)
		}
		q.idle = nil
	}
}

// webhookHost returns the lower-cased scheme://host:port of a webhook URL,
// the key of its concurrency limit; "" when the URL does not parse (the
// deliverer then refuses it).
func webhookHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
