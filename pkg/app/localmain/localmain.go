// Package localmain is the main of a local server command, such as
// cmd/a2a-local or a command of your own that serves your agent: it serves
// the agent on this machine until the process is interrupted, with the AWS
// SDK's default configuration (profiles, SSO) when tasks are kept in
// DynamoDB.
package localmain

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/awsdefault"
)

// Run serves the agent of reg that A2A_AGENT names, with every setting read
// through getenv, until an interrupt or SIGTERM, as app.RunLocal does. When
// the server cannot start or fails, it prints "name: error" to standard
// error and exits with status 1.
func Run(name string, getenv func(string) string, reg *agent.Registry) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := app.RunLocal(ctx, getenv, reg, os.Stdout, os.Stderr, awsdefault.Load)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
