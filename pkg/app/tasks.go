package app

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// TasksFunction builds the tasks function's Lambda handler: the REST task
// routes (get, list, cancel, push configs) and the extended card, on the
// DynamoDB store (see NewLambdaHTTP).
func TasksFunction(reg *agent.Registry) boot.Builder {
	return httpFunction("tasks", reg, httpapi.RoutesTasks)
}
