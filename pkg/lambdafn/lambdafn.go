// Package lambdafn is what every Lambda function's main shares and what
// needs no AWS SDK service client: the HTTP API adapter, reporting a failed
// cold start, the JSON logger, resolving secret references (pkg/secrets
// reads them without the SSM and Secrets Manager clients), the push signing
// keys, and the whole card function.
//
// It must not import the AWS SDK's service clients, nor its default
// configuration loader (pkg/app does): Go runs every linked package's
// initialization at cold start, and the SDK's service packages are costly
// to initialize (GODEBUG=inittrace=1 shows ssm/schemas, dynamodb/schemas,
// ...). A test in functions/ holds the card binary to that.
package lambdafn

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/runtimeapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/secrets"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler.
func LambdaHTTP(h http.Handler) HTTPFunc { return httpadapter.NewV2(h).ProxyWithContext }

// NewLogger returns the JSON logger every binary uses.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// Cards returns the card source of an agent.
func Cards(info agent.Info, bearer, push bool, versions []a2a.Version) httpapi.CardSource {
	return func(publicURL string) (a2a.AgentCard, a2a.AgentCard) {
		o := card.Options{PublicURL: publicURL, Agent: info, BearerAuth: bearer, PushNotifications: push, Versions: versions}
		return card.Public(o), card.Extended(o)
	}
}

// GzipMinimumSize maps A2A_HTTP_GZIP_MINIMUM_SIZE to httpapi's option, in
// which 0 means the default: a configured 0 compresses every body.
func GzipMinimumSize(cfg config.Config) int {
	return max(cfg.GzipMinimumSize, 1)
}

// NewCardFunction builds the card function's handler: the public cards and
// the push notification JWKS, nothing else; its only AWS access is reading
// the signing keys when A2A_PUSH_SIGNING_KEYS is a reference. A deployed
// agent always requires authentication (bearer tokens, or a JWT as a
// bearer token), so its card declares the bearer scheme. Without A2A_PUBLIC_URL the card's URLs are
// those the request was addressed to (the API's own domain, or its custom
// domain).
func NewCardFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	log := NewLogger(logOut, cfg.LogLevel)
	o := httpapi.Options{
		Routes:          httpapi.RoutesCard,
		Cards:           Cards(ag.Info(), true, cfg.Push.Enabled, cfg.ProtocolVersions),
		Versions:        cfg.ProtocolVersions,
		PublicURL:       cfg.ConfiguredPublicURL,
		GzipMinimumSize: GzipMinimumSize(cfg),
		Logger:          log,
	}
	if cfg.Push.Enabled {
		ks, err := PushKeys(cfg, false, log)
		if err != nil {
			return nil, err
		}
		o.JWKS = ks
	}
	return httpapi.New(o)
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

// ResolveSecrets returns getenv with the secret references among
// config.SecretVariables resolved (ssm:<name>, secretsmanager:<name or
// ARN>; see pkg/secrets), read once with the environment's credentials (the
// function role's, in Lambda) in AWS_REGION, or at AWS_ENDPOINT_URL.
// Without references it returns getenv itself and makes no request. Errors
// name the variable, never a value.
func ResolveSecrets(ctx context.Context, getenv func(string) string) (func(string) string, error) {
	names := config.SecretVariables()
	if !secrets.References(getenv, names) {
		return getenv, nil
	}
	creds, err := secrets.EnvCredentials(getenv)
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	reader := &secrets.AWS{
		Region:      cmp.Or(strings.TrimSpace(getenv("AWS_REGION")), strings.TrimSpace(getenv("AWS_DEFAULT_REGION"))),
		EndpointURL: strings.TrimSpace(getenv("AWS_ENDPOINT_URL")),
		Credentials: creds,
	}
	r := secrets.Resolver{SSM: reader, SecretsManager: reader}
	resolved, err := r.Env(ctx, getenv, names)
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	return resolved, nil
}

// InitFailed reports that a function could not start: as a JSON log line on
// stderr and, inside Lambda (AWS_LAMBDA_RUNTIME_API is set), to the Runtime
// API's init error endpoint, so that Lambda records the reason as the error
// of the invocation that caused the cold start. The caller exits afterwards.
func InitFailed(ctx context.Context, getenv func(string) string, stderr io.Writer, function string, err error) {
	log := NewLogger(stderr, slog.LevelInfo).With("function", function)
	log.ErrorContext(ctx, "cold start failed", "error", err.Error())
	if api := getenv(runtimeapi.EnvAPI); api != "" {
		if rerr := runtimeapi.ReportInitError(ctx, http.DefaultClient, api, fmt.Errorf("%s: %w", function, err)); rerr != nil {
			log.ErrorContext(ctx, "could not report the failed cold start", "error", rerr.Error())
		}
	}
}
