// Command card is the Lambda function that serves the public agent card
// (GET /.well-known/agent-card.json and /.well-known/agent.json). It needs
// no AWS access.
package main

import (
	"context"
	"io"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() {
	boot.Main("card", func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		return boot.CardFunction(ctx, getenv, builtin.Registry(), logOut)
	})
}
