package app

import (
	"cmp"
	"context"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/memqueue"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/service"
)

// PushChecker is the registration check of webhooks: push.CheckConfig with
// the configured egress policy.
func PushChecker(cfg config.Config) service.PushConfigChecker {
	policy := egress.Policy{AllowInsecure: cfg.Push.AllowInsecure}
	return func(c a2a.PushNotificationConfig) error { return push.CheckConfig(policy, c) }
}

// pushIssuer is the iss claim of notification JWTs: A2A_PUSH_ISSUER, else
// the public URL (locally, the bind address when it is unset).
func pushIssuer(cfg config.Config, local bool) string {
	if local {
		return cmp.Or(cfg.Push.Issuer, cfg.PublicURL, "http://"+net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	}
	return cmp.Or(cfg.Push.Issuer, cfg.ConfiguredPublicURL)
}

// pushBodies renders the notification bodies of configs registered under
// versions other than 0.3 (notify.TaskBody): under A2A 1.0, a
// StreamResponse {"task": ...} sent as application/a2a+json.
func pushBodies() map[a2a.Version]notify.Body {
	return map[a2a.Version]notify.Body{a2a.V10: func(t *a2a.Task) (string, []byte, error) {
		b, err := a2av1.TaskNotification(t)
		return a2av1.ContentType, b, err
	}}
}

func retryPolicy(cfg config.Config) push.RetryPolicy {
	return push.RetryPolicy{MaxAttempts: cfg.Push.MaxAttempts}
}

func newDeliverer(cfg config.Config, ks *keys.Set, issuer string, clk clock.Clock) (*push.Deliverer, error) {
	return push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: issuer, Policy: egress.Policy{AllowInsecure: cfg.Push.AllowInsecure}, Clock: clk})
}

// localPush is the push pipeline of the local server: the memory store's
// changes, resolved by notify.Local, delivered by an in-process queue.
type localPush struct {
	keys  *keys.Set
	queue *memqueue.Queue
	local *notify.Local
}

// PushOptions are the push collaborators of a local server that tests
// replace.
type PushOptions struct {
	// Keys signs notifications; nil means boot.PushKeys.
	Keys *keys.Set
	// Deliverer delivers them; nil means a push.Deliverer with the
	// configured egress policy.
	Deliverer memqueue.Deliverer
	// Retry overrides the configured retry policy when MaxAttempts is set.
	Retry push.RetryPolicy
}

func newLocalPush(cfg config.Config, store notify.Store, o PushOptions, clk clock.Clock, log *slog.Logger) (*localPush, error) {
	ks := o.Keys
	if ks == nil {
		var err error
		if ks, err = boot.PushKeys(cfg, true, log); err != nil {
			return nil, err
		}
	}
	d := o.Deliverer
	if d == nil {
		pd, err := newDeliverer(cfg, ks, pushIssuer(cfg, true), clk)
		if err != nil {
			return nil, err
		}
		d = pd
	}
	retry := o.Retry
	if retry.MaxAttempts == 0 {
		retry = retryPolicy(cfg)
	}
	q, err := memqueue.New(memqueue.Options{Deliverer: d, Retry: retry, Clock: clk, Recorder: notify.NewRecorder(store, log), Logger: log})
	if err != nil {
		return nil, err
	}
	return &localPush{keys: ks, queue: q, local: notify.NewLocal(notify.NewResolver(store, pushBodies()), q, log)}, nil
}

// pushCloseTimeout bounds how long the local server waits for deliveries
// under way when it stops.
const pushCloseTimeout = 5 * time.Second

func (p *localPush) close() {
	ctx, cancel := context.WithTimeout(context.Background(), pushCloseTimeout)
	defer cancel()
	_ = p.queue.Close(ctx)
}
