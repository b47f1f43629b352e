package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/client"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

func (r *runner) card(args []string) int {
	fs := r.flags()
	pos, code, ok := r.parse(fs, args, 1, 1)
	if !ok {
		return code
	}
	ctx, cancel := r.context()
	defer cancel()
	c := r.client(pos[0])
	card, err := c.Card(ctx)
	if err != nil {
		return r.fail(err)
	}
	if r.common.json {
		return r.printJSON(card.Raw)
	}
	chosen, selErr := client.SelectInterface(card, a2a.Version(r.common.protocol), r.common.binding)
	printCard(r.out, card, chosen)
	if selErr != nil {
		return r.report(ExitError, selErr, "")
	}
	return ExitOK
}

func (r *runner) send(args []string) int {
	fs := r.flags()
	contextID := fs.String("context", "", "continue the conversation of this context id")
	taskID := fs.String("task", "", "send the message to this (interrupted) task")
	wait := fs.Bool("wait", false, "follow the task until it finishes or needs input")
	pushURL := fs.String("push-url", "", "ask the agent to notify this webhook URL of task changes")
	pushToken := fs.String("push-token", "", "token the agent sends back with each notification (with --push-url)")
	var files paths
	fs.Var(&files, "file", "attach this file (repeatable): inline when small, uploaded first when large")
	pos, code, ok := r.parse(fs, args, 1, 2)
	if !ok {
		return code
	}
	if len(pos) == 1 && len(files) == 0 {
		return r.usageError(fs, "expected %s (TEXT may be left out with --file)", r.cmd.args)
	}
	if *pushToken != "" && *pushURL == "" {
		return r.usageError(nil, "--push-token needs --push-url")
	}
	text := ""
	if len(pos) == 2 {
		text = pos[1]
	}
	if text == "-" {
		b, err := io.ReadAll(r.env.Stdin)
		if err != nil {
			return r.fail(fmt.Errorf("read standard input: %w", err))
		}
		text = strings.TrimRight(string(b), "\n")
	}
	if text == "" && len(files) == 0 {
		// What the server refuses; whitespace it takes, and so does a2a.
		return r.usageError(nil, "the message is empty")
	}
	ctx, cancel := r.context()
	defer cancel()
	c := r.client(pos[0])
	var parts []a2a.Part
	if text != "" {
		parts = append(parts, a2a.TextPart(text))
	}
	fileParts, err := r.fileParts(ctx, c, files)
	if err != nil {
		return r.fail(err)
	}
	blocking := false
	p := a2a.MessageSendParams{
		Message:       a2a.Message{Role: a2a.RoleUser, ContextID: *contextID, TaskID: *taskID, Parts: append(parts, fileParts...)},
		Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
	}
	if *pushURL != "" {
		p.Configuration.PushNotificationConfig = &a2a.PushNotificationConfig{URL: *pushURL, Token: *pushToken}
	}
	start := time.Now()
	res, err := c.SendMessage(ctx, p)
	if err != nil {
		return r.fail(err)
	}
	if res.Message != nil {
		if r.common.json {
			return r.printJSON(res.Message)
		}
		fmt.Fprintln(r.out, res.Message.Text())
		return ExitOK
	}
	if *wait {
		return r.follow(ctx, c, pos[0], res.Task, nil, start)
	}
	return r.show(pos[0], res.Task)
}

func (r *runner) get(args []string) int {
	fs := r.flags()
	wait := fs.Bool("wait", false, "follow the task until it finishes or needs input")
	history := fs.Int("history", -1, "number of history messages to include (-1: the server's default)")
	pos, code, ok := r.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	ctx, cancel := r.context()
	defer cancel()
	c := r.client(pos[0])
	if *wait {
		return r.follow(ctx, c, pos[0], &a2a.Task{ID: pos[1]}, nil, time.Now())
	}
	q := a2a.TaskQueryParams{ID: pos[1]}
	if *history >= 0 {
		q.HistoryLength = history
	}
	t, err := c.GetTask(ctx, q)
	if err != nil {
		return r.fail(err)
	}
	return r.show(pos[0], t)
}

func (r *runner) list(args []string) int {
	fs := r.flags()
	contextID := fs.String("context", "", "only the tasks of this context")
	state := fs.String("state", "", "only the tasks in this state (working, completed, input-required...)")
	page := pageFlags(fs, "tasks")
	artifacts := fs.Bool("artifacts", false, "include the tasks' artifacts")
	pos, code, ok := r.parse(fs, args, 1, 1)
	if !ok {
		return code
	}
	st, known := a2av1.ParseState(*state)
	if *state != "" && (!known || st == "") { // TASK_STATE_UNSPECIFIED is no filter
		return r.usageError(nil, "--state %q is not a task state: use one of %s (or its 1.0 name, TASK_STATE_WORKING...)", *state, stateNames())
	}
	ctx, cancel := r.context()
	defer cancel()
	p := a2a.ListTasksParams{ContextID: *contextID, Status: st, PageSize: page.size(), PageToken: *page.token, IncludeArtifacts: *artifacts}
	res, err := r.client(pos[0]).ListTasks(ctx, p)
	if err != nil {
		return r.fail(err)
	}
	if r.common.json {
		return r.printJSON(res)
	}
	printList(r.out, res)
	return ExitOK
}

// page is a list command's --page-size and --page-token.
type page struct {
	pageSize *int
	token    *string
}

// pageFlags adds --page-size and --page-token to the flags of a list of
// what.
func pageFlags(fs *flag.FlagSet, what string) page {
	return page{
		pageSize: fs.Int("page-size", 0, what+" per page, 1 to 100 (0: the server's default)"),
		token:    fs.String("page-token", "", "the next page token printed by the previous page"),
	}
}

// size is --page-size as a request's page size: nil for the server's
// default.
func (p page) size() *int {
	if *p.pageSize > 0 {
		return p.pageSize
	}
	return nil
}

func (r *runner) cancel(args []string) int {
	fs := r.flags()
	pos, code, ok := r.parse(fs, args, 2, 2)
	if !ok {
		return code
	}
	ctx, cancel := r.context()
	defer cancel()
	t, err := r.client(pos[0]).CancelTask(ctx, a2a.TaskIDParams{ID: pos[1]})
	if err != nil {
		return r.fail(err)
	}
	if r.common.json {
		r.printJSON(t)
	} else {
		printTask(r.out, t)
	}
	if t.Status.State == a2a.TaskStateCanceled {
		return ExitOK
	}
	return exitCode(t.Status.State)
}

// answers collects repeated --answer flags.
type answers []string

func (a *answers) String() string     { return strings.Join(*a, ", ") }
func (a *answers) Set(v string) error { *a = append(*a, v); return nil }

func (r *runner) reply(args []string) int {
	fs := r.flags()
	var ans answers
	fs.Var(&ans, "answer", "answer to a question (repeat it, one per question asked)")
	decline := fs.Bool("decline", false, "decline to answer a question")
	allow := fs.String("allow", "", "grant a permission: once or always")
	deny := fs.Bool("deny", false, "refuse a permission")
	message := fs.String("message", "", "optional message with --allow or --deny")
	requestID := fs.String("request-id", "", "the interrupt's request id (default: read from the task)")
	wait := fs.Bool("wait", false, "follow the task after the reply")
	pos, code, ok := r.parse(fs, args, 2, 3)
	if !ok {
		return code
	}
	modes := 0
	for _, set := range []bool{len(pos) == 3, len(ans) > 0, *decline, *allow != "", *deny} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return r.usageError(fs, "give exactly one of TEXT, --answer, --decline, --allow once|always, --deny")
	}
	if *allow != "" && *allow != a2a.PermissionOnce && *allow != a2a.PermissionAlways {
		return r.usageError(nil, "--allow takes once or always, not %q", *allow)
	}
	ctx, cancel := r.context()
	defer cancel()
	url, taskID := pos[0], pos[1]
	c := r.client(url)
	task, err := c.GetTask(ctx, a2a.TaskQueryParams{ID: taskID})
	if err != nil {
		return r.fail(err)
	}
	pending := client.Interrupt(task)
	if pending == nil {
		return r.report(ExitError, fmt.Errorf("task %s is %s and waits for no input", taskID, task.Status.State), "")
	}
	rid := *requestID
	if rid == "" {
		rid = pending.RequestID
	}

	// text is the plain message equivalent of the reply, sent when the
	// agent has no interrupt callbacks ("" when there is none).
	var text string
	var callback func() error
	switch {
	case len(pos) == 3:
		text = pos[2]
	case len(ans) > 0:
		text = strings.Join(ans, "; ")
		grouped := make([][]string, len(ans))
		for i, a := range ans {
			grouped[i] = []string{a}
		}
		callback = func() error { _, err := c.ReplyQuestion(ctx, rid, grouped); return err }
	case *decline:
		callback = func() error { _, err := c.RejectQuestion(ctx, rid); return err }
	case *allow != "":
		text = *allow
		callback = func() error { _, err := c.ReplyPermission(ctx, rid, *allow, *message); return err }
	case *deny:
		text = a2a.PermissionReject
		callback = func() error { _, err := c.ReplyPermission(ctx, rid, a2a.PermissionReject, *message); return err }
	}
	if callback != nil && rid != "" {
		err := callback()
		switch {
		case err == nil:
			text = ""
		case errors.Is(err, a2a.ErrMethodNotFound) && text != "":
			// The agent has no interrupt callbacks: answer with a message.
		case errors.Is(err, a2a.ErrMethodNotFound):
			return r.fail(fmt.Errorf("the agent does not support this reply (no interrupt callbacks): %w", err))
		default:
			return r.fail(err)
		}
	} else if callback != nil && text == "" {
		return r.fail(errors.New("the task's interrupt has no request id, and declining has no plain-message form"))
	}
	start := time.Now()
	before := task
	if text != "" {
		blocking := false
		res, err := c.SendMessage(ctx, a2a.MessageSendParams{
			Message:       a2a.Message{Role: a2a.RoleUser, TaskID: taskID, ContextID: task.ContextID, Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.MessageSendConfiguration{Blocking: &blocking},
		})
		if err != nil {
			return r.fail(err)
		}
		if res.Task != nil {
			task = res.Task
		}
	} else if task, err = c.GetTask(ctx, a2a.TaskQueryParams{ID: taskID}); err != nil {
		return r.fail(err)
	}
	if *wait {
		return r.follow(ctx, c, url, task, before, start)
	}
	return r.show(url, task)
}

// show prints a task and returns the exit code of its state.
func (r *runner) show(url string, t *a2a.Task) int {
	if r.common.json {
		r.printJSON(t)
		return exitCode(t.Status.State)
	}
	printTask(r.out, t)
	printNext(r.out, url, t)
	return exitCode(t.Status.State)
}

// follow waits for the task with live progress and returns the exit code
// of its final state. Changes are shown relative to since (nil: all).
func (r *runner) follow(ctx context.Context, c *client.Client, url string, t, since *a2a.Task, start time.Time) int {
	opts := client.WaitOptions{MinInterval: r.env.PollMin, MaxInterval: r.env.PollMax, Since: since}
	if t.Status.State != "" {
		opts.Initial = t
	}
	var p *progress
	if !r.common.json {
		p = newProgress(r.out, r.env.Terminal, r.width(), start)
		opts.OnUpdate = p.update
		stop := p.run(r.env.Tick)
		defer stop()
	}
	final, err := c.Wait(ctx, t.ID, opts)
	if p != nil {
		p.stopTicking()
	}
	if err != nil {
		if final == nil {
			final = t
		}
		if p != nil {
			p.finish(nil)
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded) && r.ctx.Err() == nil:
			return r.report(ExitTimeout, fmt.Errorf("task %s is still %s after %s; follow it with: a2a get %s %s --wait", t.ID, orState(final.Status.State), r.common.timeout, url, t.ID), "")
		case errors.Is(err, context.Canceled) && r.ctx.Err() != nil:
			return r.report(ExitInterrupted, fmt.Errorf("stopped waiting; task %s goes on: a2a get %s %s --wait", t.ID, url, t.ID), "")
		}
		return r.fail(err)
	}
	if r.common.json {
		r.printJSON(final)
		return exitCode(final.Status.State)
	}
	p.finish(final)
	printNext(r.out, url, final)
	return exitCode(final.Status.State)
}

// width is the terminal's width from $COLUMNS, or 0 (unknown).
func (r *runner) width() int {
	n, err := strconv.Atoi(r.env.Getenv("COLUMNS"))
	if err != nil {
		return 0
	}
	return n
}

func orState(s a2a.TaskState) a2a.TaskState {
	if s == "" {
		return a2a.TaskStateUnknown
	}
	return s
}

func (r *runner) printJSON(v any) int {
	var b []byte
	var err error
	if raw, ok := v.(json.RawMessage); ok {
		b = raw
	} else if b, err = json.Marshal(v); err != nil {
		return r.fail(fmt.Errorf("encode JSON: %w", err))
	}
	fmt.Fprintln(r.out, string(b))
	return ExitOK
}

// stateNames lists the 0.3 names of the task states a list can ask for.
func stateNames() string {
	names := make([]string, 0, len(a2a.TaskStates))
	for _, st := range a2a.TaskStates {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ")
}
