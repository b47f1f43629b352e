package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/memqueue"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/setup"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// localPush is the push pipeline of the local server: the memory store's
// changes, resolved by notify.Local, delivered by an in-process queue,
// every attempt in the delivery log; notify.Local also redrives.
type localPush struct {
	keys  *keys.Set
	queue *memqueue.Queue
	local *notify.Local
}

// PushOptions are the push collaborators of a local server that tests
// replace.
type PushOptions struct {
	// Keys signs notifications; nil means startup.PushKeys.
	Keys *keys.Set
	// Deliverer delivers them; nil means a push.Deliverer with the
	// configured egress policy.
	Deliverer memqueue.Deliverer
	// Retry overrides the configured retry policy when MaxAttempts is set.
	Retry push.RetryPolicy
}

func newLocalPush(cfg config.Config, store notify.Store, fs *files.Files, o PushOptions, clk clock.Clock, log *slog.Logger) (*localPush, error) {
	ks := o.Keys
	if ks == nil {
		var err error
		if ks, err = startup.PushKeys(cfg, true, log); err != nil {
			return nil, err
		}
	}
	d := o.Deliverer
	if d == nil {
		pd, err := setup.NewDeliverer(cfg, ks, setup.PushIssuer(cfg, true), clk)
		if err != nil {
			return nil, err
		}
		d = pd
	}
	retry := o.Retry
	if retry.MaxAttempts == 0 {
		retry = setup.PushRetry(cfg)
	}
	rec := notify.NewRecorder(store, log)
	q, err := memqueue.New(memqueue.Options{Deliverer: d, Retry: retry, Clock: clk, Recorder: rec, Logger: log})
	if err != nil {
		return nil, err
	}
	return &localPush{keys: ks, queue: q, local: notify.NewLocal(setup.PushResolver(store, fs), q, rec, log)}, nil
}

// pushCloseTimeout bounds how long the local server waits for deliveries
// under way when it stops.
const pushCloseTimeout = 5 * time.Second

func (p *localPush) close() {
	ctx, cancel := context.WithTimeout(context.Background(), pushCloseTimeout)
	defer cancel()
	_ = p.queue.Close(ctx)
}
