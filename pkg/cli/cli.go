// Package cli is the a2a command: a client of any A2A agent for the
// terminal and for scripts. cmd/a2a only wires it to the process.
//
//	a2a card   URL
//	a2a send   URL [TEXT] [--file PATH]... [--context ID] [--task ID] [--wait] [--push-url URL]
//	a2a get    URL TASK [--wait]
//	a2a list   URL [--context ID] [--state STATE] [--page-size N] [--page-token T]
//	a2a cancel URL TASK
//	a2a reply  URL TASK [TEXT | --answer A... | --decline | --allow once|always | --deny]
//	a2a deliveries URL TASK
//	a2a deliveries retry URL TASK [EVENT] [--config ID]
//	a2a webhook listen ADDR --agent URL [--token T] [--audience URL]
//	a2a init   DIR --module PATH [--replace PATH]
//
// While waiting it shows live progress: redrawn in place on a terminal,
// plain lines otherwise. --json prints the result as JSON for scripts, and
// an error as one JSON object on standard error. The exit code tells how
// the task ended (see the Exit constants).
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
)

// Exit codes. A command that shows a task exits with the code of the
// task's state; a task still submitted or working exits 0.
const (
	ExitOK            = 0 // completed, or the command succeeded
	ExitError         = 1 // network, protocol or server error (401 included)
	ExitUsage         = 2 // bad command line
	ExitFailed        = 3 // the task failed
	ExitCanceled      = 4 // the task was canceled
	ExitRejected      = 5 // the agent rejected the task
	ExitInputRequired = 6 // the task waits for input (the question is printed)
	ExitAuthRequired  = 7 // the task waits for authentication
	ExitTimeout       = 8 // --wait gave up after --timeout; the task goes on
	ExitInterrupted   = 130
)

// TokenEnv is the environment variable holding the bearer token.
const TokenEnv = "A2A_TOKEN"

// Env is the process around the command.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Terminal is true when Stdout is a terminal: progress is redrawn in
	// place.
	Terminal bool
	// HTTPClient sends the requests; nil uses the client's default.
	HTTPClient *http.Client
	// PollMin and PollMax bound the delay between polls while waiting;
	// zero uses the client's defaults.
	PollMin, PollMax time.Duration
	// Tick is the redraw period of the progress line on a terminal; zero
	// means 100ms.
	Tick time.Duration
}

// IsTerminal reports whether f is a terminal (a character device).
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

type command struct {
	name, args, summary string
	run                 func(r *runner, args []string) int
}

func commands() []command {
	return []command{
		{"card", "URL", "show the agent card and the interface the client would use", (*runner).card},
		{"send", "URL TEXT", "send a message (TEXT - reads standard input; --file PATH attaches a file); --wait follows the task", (*runner).send},
		{"get", "URL TASK", "show a task; --wait follows it until it finishes or needs input", (*runner).get},
		{"list", "URL", "list your tasks, newest first", (*runner).list},
		{"cancel", "URL TASK", "cancel a task", (*runner).cancel},
		{"reply", "URL TASK [TEXT]", "answer a question or a permission request of an interrupted task", (*runner).reply},
		{"deliveries", "URL TASK", "show a task's push notification deliveries; \"deliveries retry URL TASK [EVENT]\" sends failed ones again", (*runner).deliveries},
		{"webhook", "listen ADDR", "receive the agent's push notifications on ADDR, verify and print them", (*runner).webhook},
		{"version", "", "print the version of a2a-lambda this command was built from", (*runner).version},
		{"init", "DIR", "write a new project of your own agent into DIR: the Go module --module PATH, served and deployed by a2a-lambda", (*runner).initProject},
	}
}

// Run runs the command line args (without the program name) and returns
// the exit code.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Tick <= 0 {
		env.Tick = 100 * time.Millisecond
	}
	r := &runner{ctx: ctx, env: env, out: env.Stdout, errw: env.Stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		r.usage(env.Stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			r.cmd = c
			return c.run(r, args[1:])
		}
	}
	fmt.Fprintf(env.Stderr, "a2a: unknown command %q\n\n", args[0])
	r.usage(env.Stderr)
	return ExitUsage
}

func (r *runner) usage(w io.Writer) {
	fmt.Fprintln(w, "a2a talks to A2A agents (protocol 0.3 and 1.0, JSON-RPC and HTTP+JSON).")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  a2a %-10s %-16s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, `
URL is the agent's base URL (its card is at URL/.well-known/agent-card.json) or its card's URL.
Every client command takes --token (default $%s), --json, --binding jsonrpc|rest,
--protocol 0.3|1.0, --timeout DURATION. Run "a2a COMMAND -h" for the flags of a command.
With --json, an error is one JSON object on standard error: {"error": {...}, "exitCode": N}.
"a2a webhook listen" runs until interrupted (Ctrl-C), then exits 0.

Exit codes: 0 completed (or done), 1 error, 2 usage, 3 failed, 4 canceled, 5 rejected,
6 input-required, 7 auth-required, 8 still running after --timeout, 130 interrupted.
`, TokenEnv)
}

// runner holds what every command shares.
type runner struct {
	ctx       context.Context
	env       Env
	out, errw io.Writer
	cmd       command
	common    common
}

// common are the flags of every command.
type common struct {
	token    string
	json     bool
	binding  string
	protocol string
	timeout  time.Duration
}

// flags returns the flag set of the current command with the common flags.
func (r *runner) flags() *flag.FlagSet {
	fs := r.baseFlags()
	fs.StringVar(&r.common.token, "token", "", "bearer token (default $"+TokenEnv+")")
	fs.BoolVar(&r.common.json, "json", false, "print the result as JSON")
	fs.StringVar(&r.common.binding, "binding", "", "jsonrpc or rest (default: the card's preference)")
	fs.StringVar(&r.common.protocol, "protocol", "", "0.3 or 1.0 (default: 1.0 when the card offers it)")
	fs.DurationVar(&r.common.timeout, "timeout", 0, "give up after this long (0: no limit)")
	return fs
}

// baseFlags returns an empty flag set of the current command, for a
// command that is not a client of an agent (webhook listen).
func (r *runner) baseFlags() *flag.FlagSet {
	fs := flag.NewFlagSet("a2a "+r.cmd.name, flag.ContinueOnError)
	fs.SetOutput(r.errw)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: a2a %s %s [flags]\n  %s\n\nFlags:\n", r.cmd.name, r.cmd.args, r.cmd.summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args, accepting flags before, between and after the
// positional arguments (which it returns); "--" ends the flags. It checks
// the number of positional arguments (min..max). A command line that asks
// for --json gets its usage errors as JSON too.
func (r *runner) parse(fs *flag.FlagSet, args []string, min, max int) ([]string, int, bool) {
	if wantsJSON(args) {
		r.common.json = true
		fs.SetOutput(io.Discard) // the error is reported below, as JSON
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if r.common.json { // asked for, but printed to nowhere
					fs.SetOutput(r.errw)
					fs.Usage()
				}
				return nil, ExitOK, false
			}
			if r.common.json {
				return nil, r.report(ExitUsage, err, "run a2a "+r.cmd.name+" -h for its flags"), false
			}
			return nil, ExitUsage, false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < min || len(pos) > max {
		return nil, r.usageError(fs, "expected %s, got %d argument(s)", r.cmd.args, len(pos)), false
	}
	if r.common.token == "" {
		r.common.token = r.env.Getenv(TokenEnv)
	}
	return pos, ExitOK, true
}

// client returns a client of the agent at url.
func (r *runner) client(url string) *client.Client {
	return client.New(url, client.Options{
		HTTPClient: r.env.HTTPClient,
		Token:      r.common.token,
		Binding:    r.common.binding,
		Version:    a2a.Version(r.common.protocol),
	})
}

// do sends a request that is not the agent's protocol (an upload, the
// agent's keys) through Env.HTTPClient, or http.DefaultClient without one.
func (r *runner) do(req *http.Request) (*http.Response, error) {
	if r.env.HTTPClient != nil {
		return r.env.HTTPClient.Do(req)
	}
	return http.DefaultClient.Do(req)
}

// context returns the command's context, bounded by --timeout.
func (r *runner) context() (context.Context, context.CancelFunc) {
	if r.common.timeout > 0 {
		return context.WithTimeout(r.ctx, r.common.timeout)
	}
	return context.WithCancel(r.ctx)
}

// fail reports err and returns its exit code.
func (r *runner) fail(err error) int {
	switch {
	case errors.Is(err, context.Canceled) && r.ctx.Err() != nil && !r.common.json:
		fmt.Fprintln(r.errw, "a2a: interrupted")
		return ExitInterrupted
	case errors.Is(err, context.Canceled) && r.ctx.Err() != nil:
		return r.report(ExitInterrupted, errors.New("interrupted"), "")
	case errors.Is(err, context.DeadlineExceeded):
		return r.report(ExitError, fmt.Errorf("gave up after --timeout %s: %w", r.common.timeout, err), "")
	case errors.Is(err, client.ErrNotExpressible):
		return r.report(ExitUsage, err, "choose another --protocol, or another filter")
	case errors.Is(err, client.ErrUnauthenticated) && r.common.token == "":
		return r.report(ExitError, err, "this agent needs a bearer token: set "+TokenEnv+" or pass --token")
	case errors.Is(err, client.ErrUnauthenticated):
		return r.report(ExitError, err, "the agent refused the token")
	}
	return r.report(ExitError, err, "")
}

// usageError reports a bad command line (with the command's usage, unless
// --json) and returns ExitUsage.
func (r *runner) usageError(fs *flag.FlagSet, format string, args ...any) int {
	code := r.report(ExitUsage, fmt.Errorf(format, args...), "")
	if fs != nil && !r.common.json {
		fs.Usage()
	}
	return code
}

// report prints err, the error of the command, with an optional hint, and
// returns code: "a2a CMD: err" and "hint: ..." on standard error, or with
// --json one JSON object there, {"error": {...}, "exitCode": code}, whose
// error carries the protocol code, reason and HTTP status the server
// answered with, when it named them.
func (r *runner) report(code int, err error, hint string) int {
	if !r.common.json {
		fmt.Fprintf(r.errw, "a2a %s: %v\n", r.cmd.name, err)
		if hint != "" {
			fmt.Fprintf(r.errw, "hint: %s\n", hint)
		}
		return code
	}
	e := jsonError{Command: r.cmd.name, Message: err.Error(), Hint: hint}
	var ce *client.Error
	if errors.As(err, &ce) {
		e.Code, e.Reason, e.HTTPStatus = int(ce.Code), ce.Reason, ce.HTTPStatus
	}
	b, merr := json.Marshal(struct {
		Error    jsonError `json:"error"`
		ExitCode int       `json:"exitCode"`
	}{e, code})
	if merr != nil { // cannot happen: strings and numbers only
		b = []byte(`{"error":{"message":"could not encode the error"},"exitCode":` + strconv.Itoa(code) + `}`)
	}
	fmt.Fprintln(r.errw, string(b))
	return code
}

// jsonError is an error as --json prints it.
type jsonError struct {
	// Command is the command that failed (get, send...).
	Command string `json:"command"`
	Message string `json:"message"`
	// Code, Reason and HTTPStatus are what the server answered: the A2A
	// or JSON-RPC code and its reason (TASK_NOT_FOUND), the HTTP status.
	Code       int    `json:"code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	HTTPStatus int    `json:"httpStatus,omitempty"`
	Hint       string `json:"hint,omitempty"`
}

// wantsJSON reports whether the command line sets --json (before "--").
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-json", "--json", "-json=true", "--json=true", "-json=1", "--json=1":
			return true
		}
	}
	return false
}

// exitCode is the exit code of a task in state s.
func exitCode(s a2a.TaskState) int {
	switch s {
	case a2a.TaskStateFailed:
		return ExitFailed
	case a2a.TaskStateCanceled:
		return ExitCanceled
	case a2a.TaskStateRejected:
		return ExitRejected
	case a2a.TaskStateInputRequired:
		return ExitInputRequired
	case a2a.TaskStateAuthRequired:
		return ExitAuthRequired
	}
	return ExitOK
}
