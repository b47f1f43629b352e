package startup

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// Edge is what an HTTP handler is assembled from besides the
// configuration and the agent's description: its route groups, its
// collaborators, and what the binary that serves it knows.
type Edge struct {
	// Routes are the route groups served; zero serves all (the local
	// server).
	Routes  httpapi.Routes
	Service httpapi.Service
	Auth    httpapi.Authenticator
	// Anonymous: callers are not authenticated (the local server on a
	// loopback bind without tokens), so the cards declare no bearer scheme.
	Anonymous bool
	// FilesKept: the server keeps files, so the cards carry the files
	// extension with the configuration's limits.
	FilesKept bool
	// Local is the local server: the cards' URL is A2A_PUBLIC_URL or else
	// the bind address, and responses have no size limit. Otherwise (a
	// Lambda function) it is A2A_PUBLIC_URL or else each request's URL,
	// and a response must fit Lambda's (MaxResponseBytes).
	Local bool
	// StoreBackend and ExecutionMode are what GET /health reports; empty,
	// the configuration's (A2A_TASK_STORE_BACKEND, A2A_EXECUTION).
	StoreBackend, ExecutionMode string
	// JWKS serves the push notification verification keys; nil serves none.
	JWKS  http.Handler
	Clock clock.Clock
	Log   *slog.Logger
}

// HandlerOptions are the options of the HTTP handler of the agent info
// describes, configured by cfg: the one place the edge settings (cards,
// protocol versions, public URL, body and response limits, compression,
// CORS, callers' rate limits) become httpapi.Options, for the local
// server, the HTTP functions and the card function alike.
func HandlerOptions(cfg config.Config, info agent.Info, e Edge) httpapi.Options {
	o := httpapi.Options{
		Routes:       e.Routes,
		Service:      e.Service,
		Auth:         e.Auth,
		Cards:        cards(info, !e.Anonymous, cfg.Push.Enabled, cfg.ProtocolVersions, filesCard(cfg, e.FilesKept)),
		Versions:     cfg.ProtocolVersions,
		PublicURL:    cfg.ConfiguredPublicURL,
		MaxBodyBytes: cfg.MaxRequestBodyBytes,
		// httpapi's 0 is its default: a configured 0 compresses every body.
		GzipMinimumSize: max(cfg.GzipMinimumSize, 1),
		Profile: httpapi.NewProfile(buildinfo.Version(), info.Name, info.Version, cmp.Or(e.StoreBackend, cfg.TaskStore.Backend),
			cmp.Or(e.ExecutionMode, cfg.Execution.Mode), cfg.Push.Enabled),
		// API Gateway answers CORS itself (the template's
		// CorsConfiguration); the local server, sam local and tests reach
		// the handler.
		CORSAllowedOrigins: cfg.CORSAllowedOrigins,
		RateLimit:          httpapi.RateLimit{PerSecond: cfg.CallerRateLimit.PerSecond, Burst: cfg.CallerRateLimit.Burst, Clock: e.Clock},
		JWKS:               e.JWKS,
		Logger:             e.Log,
	}
	if e.Local {
		o.PublicURL = cfg.PublicURL
	} else {
		// A result above Lambda's response limit gets a typed error that
		// says how to ask for less, rather than a failed invocation.
		o.MaxResponseBytes, o.ResponseSize = MaxResponseBytes, ResponseSize
	}
	return o
}

// cards returns the card source of an agent.
func cards(info agent.Info, bearer, push bool, versions []a2a.Version, files *card.Files) httpapi.CardSource {
	return func(publicURL string) (a2a.AgentCard, func() a2a.AgentCard) {
		o := card.Options{PublicURL: publicURL, Agent: info, BearerAuth: bearer, PushNotifications: push, Versions: versions, Files: files}
		return card.Public(o), func() a2a.AgentCard { return card.Extended(o) }
	}
}

// filesCard is the files extension of cfg's limits when the server keeps
// files (kept), else nil.
func filesCard(cfg config.Config, kept bool) *card.Files {
	if !kept {
		return nil
	}
	return &card.Files{InlineLimitBytes: cfg.Files.InlineLimit, MaxUploadBytes: cfg.Files.MaxUploadBytes, URLTTL: cfg.Files.URLTTL}
}

// PushKeys returns the push notification signing keys of
// A2A_PUSH_SIGNING_KEYS. Without them, the local server (generate) makes a
// new ES256 key when it first signs a notification or serves its JWKS
// (keys.GenerateOnFirstUse), which lives as long as the process; the
// Lambda functions refuse to start.
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
	// Made when first needed, not at start-up: a server that never pushes
	// makes none. The log line comes once it is made.
	return keys.GenerateOnFirstUse(keys.AlgES256, func(ks *keys.Set, err error) {
		switch {
		case log == nil:
		case err != nil:
			log.Error("push notifications cannot be signed: no key could be generated (set A2A_PUSH_SIGNING_KEYS)", "error", err)
		default:
			log.Info("push notifications are signed with a key generated for this process; receivers refetch the JWKS after a restart (set A2A_PUSH_SIGNING_KEYS to keep one)", "kid", ks.KeyID())
		}
	})
}
