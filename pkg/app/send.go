package app

import (
	"context"
	"io"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// SendFunction is the send function's Lambda handler: JSON-RPC (every
// method, POST /), the REST message:send routes and /orchestrate, on the
// DynamoDB store, with the agent named by A2A_AGENT from reg (see
// NewLambdaHTTP). Call it once per cold start.
func SendFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (boot.HTTPFunc, error) {
	return httpFunction(ctx, "send", getenv, reg, httpapi.RoutesRPC, logOut)
}
