package app

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// SendFunction builds the send function's Lambda handler: JSON-RPC (every
// method, POST /), the REST message:send routes and /orchestrate, on the
// DynamoDB store, with the agent named by A2A_AGENT from reg (see
// NewLambdaHTTP).
func SendFunction(reg *agent.Registry) boot.Builder {
	return httpFunction("send", reg, httpapi.RoutesRPC)
}
