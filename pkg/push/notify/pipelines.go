package notify

// The two pipelines of the package doc, built on the same Resolver: Sender,
// one delivery attempt per queue message (Lambda), and Local, the in-process
// fan-out of the local server.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/logger"
	"github.com/a2a-lambda/a2a-lambda/pkg/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
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
	log       *slog.Logger
}

// NewSender returns a sender that resolves jobs with resolver, delivers
// with d, decides retries with retry and records outcomes in store.
func NewSender(resolver *Resolver, d Deliverer, retry push.RetryPolicy, store Store, log *slog.Logger) *Sender {
	log = logger.Or(log)
	return &Sender{resolver: resolver, deliverer: d, retry: retry, recorder: NewRecorder(store, log), log: log}
}

// Send makes attempt number attempt (1 for the first) of j, records its
// outcome on the config and returns the decision: delivered, retry after
// Delay, or failed for good (dead-letter it). It returns an error wrapping
// ErrGone when there is nobody to notify any more (drop the job), and
// another error when the job could not be resolved (try again later).
func (s *Sender) Send(ctx context.Context, j Job, attempt int) (push.Decision, error) {
	n, err := s.resolver.Resolve(ctx, j)
	if err != nil {
		return push.Decision{}, err
	}
	r := s.deliverer.Deliver(ctx, n)
	d := s.retry.Decide(n, attempt, r)
	s.recorder.RecordOutcome(ctx, d.Status)
	return d, nil
}

// Recorder stores delivery outcomes on their configs; it implements
// memqueue.OutcomeRecorder.
type Recorder struct {
	store Store
	log   *slog.Logger
}

// NewRecorder returns a recorder on store.
func NewRecorder(store Store, log *slog.Logger) *Recorder {
	log = logger.Or(log)
	return &Recorder{store: store, log: log}
}

// RecordOutcome records s on its config and logs it. A config deleted
// meanwhile is not an error; other failures are logged (an outcome that
// could not be recorded does not change the delivery).
func (r *Recorder) RecordOutcome(ctx context.Context, s push.DeliveryStatus) {
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
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	err := r.store.RecordDelivery(ctx, s.TaskID, s.ConfigID, Record(s))
	if err != nil && !errors.Is(err, service.ErrNotFound) {
		r.log.ErrorContext(ctx, "could not record a push notification outcome", "event_id", s.EventID, "config_id", s.ConfigID, "error", err)
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
// with the same code and retry policy as the Lambda functions.
type Local struct {
	resolver *Resolver
	queue    Queue
	log      *slog.Logger
}

// NewLocal returns the local fan-out.
func NewLocal(resolver *Resolver, queue Queue, log *slog.Logger) *Local {
	log = logger.Or(log)
	return &Local{resolver: resolver, queue: queue, log: log}
}

// OnChange enqueues the notifications of c. It reads the store (without
// holding its lock: the memory store calls OnChange after unlocking) and
// never waits on a webhook.
func (l *Local) OnChange(c service.TaskChange) {
	for _, j := range Jobs(c) {
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
		n, err := l.resolver.Resolve(ctx, j)
		cancel()
		switch {
		case errors.Is(err, ErrGone):
			continue // deleted between the change and now
		case err != nil:
			l.log.Error("could not prepare a push notification", "event_id", j.EventID(), "config_id", j.ConfigID, "error", err)
			continue
		}
		if err := l.queue.Enqueue(context.Background(), n); err != nil {
			l.log.Error("push notification dropped", "event_id", j.EventID(), "config_id", j.ConfigID, "error", err)
		}
	}
}
