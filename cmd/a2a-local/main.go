// Command a2a-local serves an A2A agent on this machine with embedded
// defaults: an in-memory task store, goroutine runner and the demo agent.
// `make run` starts it. Settings come from A2A_* environment variables
// (see the README).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/awsdefault"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.RunLocal(ctx, os.Getenv, builtin.Registry(), os.Stdout, os.Stderr, awsdefault.Load); err != nil {
		fmt.Fprintln(os.Stderr, "a2a-local:", err)
		os.Exit(1)
	}
}
