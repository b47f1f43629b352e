// Command a2a is a client of A2A agents for the terminal and for scripts:
// card, send, get, list, cancel and reply, with live progress while a task
// runs, and webhook listen, a receiver that verifies and prints push
// notifications. Run "a2a help" for its usage; the logic lives in pkg/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Env{
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		Terminal: cli.IsTerminal(os.Stdout),
	})
	stop()
	os.Exit(code)
}
