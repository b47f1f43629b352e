// Command card is the Lambda function that serves the public agent card
// (GET /.well-known/agent-card.json and /.well-known/agent.json). It needs
// no AWS access.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/lambdafn"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

func main() {
	tel := telemetry.ForLambda("card", os.Getenv, os.Stdout, os.Stderr)
	h, err := lambdafn.NewCardFunction(tel.Context(context.Background()), os.Getenv, builtin.Registry(), os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "card", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.HTTP(tel, lambdafn.LambdaHTTP(h, lambdafn.NewLogger(os.Stderr, slog.LevelError))))
}
