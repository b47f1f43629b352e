// Package demo is the agent `make run` serves: it shows every part of the
// protocol with plain-text commands.
//
//	<any text>          working with a progress message, A2A_DEMO_WORK_MS of work,
//	                    then completed with the artifact "echo: <text>", and the
//	                    artifact "files" holding the message's file parts, if any
//	ask [question]      input-required (a question interrupt); the reply completes
//	                    the task, quoting the answer
//	permission <action> input-required (a permission interrupt); once/always
//	                    performs the action, reject completes without it
//	long N              N steps A2A_DEMO_STEP_MS apart (default one second), each
//	                    appending "step i of N" to the artifact "progress"; a
//	                    message sent to the task meanwhile is acknowledged in
//	                    the next step's progress message
//	fail                failed, with a status message
//	reject              rejected, with a status message
//	data                completed with a data-part artifact
package demo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// Name is the agent's registry name.
const Name = "demo"

// Settings and their defaults.
const (
	EnvWorkMS      = "A2A_DEMO_WORK_MS"
	EnvStepMS      = "A2A_DEMO_STEP_MS"
	DefaultWorkMS  = 1000
	DefaultStepMS  = 1000
	maxLongSteps   = 100
	maxMillis      = 3_600_000
	defaultAskText = "What is your name?"
)

// Agent is the demo agent.
type Agent struct {
	work time.Duration
	step time.Duration
}

var _ agent.Agent = (*Agent)(nil)

// New builds the demo agent from A2A_DEMO_WORK_MS and A2A_DEMO_STEP_MS.
func New(s agent.Settings) (agent.Agent, error) {
	work, err1 := s.Int(EnvWorkMS, DefaultWorkMS, 0, maxMillis)
	step, err2 := s.Int(EnvStepMS, DefaultStepMS, 0, maxMillis)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &Agent{work: time.Duration(work) * time.Millisecond, step: time.Duration(step) * time.Millisecond}, nil
}

// Info implements agent.Agent.
func (a *Agent) Info() agent.Info {
	skill := func(id, name, desc, example string) a2a.AgentSkill {
		return a2a.AgentSkill{ID: id, Name: name, Description: desc, Tags: []string{"demo"}, Examples: []string{example}}
	}
	return agent.Info{
		Name:        "a2a-lambda demo agent",
		Description: "Shows the A2A task lifecycle: progress, artifacts, questions, permissions, long multi-step work, failures.",
		Version:     "1.0.0",
		OutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{
			skill("echo", "Echo", "Works for a moment, then completes with an artifact echoing your text, and one holding the files you sent.", "hello"),
			skill("ask", "Ask", "Asks you a question (input-required) and completes with your answer.", "ask What is your name?"),
			skill("permission", "Permission", "Asks permission for an action; once/always performs it, reject does not.", "permission deploy"),
			skill("long", "Long task", "Runs N steps, one second apart, appending progress to an artifact.", "long 5"),
			skill("fail", "Fail", "Fails the task with a status message.", "fail"),
			skill("reject", "Reject", "Rejects the task with a status message.", "reject"),
			skill("data", "Data", "Completes with a structured data artifact.", "data"),
		},
	}
}

// checkpoint is the demo's state between steps.
type checkpoint struct {
	// Long task progress.
	Next int `json:"next,omitempty"`
	Of   int `json:"of,omitempty"`
	// Permission flow.
	Action string `json:"action,omitempty"`
}

// Step implements agent.Agent.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	var cp checkpoint
	if err := in.DecodeCheckpoint(&cp); err != nil {
		return agent.Outcome{}, fmt.Errorf("demo: %w", err)
	}
	if in.Reply != nil {
		return a.resume(in.Reply, cp), nil
	}
	if cp.Of > 0 {
		return a.longStep(ctx, emit, cp.Next, cp.Of, in.Inbox)
	}
	text := strings.TrimSpace(in.Message.Text())
	cmd, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch strings.ToLower(cmd) {
	case "ask":
		q := arg
		if q == "" {
			q = defaultAskText
		}
		return agent.AskQuestion(agent.Text(q), map[string]any{"questions": []map[string]any{{"question": q}}}), nil
	case "permission":
		if arg == "" {
			return agent.Reject(agent.Text("Say which action needs permission, for example: permission deploy")), nil
		}
		out := agent.AskPermission(agent.Text(fmt.Sprintf("May I %s? Reply once, always or reject.", arg)),
			map[string]any{"permission": arg, "patterns": []string{arg}})
		return out.WithCheckpoint(checkpoint{Action: arg}), nil
	case "long":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > maxLongSteps {
			return agent.Reject(agent.Text(fmt.Sprintf("long needs a number of steps between 1 and %d, for example: long 5", maxLongSteps))), nil
		}
		return a.longStep(ctx, emit, 1, n, in.Inbox)
	case "fail":
		return agent.Fail(agent.Text("Failed on purpose: you asked the demo agent to fail.")), nil
	case "reject":
		return agent.Reject(agent.Text("Rejected on purpose: you asked the demo agent to reject the task.")), nil
	case "data":
		p, err := a2a.DataPart(map[string]any{"input": text, "words": len(strings.Fields(text)), "characters": len(text)})
		if err != nil {
			return agent.Outcome{}, err
		}
		return agent.Complete(agent.Text("Here is your text as data."),
			a2a.Artifact{ArtifactID: "data", Name: "data", Parts: []a2a.Part{p}}), nil
	}
	return a.echo(ctx, emit, text, in.Message.Parts)
}

// echo completes with the text, and the file parts of the message as they
// are (inline or by URI: the host keeps large ones as files), so that a
// round trip of files can be seen.
func (a *Agent) echo(ctx context.Context, emit agent.Emitter, text string, parts []a2a.Part) (agent.Outcome, error) {
	if err := emit.Status(ctx, agent.Text("Working on it...")); err != nil {
		return agent.Outcome{}, err
	}
	t := time.NewTimer(a.work)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return agent.Outcome{}, ctx.Err()
	case <-t.C:
	}
	var files []a2a.Part
	for _, p := range parts {
		if p.Kind == a2a.PartKindFile {
			files = append(files, p)
		}
	}
	var arts []a2a.Artifact
	if text != "" || len(files) == 0 {
		arts = append(arts, a2a.Artifact{ArtifactID: "echo", Name: "echo", Parts: []a2a.Part{a2a.TextPart("echo: " + text)}})
	}
	if len(files) > 0 {
		arts = append(arts, a2a.Artifact{ArtifactID: "files", Name: "files", Parts: files})
	}
	return agent.Complete(agent.Text("Done."), arts...), nil
}

func (a *Agent) longStep(ctx context.Context, emit agent.Emitter, i, n int, inbox []a2a.Message) (agent.Outcome, error) {
	if err := emit.Status(ctx, agent.Text(fmt.Sprintf("Working: step %d of %d", i, n)+acknowledge(inbox))); err != nil {
		return agent.Outcome{}, err
	}
	err := emit.Artifact(ctx, a2a.Artifact{
		ArtifactID: "progress",
		Name:       "progress",
		Parts:      []a2a.Part{a2a.TextPart(fmt.Sprintf("step %d of %d", i, n))},
	}, agent.ArtifactOptions{Append: i > 1, LastChunk: i == n})
	if err != nil {
		return agent.Outcome{}, err
	}
	if i == n {
		return agent.Complete(agent.Text(fmt.Sprintf("Finished all %d steps.", n))), nil
	}
	return agent.Continue(a.step, checkpoint{Next: i + 1, Of: n}), nil
}

// acknowledge is the progress note for the messages the client sent while
// the task worked: ` (received: "a"; "b")`, or "" for none.
func acknowledge(inbox []a2a.Message) string {
	if len(inbox) == 0 {
		return ""
	}
	texts := make([]string, len(inbox))
	for i, m := range inbox {
		texts[i] = strconv.Quote(m.Text())
	}
	return " (received: " + strings.Join(texts, "; ") + ")"
}

func (a *Agent) resume(r *agent.Reply, cp checkpoint) agent.Outcome {
	switch {
	case r.Type == agent.InterruptPermission && r.Permission == agent.PermissionReject:
		return agent.Complete(agent.Text("Understood, I did not "+cp.Action+"."),
			result(fmt.Sprintf("%s was not performed: permission rejected", cp.Action)))
	case r.Type == agent.InterruptPermission:
		return agent.Complete(agent.Text(fmt.Sprintf("Done: %s (permission: %s).", cp.Action, r.Permission)),
			result(fmt.Sprintf("performed %s", cp.Action)))
	case r.Rejected:
		return agent.Complete(agent.Text("You declined to answer."), result("no answer"))
	}
	answer := r.Text
	if len(r.Answers) > 0 {
		var parts []string
		for _, a := range r.Answers {
			parts = append(parts, strings.Join(a, ", "))
		}
		answer = strings.Join(parts, "; ")
	}
	return agent.Complete(agent.Text(fmt.Sprintf("You answered: %q", answer)), result("answer: "+answer))
}

func result(text string) a2a.Artifact {
	return a2a.Artifact{ArtifactID: "result", Name: "result", Parts: []a2a.Part{a2a.TextPart(text)}}
}
