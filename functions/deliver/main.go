// Command deliver is the Lambda function on the push delivery queue: it
// POSTs each job's signed notification to its webhook, schedules retries
// through the message's visibility timeout, dead-letters what fails for
// good, and records every outcome on the push config. It only wires;
// pkg/app assembles the handler once per cold start.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/lambdafn"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

func main() {
	tel := telemetry.ForLambda("deliver", os.Getenv, os.Stdout, os.Stderr)
	h, err := app.NewDeliverFunction(tel.Context(context.Background()), os.Getenv, os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "deliver", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.Wrap(tel, h.Handle, nil))
}
