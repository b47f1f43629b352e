// Command send is the send Lambda function: JSON-RPC (every method: POST /) and the REST message:send routes,
// behind an API Gateway HTTP API (payload 2.0), on the DynamoDB task store.
// It only wires; pkg/app assembles the handler once per cold start.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/lambdafn"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

func main() {
	tel := telemetry.ForLambda("send", os.Getenv, os.Stdout, os.Stderr)
	h, err := app.NewLambdaHTTP(tel.Context(context.Background()), os.Getenv, builtin.Registry(), httpapi.RoutesRPC, os.Stderr)
	if err != nil {
		lambdafn.InitFailed(context.Background(), os.Getenv, os.Stderr, "send", err)
		os.Exit(1)
	}
	lambda.Start(telemetry.HTTP(tel, lambdafn.LambdaHTTP(h, lambdafn.NewLogger(os.Stderr, slog.LevelError))))
}
