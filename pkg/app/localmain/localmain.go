// Package localmain is the main of a local server command, such as
// cmd/a2a-local or a command of your own that serves your agent: it serves
// the agent on this machine until the process is interrupted. When tasks
// are kept in DynamoDB or files in S3, its AWS credentials are those of the
// environment, else those the AWS CLI exports for its profile (aws
// configure export-credentials: static keys, SSO, roles).
package localmain

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
)

// Run serves the agent of reg that A2A_AGENT names, with every setting read
// through getenv, until an interrupt or SIGTERM, as app.RunLocal does. When
// the server cannot start or fails, it prints "name: error" to standard
// error and exits with status 1. The command takes no argument: -h, --help
// or help print its usage and exit 0, anything else prints it to standard
// error and exits 2 (see CommandLine). The Go collector runs as the Lambda
// functions' does, GOGC 400, under a soft memory limit of twice the memory
// task store's bound and 128 MiB (at most 90% of the container's memory
// limit), unless GOGC or GOMEMLIMIT are set.
func Run(name string, getenv func(string) string, reg *agent.Registry) {
	if code, done := CommandLine(name, os.Args[1:], reg, os.Stdout, os.Stderr); done {
		os.Exit(code)
	}
	// Beside the start-up: reading the container's memory limit takes it
	// 0.1-0.4 ms, and the collector's settings may come a moment later.
	go app.SizeLocalRuntime(getenv)
	ctx, stop, _ := interrupted(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := app.RunLocal(ctx, getenv, reg, os.Stdout, os.Stderr, app.LocalAWS)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// interrupted returns a context that the first of sigs cancels, as
// signal.NotifyContext's does, and stop, which cancels it and restores the
// signals' default behaviour. The signals are caught from the moment
// registered is closed: a goroutine asks for them, since the first
// signal.Notify of a process starts the runtime's signal thread, a fifth of
// a millisecond the server's start-up does not wait for (a signal before
// then ends the process, as it would have a moment earlier).
func interrupted(ctx context.Context, sigs ...os.Signal) (_ context.Context, stop func(), registered <-chan struct{}) {
	ctx, cancel := context.WithCancel(ctx)
	c := make(chan os.Signal, 1)
	reg := make(chan struct{})
	go func() {
		signal.Notify(c, sigs...)
		close(reg)
		select {
		case <-c:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		<-reg
		signal.Stop(c)
	}, reg
}

// CommandLine reads the command line of a local server command, args
// without the program name. With none it returns done false: serve. A
// request for help prints the usage to out (exit code 0); any other
// argument is a mistake, printed with the usage to errw (exit code 2):
// the server is configured by environment variables only, and starting it
// anyway would serve what the user did not ask for.
func CommandLine(name string, args []string, reg *agent.Registry, out, errw io.Writer) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(out, name, reg)
		return 0, true
	}
	fmt.Fprintf(errw, "%s: unexpected argument %q: the server takes no arguments, only A2A_* environment variables\n\n", name, args[0])
	usage(errw, name, reg)
	return 2, true
}

func usage(w io.Writer, name string, reg *agent.Registry) {
	fmt.Fprintf(w, `Usage: %[1]s

Serves an A2A agent on this machine until interrupted (Ctrl-C or SIGTERM): JSON-RPC on
POST /, HTTP+JSON under /rest, the agent card at /.well-known/agent-card.json. It takes
no arguments; settings are A2A_* environment variables, for example:

  A2A_AGENT=NAME              the agent to serve: %[2]s
  A2A_HOST, A2A_PORT          where to listen (default %[3]s:%[4]d)
  A2A_BEARER_TOKEN=TOKEN      require this bearer token (without one, only a loopback
                              address is served, to one anonymous caller)
  A2A_TASK_STORE_BACKEND      memory (default) or dynamodb, with A2A_TASK_STORE_TABLE
  A2A_CORS_ALLOWED_ORIGINS    web origins whose pages may call the agent
  A2A_LOG_LEVEL               debug, info (default), warn or error

Every setting, with its default, is in docs/configuration.md.
`, name, strings.Join(reg.Names(), ", "), config.DefaultHost, config.DefaultPort)
}
