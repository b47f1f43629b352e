package boot

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// NewCardFunction builds the card function's handler: the public cards and
// the push notification JWKS, nothing else; its only AWS access is reading
// the signing keys when A2A_PUSH_SIGNING_KEYS is a reference. A deployed
// agent always requires authentication (bearer tokens, or a JWT as a
// bearer token), so its card declares the bearer scheme. Without
// A2A_PUBLIC_URL the card's URLs are those the request was addressed to
// (the API's own domain, or its custom domain).
func NewCardFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	env, err := Start(ctx, getenv, logOut)
	if err != nil {
		return nil, err
	}
	ag, err := env.Agent(reg)
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	o := HandlerOptions(cfg, ag.Info(), Edge{Routes: httpapi.RoutesCard, FilesKept: cfg.Files.Bucket != "", Log: env.Log})
	if cfg.Push.Enabled {
		ks, err := PushKeys(cfg, false, env.Log)
		if err != nil {
			return nil, err
		}
		o.JWKS = ks
	}
	return httpapi.New(o)
}

// CardFunction builds the card function's Lambda handler (what
// functions/card starts): NewCardFunction, with the agent named by
// A2A_AGENT from reg, behind the HTTP API adapter.
func CardFunction(reg *agent.Registry) Builder {
	return func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := NewCardFunction(ctx, getenv, reg, logOut)
		if err != nil {
			return nil, err
		}
		return LambdaHTTP(h, NewLogger(logOut, slog.LevelError).With("function", "card")), nil
	}
}
