package notify

// The two pipelines of the package doc, built on the same Resolver: Sender,
// one delivery attempt per queue message (Lambda), and Local, the in-process
// fan-out of the local server.

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// Deliverer makes one delivery attempt; *push.Deliverer implements it.
type Deliverer interface {
	Deliver(ctx context.Context, n push.Notification) push.Result
}

// recordTimeout bounds the write of a delivery outcome.
const recordTimeout = 5 * time.Second

// Sender makes one delivery attempt of a job at a time, for a queue that
// does the waiting between attempts (SQS: the message's visibility
// timeout). It is safe for concurrent use.
type Sender struct {
	resolver  *Resolver
	deliverer Deliverer
	retry     push.RetryPolicy
	recorder  *Recorder
}

// NewSender returns a sender that resolves jobs with resolver, delivers
// with d, decides retries with retry and records outcomes in store.
func NewSender(resolver *Resolver, d Deliverer, retry push.RetryPolicy, store Store, log *slog.Logger) *Sender {
	return &Sender{resolver: resolver, deliverer: d, retry: retry, recorder: NewRecorder(store, log)}
}

// Send makes attempt number attempt (1 for the first) of j, logs its
// outcome in the task's delivery log and returns the decision: delivered,
// retry after Delay, or failed for good (dead-letter it; the log keeps the
// job to redrive it with). It returns an error wrapping ErrGone when there
// is nobody to notify any more (drop the job), and another error when the
// job could not be resolved (try again later).
func (s *Sender) Send(ctx context.Context, j Job, attempt int) (push.Decision, error) {
	n, err := s.resolver.Resolve(ctx, j)
	if err != nil {
		return push.Decision{}, err
	}
	r := s.deliverer.Deliver(ctx, n)
	d := s.retry.Decide(n, attempt, r)
	s.recorder.record(ctx, d.Status, func() []byte {
		if d.Status.State != push.StateFailed {
			return nil
		}
		return s.recorder.encode(j)
	})
	return d, nil
}

// Recorder logs delivery outcomes in their tasks' delivery logs; it
// implements memqueue.OutcomeRecorder. A queue that reports outcomes
// without their jobs (memqueue) has the jobs held (Hold) until their
// final outcome, so that a dead-lettered one is logged with the job that
// redrives it.
type Recorder struct {
	store Store
	log   *slog.Logger

	mu   sync.Mutex
	held map[heldKey][]byte
}

// heldKey names a notification on its way: its event and config.
type heldKey struct{ eventID, configID string }

// NewRecorder returns a recorder on store.
func NewRecorder(store Store, log *slog.Logger) *Recorder {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Recorder{store: store, log: log, held: map[heldKey][]byte{}}
}

// Hold keeps j until its final outcome is recorded (or Release).
func (r *Recorder) Hold(j Job) {
	b := r.encode(j)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held[heldKey{j.EventID(), j.ConfigID}] = b
}

// Release forgets a held job that never reached the queue.
func (r *Recorder) Release(j Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.held, heldKey{j.EventID(), j.ConfigID})
}

// encode is j as the log keeps it, nil (and logged) when it cannot be
// encoded.
func (r *Recorder) encode(j Job) []byte {
	b, err := j.Encode()
	if err != nil {
		r.log.Error("could not encode a push notification job for the delivery log", "event_id", j.EventID(), "config_id", j.ConfigID, "error", err)
	}
	return b
}

// RecordOutcome logs s, with its held job when s is final, and logs it.
func (r *Recorder) RecordOutcome(ctx context.Context, s push.DeliveryStatus) {
	r.record(ctx, s, func() []byte {
		r.mu.Lock()
		defer r.mu.Unlock()
		k := heldKey{s.EventID, s.ConfigID}
		b := r.held[k]
		if s.State != push.StateRetrying {
			delete(r.held, k)
		}
		return b
	})
}

// record logs s (job gives the job of a final status) and logs it. A task
// gone meanwhile is not an error; other failures are logged (an outcome
// that could not be logged does not change the delivery).
func (r *Recorder) record(ctx context.Context, s push.DeliveryStatus, job func() []byte) {
	attrs := []any{"event_id", s.EventID, "task_id", s.TaskID, "config_id", s.ConfigID, "state", s.State,
		"attempts", s.Attempts, "status_code", s.LastStatusCode}
	switch s.State {
	case push.StateDelivered:
		r.log.InfoContext(ctx, "push notification delivered", attrs...)
	case push.StateRetrying:
		r.log.WarnContext(ctx, "push notification attempt failed; will retry", append(attrs, "error", s.LastError, "next_attempt_at", s.NextAttemptAt)...)
	default:
		r.log.ErrorContext(ctx, "push notification failed for good", append(attrs, "error", s.LastError)...)
	}
	var b []byte
	if s.State != push.StateRetrying {
		b = job()
	}
	a, err := Attempt(s, b)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		err = r.store.LogDelivery(ctx, s.TaskID, a)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		r.log.ErrorContext(ctx, "could not log a push notification outcome", "event_id", s.EventID, "config_id", s.ConfigID, "error", err)
	}
}

// Queue accepts notifications for delivery; *memqueue.Queue implements it.
type Queue interface {
	Enqueue(ctx context.Context, n push.Notification) error
}

// resolveTimeout bounds resolving one local job.
const resolveTimeout = 5 * time.Second

// Local is the fan-out of the local server: given to the memory store as
// its OnChange, it resolves the jobs of every change and hands the
// notifications to an in-process queue (memqueue), which delivers them
// with the same code and retry policy as the Lambda functions. It is also
// the local server's redriver (service.DeliveryRedriver).
type Local struct {
	resolver *Resolver
	queue    Queue
	recorder *Recorder
	log      *slog.Logger
}

// NewLocal returns the local fan-out. recorder is the queue's: a redrive
// that cannot be enqueued is logged failed there, with its job.
func NewLocal(resolver *Resolver, queue Queue, recorder *Recorder, log *slog.Logger) *Local {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	return &Local{resolver: resolver, queue: queue, recorder: recorder, log: log}
}

// OnChange enqueues the notifications of c. It reads the store (without
// holding its lock: the memory store calls OnChange after unlocking) and
// never waits on a webhook.
func (l *Local) OnChange(c store.TaskChange) {
	for _, j := range Jobs(c) {
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
		err := l.enqueue(ctx, j)
		cancel()
		switch {
		case errors.Is(err, ErrGone):
			continue // deleted between the change and now
		case err != nil:
			l.log.Error("push notification dropped", "event_id", j.EventID(), "config_id", j.ConfigID, "error", err)
		}
	}
}

// Redrive implements service.DeliveryRedriver: it enqueues d's job again.
// When that fails, d is logged failed again (with its job, to be redriven
// later) and the error returned.
func (l *Local) Redrive(ctx context.Context, d store.Delivery) error {
	j, err := DeliveryJob(d)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		err = l.enqueue(ctx, j)
		cancel()
	}
	if err == nil {
		return nil
	}
	l.recorder.record(ctx, push.DeliveryStatus{EventID: d.EventID(), TaskID: d.TaskID, ConfigID: d.ConfigID, State: push.StateFailed,
		Attempts: 1, LastError: "redrive not sent: " + err.Error(), LastAttemptAt: d.UpdatedAt}, func() []byte { return d.Job })
	return err
}

// enqueue resolves j and hands its notification to the queue.
func (l *Local) enqueue(ctx context.Context, j Job) error {
	n, err := l.resolver.Resolve(ctx, j)
	if err != nil {
		return err
	}
	l.recorder.Hold(j)
	if err := l.queue.Enqueue(context.Background(), n); err != nil {
		l.recorder.Release(j)
		return err
	}
	return nil
}
