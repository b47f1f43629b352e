package notify

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

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
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
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
