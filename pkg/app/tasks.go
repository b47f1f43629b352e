package app

import (
	"context"
	"io"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// TasksFunction is the tasks function's Lambda handler: the REST task
// routes (get, list, cancel, push configs) and the extended card, on the
// DynamoDB store (see NewLambdaHTTP). Call it once per cold start.
func TasksFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (boot.HTTPFunc, error) {
	return httpFunction(ctx, "tasks", getenv, reg, httpapi.RoutesTasks, logOut)
}
