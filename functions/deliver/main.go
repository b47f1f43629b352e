// Command deliver is the Lambda function on the push delivery queue: it
// POSTs each job's signed notification to its webhook, schedules retries
// through the message's visibility timeout, dead-letters what fails for
// good, and records every outcome on the push config. It only wires;
// pkg/app assembles the handler once per cold start and pkg/boot starts it.
package main

import (
	"context"
	"io"

	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() {
	boot.Main("deliver", func(ctx context.Context, getenv func(string) string, logOut io.Writer) (any, error) {
		h, err := app.NewDeliverFunction(ctx, getenv, logOut)
		if err != nil {
			return nil, err
		}
		return h.Handle, nil
	})
}
