package app

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler.
func LambdaHTTP(h http.Handler) HTTPFunc { return httpadapter.NewV2(h).ProxyWithContext }

// NewCardFunction builds the card function's handler: the public cards,
// nothing else, and no AWS access. A deployed agent always requires
// authentication, so its card declares the bearer scheme. Without
// A2A_PUBLIC_URL the card's URLs are those the request was addressed to (the
// API's own domain, or its custom domain).
func NewCardFunction(getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if getenv("A2A_PUBLIC_URL") == "" {
		cfg.PublicURL = ""
	}
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	return httpapi.New(httpapi.Options{
		Routes:    httpapi.RoutesCard,
		Cards:     Cards(ag.Info(), true, false),
		PublicURL: cfg.PublicURL,
		Logger:    NewLogger(logOut, cfg.LogLevel),
	})
}
