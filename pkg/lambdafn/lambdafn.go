// Package lambdafn is what every Lambda function's main shares and what
// needs no AWS client: the HTTP API adapter, reporting a failed cold start,
// the JSON logger, and the whole card function (which has no AWS access).
//
// It must not import the AWS SDK's service clients (pkg/app does): Go runs
// every linked package's initialization at cold start, and the SDK's
// service packages alone cost the card function tens of milliseconds of
// it (GODEBUG=inittrace=1 shows ssm/schemas, dynamodb/schemas, ...). A test
// in functions/ holds the card binary to that.
package lambdafn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/runtimeapi"
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
func Cards(info agent.Info, bearer, push bool) httpapi.CardSource {
	return func(publicURL string) (a2a.AgentCard, a2a.AgentCard) {
		o := card.Options{PublicURL: publicURL, Agent: info, BearerAuth: bearer, PushNotifications: push}
		return card.Public(o), card.Extended(o)
	}
}

// NewCardFunction builds the card function's handler: the public cards,
// nothing else, and no AWS access. A deployed agent always requires
// authentication (bearer tokens, or a JWT as a bearer token), so its card
// declares the bearer scheme. Without A2A_PUBLIC_URL the card's URLs are
// those the request was addressed to (the API's own domain, or its custom
// domain).
func NewCardFunction(getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	return httpapi.New(httpapi.Options{
		Routes:    httpapi.RoutesCard,
		Cards:     Cards(ag.Info(), true, false),
		PublicURL: cfg.ConfiguredPublicURL,
		Logger:    NewLogger(logOut, cfg.LogLevel),
	})
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
