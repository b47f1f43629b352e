package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/cli"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
)

// result is what one run of the command printed and returned.
type result struct {
	code           int
	stdout, stderr string
}

type runOpts struct {
	env      map[string]string
	terminal bool
	stdin    string
}

func run(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := cli.Run(ctx, args, cli.Env{
		Stdin:    strings.NewReader(o.stdin),
		Stdout:   &out,
		Stderr:   &errb,
		Getenv:   func(k string) string { return o.env[k] },
		Terminal: o.terminal,
		PollMin:  5 * time.Millisecond,
		PollMax:  20 * time.Millisecond,
		Tick:     5 * time.Millisecond,
	})
	return result{code, out.String(), errb.String()}
}

func decodeTask(t *testing.T, s string) a2a.Task {
	t.Helper()
	var task a2a.Task
	require.NoError(t, json.Unmarshal([]byte(s), &task), s)
	return task
}

// authAgent parks every task in auth-required.
type authAgent struct{}

func (authAgent) Info() agent.Info {
	return agent.Info{Name: "auth agent", Description: "asks for auth"}
}
func (authAgent) Step(context.Context, agent.StepInput, agent.Emitter) (agent.Outcome, error) {
	return agent.RequireAuth(agent.Text("Sign in at https://example.com/login first."), map[string]any{"url": "https://example.com/login"}), nil
}

func TestCommandsAgainstLocalServer(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Token: "tok-s3cret"})
	url := srv.URL
	env := map[string]string{cli.TokenEnv: "tok-s3cret"}
	o := runOpts{env: env}

	t.Run("card", func(t *testing.T) {
		r := run(t, o, "card", url)
		assert.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "a2a-lambda demo agent")
		assert.Contains(t, r.stdout, "* JSONRPC   1.0  "+url, "the server offers 1.0 first")
		assert.Contains(t, r.stdout, "  JSONRPC   0.3  "+url)
		assert.Contains(t, r.stdout, "security: bearer (http bearer)")
		r = run(t, o, "card", url, "--json", "--binding", "rest")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		var card a2a.AgentCard
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &card))
		assert.Equal(t, "a2a-lambda demo agent", card.Name)
	})

	t.Run("send without waiting", func(t *testing.T) {
		r := run(t, o, "send", url, "long 2", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		task := decodeTask(t, r.stdout)
		assert.Contains(t, []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, task.Status.State)
		// Long enough to be unfinished when the send returns ("hello" may
		// already be completed then), short enough to end before the list
		// tests below.
		r = run(t, o, "send", url, "long 5")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "follow: a2a get "+url+" ")
	})

	t.Run("send --wait, plain lines", func(t *testing.T) {
		r := run(t, o, "send", "--wait", url, "long 3")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		assert.Regexp(t, `^task \S+ \(context \S+\)$`, lines[0])
		assert.Contains(t, r.stdout, "] progress: step 1 of 3\n")
		assert.Contains(t, r.stdout, "] progress: step 3 of 3\n")
		assert.Regexp(t, `\[\d+\.\ds\] completed: Finished all 3 steps\.$`, lines[len(lines)-1])
		assert.NotContains(t, r.stdout, "\033", "no escape sequences when not on a terminal")
	})

	t.Run("send --wait on a terminal redraws in place", func(t *testing.T) {
		r := run(t, runOpts{env: env, terminal: true}, "send", url, "long 3", "--wait")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "\r\033[K", "the status line is redrawn in place")
		assert.Contains(t, r.stdout, "── progress ──\033[0m\nstep 1 of 3\n")
		assert.Contains(t, r.stdout, "step 3 of 3\n")
		assert.Contains(t, r.stdout, "✓ \033[1mcompleted\033[0m after ")
		assert.True(t, strings.HasSuffix(r.stdout, ": Finished all 3 steps.\n"))
	})

	t.Run("send --wait --json", func(t *testing.T) {
		r := run(t, o, "send", url, "hello", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		task := decodeTask(t, r.stdout)
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		assert.Equal(t, "echo: hello", a2a.PartsText(task.Artifacts[0].Parts))
	})

	t.Run("message from standard input", func(t *testing.T) {
		r := run(t, runOpts{env: env, stdin: "from stdin\n"}, "send", url, "-", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Equal(t, "echo: from stdin", a2a.PartsText(decodeTask(t, r.stdout).Artifacts[0].Parts))
	})

	t.Run("exit codes of final states", func(t *testing.T) {
		for _, tc := range []struct {
			text  string
			code  int
			state a2a.TaskState
		}{
			{"hello", cli.ExitOK, a2a.TaskStateCompleted},
			{"fail", cli.ExitFailed, a2a.TaskStateFailed},
			{"reject", cli.ExitRejected, a2a.TaskStateRejected},
			{"ask Your name?", cli.ExitInputRequired, a2a.TaskStateInputRequired},
		} {
			r := run(t, o, "send", url, tc.text, "--wait", "--json")
			assert.Equal(t, tc.code, r.code, tc.text)
			assert.Equal(t, tc.state, decodeTask(t, r.stdout).Status.State, tc.text)
		}
	})

	t.Run("input-required prints the question, reply answers it", func(t *testing.T) {
		r := run(t, o, "send", url, "ask What is your name?", "--wait")
		require.Equal(t, cli.ExitInputRequired, r.code, r.stderr)
		assert.Contains(t, r.stdout, "input-required: What is your name?\n")
		taskID := between(r.stdout, "task ", " (context")
		assert.Contains(t, r.stdout, `answer: a2a reply `+url+` `+taskID+` "your answer"`)

		r = run(t, o, "reply", url, taskID, "Ada", "--wait")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, `completed: You answered: "Ada"`)
		r = run(t, o, "get", url, taskID, "--json")
		require.Equal(t, cli.ExitOK, r.code)
		assert.Equal(t, a2a.TaskStateCompleted, decodeTask(t, r.stdout).Status.State)

		r = run(t, o, "reply", url, taskID, "again")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "is completed and waits for no input")
	})

	t.Run("permission: --allow and --deny answer through the callbacks", func(t *testing.T) {
		for flagArgs, want := range map[string]string{"--allow once": "performed deploy", "--allow always": "performed deploy", "--deny": "deploy was not performed"} {
			r := run(t, o, "send", url, "permission deploy", "--wait", "--json")
			require.Equal(t, cli.ExitInputRequired, r.code)
			taskID := decodeTask(t, r.stdout).ID
			args := append([]string{"reply", url, taskID, "--wait", "--json"}, strings.Fields(flagArgs)...)
			r = run(t, o, args...)
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			task := decodeTask(t, r.stdout)
			assert.Contains(t, a2a.PartsText(task.Artifacts[0].Parts), want, flagArgs)
		}
	})

	t.Run("a question can be declined through the callbacks", func(t *testing.T) {
		r := run(t, o, "send", url, "ask Why?", "--wait", "--json")
		taskID := decodeTask(t, r.stdout).ID
		r = run(t, o, "reply", url, taskID, "--decline", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		task := decodeTask(t, r.stdout)
		assert.Equal(t, "You declined to answer.", task.Status.Message.Text())
	})

	t.Run("get, list, cancel", func(t *testing.T) {
		r := run(t, o, "send", url, "long 100", "--json")
		require.Equal(t, cli.ExitOK, r.code)
		taskID := decodeTask(t, r.stdout).ID

		r = run(t, o, "get", url, taskID)
		assert.Equal(t, cli.ExitOK, r.code, "a working task exits 0")
		assert.Contains(t, r.stdout, "task     "+taskID)

		r = run(t, o, "list", url, "--json", "--page-size", "3")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		var page a2a.ListTasksResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
		require.Len(t, page.Tasks, 3)
		// Newest status first; tasks updated within the same millisecond
		// (timestamps have no finer grain) come in task id order.
		for i := 1; i < len(page.Tasks); i++ {
			assert.GreaterOrEqual(t, page.Tasks[i-1].Status.Timestamp, page.Tasks[i].Status.Timestamp, "newest first")
		}
		newest := slices.IndexFunc(page.Tasks, func(task a2a.Task) bool { return task.ID == taskID })
		require.GreaterOrEqual(t, newest, 0, "the task just sent is on the first page")
		assert.Equal(t, page.Tasks[0].Status.Timestamp, page.Tasks[newest].Status.Timestamp, "the task just sent is among the newest")
		assert.NotEmpty(t, page.NextPageToken)

		r = run(t, o, "cancel", url, taskID)
		assert.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "state    canceled")
		r = run(t, o, "get", url, taskID, "--json")
		assert.Equal(t, cli.ExitCanceled, r.code)
		assert.Equal(t, a2a.TaskStateCanceled, decodeTask(t, r.stdout).Status.State)
		r = run(t, o, "get", url, taskID, "--wait")
		assert.Equal(t, cli.ExitCanceled, r.code)
		r = run(t, o, "list", url, "--state", "canceled")
		require.Equal(t, cli.ExitOK, r.code)
		assert.Regexp(t, `(?m)^TASK +STATE +UPDATED +MESSAGE$`, r.stdout)
		assert.Regexp(t, `(?m)^`+taskID+` +canceled `, r.stdout)
		assert.Contains(t, r.stdout, "1 of 1 task(s)\n")

		r = run(t, o, "list", url, "--binding", "rest", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
	})

	t.Run("send --context continues a conversation, list --context finds it", func(t *testing.T) {
		r := run(t, o, "send", url, "first", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		first := decodeTask(t, r.stdout)
		r = run(t, o, "send", url, "second", "--context", first.ContextID, "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		second := decodeTask(t, r.stdout)
		assert.Equal(t, first.ContextID, second.ContextID)
		assert.NotEqual(t, first.ID, second.ID, "a new task in the same context")
		assert.Equal(t, "echo: second", a2a.PartsText(second.Artifacts[0].Parts))

		r = run(t, o, "list", url, "--context", first.ContextID, "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		var page a2a.ListTasksResult
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
		var ids []string
		for _, task := range page.Tasks {
			ids = append(ids, task.ID)
		}
		assert.ElementsMatch(t, []string{first.ID, second.ID}, ids, "only the context's tasks")
		require.Len(t, page.Tasks, 2)
		assert.GreaterOrEqual(t, page.Tasks[0].Status.Timestamp, page.Tasks[1].Status.Timestamp, "newest first")
	})

	t.Run("send --task answers an interrupted task", func(t *testing.T) {
		r := run(t, o, "send", url, "ask Your name?", "--wait", "--json")
		require.Equal(t, cli.ExitInputRequired, r.code, r.stderr)
		asked := decodeTask(t, r.stdout)
		r = run(t, o, "send", url, "Grace", "--task", asked.ID, "--context", asked.ContextID, "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		done := decodeTask(t, r.stdout)
		assert.Equal(t, asked.ID, done.ID)
		assert.Equal(t, a2a.TaskStateCompleted, done.Status.State)
		assert.Equal(t, `You answered: "Grace"`, done.Status.Message.Text())

		r = run(t, o, "get", url, done.ID, "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.NotEmpty(t, decodeTask(t, r.stdout).History)
		r = run(t, o, "get", url, done.ID, "--json", "--history", "0")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Empty(t, decodeTask(t, r.stdout).History, "--history 0 asks for none")
		r = run(t, o, "get", url, done.ID, "--json", "--history", "1")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Len(t, decodeTask(t, r.stdout).History, 1)
	})

	t.Run("cancel --json, and a finished task cannot be canceled", func(t *testing.T) {
		r := run(t, o, "send", url, "long 100", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		taskID := decodeTask(t, r.stdout).ID
		r = run(t, o, "cancel", url, taskID, "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Equal(t, a2a.TaskStateCanceled, decodeTask(t, r.stdout).Status.State)
		r = run(t, o, "cancel", url, taskID, "--json")
		assert.Equal(t, cli.ExitOK, r.code, "canceling a canceled task returns it")

		r = run(t, o, "send", url, "hello", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		r = run(t, o, "cancel", url, decodeTask(t, r.stdout).ID)
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "TASK_NOT_CANCELABLE")
		assert.Empty(t, r.stdout)
	})

	t.Run("reply --json without waiting", func(t *testing.T) {
		r := run(t, o, "send", url, "ask Colour?", "--wait", "--json")
		require.Equal(t, cli.ExitInputRequired, r.code, r.stderr)
		taskID := decodeTask(t, r.stdout).ID
		r = run(t, o, "reply", url, taskID, "--answer", "blue", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		task := decodeTask(t, r.stdout)
		assert.Equal(t, taskID, task.ID)
		assert.NotEqual(t, a2a.TaskStateInputRequired, task.Status.State, "the reply was taken")
	})

	t.Run("interrupted while waiting", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		var out, errb bytes.Buffer
		code := cli.Run(ctx, []string{"send", url, "long 100", "--wait"}, cli.Env{
			Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
			PollMin: 5 * time.Millisecond, PollMax: 20 * time.Millisecond, Tick: 5 * time.Millisecond,
		})
		assert.Equal(t, cli.ExitInterrupted, code, errb.String())
		assert.Regexp(t, `stopped waiting; task \S+ goes on: a2a get `+url+` \S+ --wait`, errb.String())
	})

	t.Run("--timeout while waiting", func(t *testing.T) {
		r := run(t, o, "send", url, "long 100", "--wait", "--timeout", "150ms")
		assert.Equal(t, cli.ExitTimeout, r.code)
		assert.Contains(t, r.stderr, "is still working after 150ms; follow it with: a2a get "+url)
	})

	t.Run("errors", func(t *testing.T) {
		r := run(t, o, "get", url, "no-such-task")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "TASK_NOT_FOUND")

		r = run(t, runOpts{}, "get", url, "x")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "hint: this agent needs a bearer token: set A2A_TOKEN or pass --token")
		r = run(t, runOpts{}, "get", url, "x", "--token", "nope")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "hint: the agent refused the token")
		assert.NotContains(t, r.stderr, "nope")
		r = run(t, runOpts{}, "get", url, "no-such-task", "--token", "tok-s3cret")
		assert.Contains(t, r.stderr, "TASK_NOT_FOUND", "--token works without the environment")

		r = run(t, o, "send", url, "hi", "--push-url", "http://10.0.0.1/hook")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "-32602", "the server refuses a webhook in a private network")

		r = run(t, o, "get", "http://127.0.0.1:1", "x")
		assert.Equal(t, cli.ExitError, r.code)
		assert.Contains(t, r.stderr, "a2a get: card http://127.0.0.1:1/.well-known/agent-card.json")
	})

	t.Run("text parts one per line", func(t *testing.T) {
		r := run(t, o, "send", url, "long 3", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		taskID := decodeTask(t, r.stdout).ID
		r = run(t, o, "get", url, taskID)
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "artifact progress\n  step 1 of 3\n  step 2 of 3\n  step 3 of 3\n", "as --wait shows them, not glued together")
	})

	t.Run("whitespace is a message, as for the server", func(t *testing.T) {
		r := run(t, o, "send", url, "  ", "--wait", "--json")
		require.Equal(t, cli.ExitOK, r.code, r.stderr)
		task := decodeTask(t, r.stdout)
		assert.Equal(t, a2a.TaskStateCompleted, task.Status.State)
		require.NotEmpty(t, task.History)
		assert.Equal(t, "  ", task.History[0].Text(), "sent as typed")
		r = run(t, o, "send", url, "")
		assert.Equal(t, cli.ExitUsage, r.code)
		assert.Contains(t, r.stderr, "the message is empty")
	})

	t.Run("list --state the protocol cannot express", func(t *testing.T) {
		for _, protocol := range []string{"0.3", "1.0"} {
			for _, state := range []string{"bogus", "input_required", "TASK_STATE_UNSPECIFIED", "UNRECOGNIZED"} {
				r := run(t, o, "list", url, "--state", state, "--protocol", protocol)
				assert.Equal(t, cli.ExitUsage, r.code, "%s %s: %s", protocol, state, r.stdout)
				assert.Contains(t, r.stderr, "is not a task state: use one of submitted, working, input-required", state)
				assert.Empty(t, r.stdout)
			}
			r := run(t, o, "list", url, "--state", "TASK_STATE_CANCELED", "--protocol", protocol, "--json")
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			var page a2a.ListTasksResult
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &page))
			for _, task := range page.Tasks {
				assert.Equal(t, a2a.TaskStateCanceled, task.Status.State, "the 1.0 name filters under %s", protocol)
			}
		}
		r := run(t, o, "list", url, "--state", "unknown", "--protocol", "1.0")
		assert.Equal(t, cli.ExitUsage, r.code, "1.0 has no state unknown: %s", r.stdout)
		assert.Contains(t, r.stderr, `A2A 1.0 has no task state "unknown" to list by`)
		assert.Empty(t, r.stdout)
		r = run(t, o, "list", url, "--state", "unknown", "--protocol", "0.3")
		assert.Equal(t, cli.ExitOK, r.code, "0.3 has: %s", r.stderr)
		assert.Contains(t, r.stdout, "no tasks")
	})

	t.Run("--json errors are JSON on standard error", func(t *testing.T) {
		type jsonErr struct {
			Error struct {
				Command, Message, Reason, Hint string
				Code, HTTPStatus               int
			}
			ExitCode int
		}
		decode := func(t *testing.T, r result) jsonErr {
			t.Helper()
			var e jsonErr
			require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), "stderr: %q", r.stderr)
			assert.Equal(t, r.code, e.ExitCode)
			assert.Empty(t, r.stdout)
			return e
		}
		r := run(t, o, "get", url, "no-such-task", "--json")
		assert.Equal(t, cli.ExitError, r.code)
		e := decode(t, r)
		assert.Equal(t, "get", e.Error.Command)
		assert.Equal(t, "TASK_NOT_FOUND", e.Error.Reason)
		assert.Equal(t, -32001, e.Error.Code)
		assert.Contains(t, e.Error.Message, "no-such-task")

		r = run(t, runOpts{}, "get", url, "x", "--json")
		e = decode(t, r)
		assert.Equal(t, 401, e.Error.HTTPStatus)
		assert.Equal(t, "this agent needs a bearer token: set A2A_TOKEN or pass --token", e.Error.Hint)

		for _, args := range [][]string{
			{"list", url, "--json", "--state", "bogus"},
			{"get", url, "t", "--bogus", "--json"},
			{"get", url, "--json"},
			{"send", url, "hi", "--push-token", "t", "--json"},
			{"reply", url, "t", "--json"},
		} {
			r := run(t, o, args...)
			assert.Equal(t, cli.ExitUsage, r.code, args)
			e := decode(t, r)
			assert.Equal(t, args[0], e.Error.Command, args)
			assert.NotEmpty(t, e.Error.Message, args)
		}

		r = run(t, o, "send", url, "long 100", "--wait", "--timeout", "150ms", "--json")
		assert.Equal(t, cli.ExitTimeout, r.code)
		var e2 jsonErr
		require.NoError(t, json.Unmarshal([]byte(r.stderr), &e2), r.stderr)
		assert.Equal(t, cli.ExitTimeout, e2.ExitCode)
		assert.Contains(t, e2.Error.Message, "is still working after 150ms")
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{}, {"nope"}, {"send", url}, {"get", url}, {"send", url, "a", "b"}, {"reply", url, "t"}, {"reply", url, "t", "x", "--deny"}, {"reply", url, "t", "--allow", "maybe"}, {"get", url, "t", "--bogus"}} {
			r := run(t, o, args...)
			assert.Equal(t, cli.ExitUsage, r.code, args)
		}
		r := run(t, o, "help")
		assert.Equal(t, cli.ExitOK, r.code)
		assert.Contains(t, r.stdout, "Exit codes: 0 completed")
		r = run(t, o, "send", "-h")
		assert.Equal(t, cli.ExitOK, r.code)
		assert.Contains(t, r.stderr, "-push-url")
		assert.NotContains(t, r.stderr, "s3cret", "the token's default is not printed")
	})
}

func TestAuthRequiredExitCode(t *testing.T) {
	srv := clienttest.Start(t, clienttest.Options{Agent: authAgent{}})
	r := run(t, runOpts{}, "send", srv.URL, "anything", "--wait")
	assert.Equal(t, cli.ExitAuthRequired, r.code, r.stderr)
	assert.Contains(t, r.stdout, "auth-required: Sign in at https://example.com/login first.")
}

// TestReplyUsesInterruptCallbacks drives reply against a fake agent that
// serves the a2a.interrupt.* callbacks.
func TestReplyUsesInterruptCallbacks(t *testing.T) {
	var mu sync.Mutex
	var calls []map[string]any
	resolved := false
	var base string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			io.WriteString(w, `{"protocolVersion":"0.3.0","name":"fake","description":"fake","version":"1","url":"`+base+`","preferredTransport":"JSONRPC","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`)
			return
		}
		var req map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, req)
		switch req["method"] {
		case "tasks/get":
			state, text, md := "input-required", "May I deploy?", `,"metadata":{"shared":{"interrupt":{"request_id":"req-7","type":"permission","phase":"asked","details":{}}}}`
			if resolved {
				state, text, md = "completed", "Deployed.", ""
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"`+state+`","message":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"`+text+`"}]`+md+`}}}}`)
		case "a2a.interrupt.permission.reply":
			resolved = true
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"ok":true,"request_id":"req-7"}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`)
		}
	}))
	t.Cleanup(hs.Close)
	base = hs.URL

	r := run(t, runOpts{}, "reply", base, "t1", "--allow", "always", "--message", "ship it", "--wait")
	require.Equal(t, cli.ExitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "completed: Deployed.")
	mu.Lock()
	defer mu.Unlock()
	var methods []string
	for _, c := range calls {
		methods = append(methods, c["method"].(string))
	}
	assert.Equal(t, []string{"tasks/get", "a2a.interrupt.permission.reply", "tasks/get"}, methods[:3])
	assert.Equal(t, map[string]any{"request_id": "req-7", "reply": "always", "message": "ship it"}, calls[1]["params"])
}

func between(s, a, b string) string {
	_, rest, _ := strings.Cut(s, a)
	v, _, _ := strings.Cut(rest, b)
	return v
}

// TestSendPushURL checks the request "send --push-url" makes, against a
// fake agent that records it: the config goes inline in the send's
// configuration, in the form of each protocol version. (The round trip
// through the local server is TestWebhookListenWithTheLocalServer.)
func TestSendPushURL(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	var base string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			io.WriteString(w, `{"protocolVersion":"0.3.0","name":"fake","description":"fake","version":"1","url":"`+base+`","preferredTransport":"JSONRPC",
				"supportedInterfaces":[{"url":"`+base+`","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
				"capabilities":{"pushNotifications":true},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`)
			return
		}
		var req map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		if req["method"] == "SendMessage" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"submitted"}}}`)
	}))
	t.Cleanup(hs.Close)
	base = hs.URL

	for _, tc := range []struct {
		protocol, method, configField string
	}{
		{"0.3", "message/send", "pushNotificationConfig"},
		{"1.0", "SendMessage", "taskPushNotificationConfig"},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			r := run(t, runOpts{}, "send", base, "hi", "--protocol", tc.protocol, "--push-url", "https://hooks.example.com/a2a", "--push-token", "hook-tok", "--json")
			require.Equal(t, cli.ExitOK, r.code, r.stderr)
			assert.Equal(t, "t1", decodeTask(t, r.stdout).ID)
			r = run(t, runOpts{}, "send", base, "hi", "--protocol", tc.protocol)
			require.Equal(t, cli.ExitOK, r.code, r.stderr)

			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, 2)
			assert.Equal(t, tc.method, got[0]["method"])
			cfg := got[0]["params"].(map[string]any)["configuration"].(map[string]any)
			assert.Equal(t, map[string]any{"url": "https://hooks.example.com/a2a", "token": "hook-tok"}, cfg[tc.configField])
			cfg, _ = got[1]["params"].(map[string]any)["configuration"].(map[string]any)
			assert.NotContains(t, cfg, tc.configField, "no config without --push-url")
		})
	}

	r := run(t, runOpts{}, "send", base, "hi", "--push-token", "hook-tok")
	assert.Equal(t, cli.ExitUsage, r.code)
	assert.Contains(t, r.stderr, "--push-token needs --push-url")
}
