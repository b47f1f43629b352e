package setup

import (
	"cmp"
	"net"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/files"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// PushChecker is the registration check of webhooks: push.CheckConfig with
// the configured egress policy.
func PushChecker(cfg config.Config) service.PushConfigChecker {
	policy := egress.Policy{AllowInsecure: cfg.Push.AllowInsecure}
	return func(c a2a.PushNotificationConfig) error { return push.CheckConfig(policy, c) }
}

// PushIssuer is the iss claim of notification JWTs: A2A_PUSH_ISSUER, else the
// public URL (for the local server, the bind address when it is unset).
func PushIssuer(cfg config.Config, local bool) string {
	if local {
		return cmp.Or(cfg.Push.Issuer, cfg.PublicURL, "http://"+net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	}
	return cmp.Or(cfg.Push.Issuer, cfg.ConfiguredPublicURL)
}

// PushBodies renders the notification bodies of configs registered under
// versions other than 0.3 (notify.TaskBody): under A2A 1.0, a
// StreamResponse {"task": ...} sent as application/a2a+json.
func PushBodies() map[a2a.Version]notify.Body {
	return map[a2a.Version]notify.Body{a2a.V10: func(t *a2a.Task) (string, []byte, error) {
		b, err := a2av1.TaskNotification(t)
		return a2av1.ContentType, b, err
	}}
}

// PushResolver resolves the jobs of store's tasks, whose kept files fs names
// by presigned URLs.
func PushResolver(store notify.Store, fs *files.Files) *notify.Resolver {
	r := notify.NewResolver(store, PushBodies())
	if fs != nil {
		r.WithPresign(fs.PresignTask)
	}
	return r
}

// PushRetry is the configured retry policy of deliveries.
func PushRetry(cfg config.Config) push.RetryPolicy {
	return push.RetryPolicy{MaxAttempts: cfg.Push.MaxAttempts}
}

// NewDeliverer returns the deliverer of notifications signed by ks as
// issuer, under the configured egress policy; clk tells the time (nil:
// the system clock).
func NewDeliverer(cfg config.Config, ks *keys.Set, issuer string, clk clock.Clock) (*push.Deliverer, error) {
	return push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: issuer, Policy: egress.Policy{AllowInsecure: cfg.Push.AllowInsecure}, Clock: clk})
}
