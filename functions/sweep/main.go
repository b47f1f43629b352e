// Command sweep is the Lambda function that EventBridge invokes every
// minute: it takes over the tasks whose runner died (a send function that
// crashed or timed out in the middle of an inline step) once their lease
// lapsed, or fails them after A2A_TASK_MAX_TAKEOVERS. It only wires;
// pkg/app assembles the handler once per cold start.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/lambdafn"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

func main() {
	tel := telemetry.ForLambda("sweep", os.Getenv, os.Stdout, os.Stderr)
	h, err := app.NewSweepFunction(tel.Context(context.Background()), os.Getenv, builtin.Registry(), os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "sweep", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.Wrap(tel, h, nil))
}
