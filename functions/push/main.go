// Command push is the Lambda function on the task table's DynamoDB stream
// (NEW_AND_OLD_IMAGES): it turns the task changes webhooks are told about
// into one delivery job per push config on the delivery queue, reporting
// partial batch failures by sequence number. It only wires; pkg/app
// assembles the handler once per cold start.
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
	tel := telemetry.ForLambda("push", os.Getenv, os.Stdout, os.Stderr)
	h, err := app.NewPushFunction(tel.Context(context.Background()), os.Getenv, os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "push", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.Wrap(tel, h.Handle, nil))
}
