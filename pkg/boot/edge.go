package boot

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// Cards returns the card source of an agent.
func Cards(info agent.Info, bearer, push bool, versions []a2a.Version, files *card.Files) httpapi.CardSource {
	return func(publicURL string) (a2a.AgentCard, a2a.AgentCard) {
		o := card.Options{PublicURL: publicURL, Agent: info, BearerAuth: bearer, PushNotifications: push, Versions: versions, Files: files}
		return card.Public(o), card.Extended(o)
	}
}

// FilesCard is the files extension of cfg's limits when the server keeps
// files (kept), else nil.
func FilesCard(cfg config.Config, kept bool) *card.Files {
	if !kept {
		return nil
	}
	return &card.Files{InlineLimitBytes: cfg.Files.InlineLimit, MaxUploadBytes: cfg.Files.MaxUploadBytes, URLTTL: cfg.Files.URLTTL}
}

// GzipMinimumSize maps A2A_HTTP_GZIP_MINIMUM_SIZE to httpapi's option, in
// which 0 means the default: a configured 0 compresses every body.
func GzipMinimumSize(cfg config.Config) int {
	return max(cfg.GzipMinimumSize, 1)
}

// RateLimit maps A2A_CALLER_RATE_LIMIT and A2A_CALLER_BURST_LIMIT to
// httpapi's option, on clk.
func RateLimit(cfg config.Config, clk clock.Clock) httpapi.RateLimit {
	return httpapi.RateLimit{PerSecond: cfg.CallerRateLimit.PerSecond, Burst: cfg.CallerRateLimit.Burst, Clock: clk}
}

// PushKeys returns the push notification signing keys of
// A2A_PUSH_SIGNING_KEYS. Without them, the local server (generate) makes a
// new ES256 key, which lives as long as the process; the Lambda functions
// refuse to start.
func PushKeys(cfg config.Config, generate bool, log *slog.Logger) (*keys.Set, error) {
	if cfg.Push.SigningKeys != "" {
		ks, err := keys.Parse([]byte(cfg.Push.SigningKeys))
		if err != nil {
			return nil, fmt.Errorf("A2A_PUSH_SIGNING_KEYS: %w", err)
		}
		return ks, nil
	}
	if !generate {
		return nil, errors.New("A2A_PUSH_SIGNING_KEYS is required to sign push notifications (PEM text, or an ssm: or secretsmanager: reference), or set A2A_PUSH_NOTIFICATIONS=false")
	}
	ks, err := keys.Generate(keys.AlgES256)
	if err != nil {
		return nil, err
	}
	if log != nil {
		log.Info("push notifications are signed with a key generated at start-up; receivers refetch the JWKS after a restart (set A2A_PUSH_SIGNING_KEYS to keep one)", "kid", ks.KeyID())
	}
	return ks, nil
}

// Profile is the deployment profile GET /health reports.
func Profile(cfg config.Config, info agent.Info, storeBackend, executionMode string) *httpapi.Profile {
	return httpapi.NewProfile(buildinfo.Version(), info.Name, info.Version, storeBackend, executionMode, cfg.Push.Enabled)
}

// CheckLambdaStore refuses what no Lambda function that keeps tasks or
// sends webhooks can work with: a store that forgets, and the local
// development switch for webhooks.
func CheckLambdaStore(cfg config.Config) error {
	var errs []error
	if cfg.TaskStore.Backend != config.BackendDynamoDB {
		errs = append(errs, fmt.Errorf("A2A_TASK_STORE_BACKEND=%s: a Lambda function forgets everything between invocations; set A2A_TASK_STORE_BACKEND=dynamodb and A2A_TASK_STORE_TABLE", cfg.TaskStore.Backend))
	}
	if cfg.Push.AllowInsecure {
		errs = append(errs, errors.New("A2A_PUSH_ALLOW_INSECURE=true is for local development: in Lambda, loopback reaches the Lambda Runtime API"))
	}
	return errors.Join(errs...)
}
