// Command worker is the Lambda function the state machine
// (infra/statemachine.asl.json) calls for every action of a task's step
// protocol: run a step, show an interrupt and bind its task token, expire
// an unanswered interrupt, fail a task whose step failed. It only wires;
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
	tel := telemetry.ForLambda("worker", os.Getenv, os.Stdout, os.Stderr)
	h, err := app.NewWorkerFunction(tel.Context(context.Background()), os.Getenv, builtin.Registry(), os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "worker", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.Wrap(tel, h.Handle, nil))
}
