// Package countdown is the example of "Write your own agent": a small agent
// that counts down over several steps (Continue outcomes), appends each
// number to an artifact, and asks permission before liftoff (an interrupt).
// Send it "countdown 5", or anything else to be asked for the number.
package countdown

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// Name is the agent's registry name (A2A_AGENT=countdown).
const Name = "countdown"

// EnvStepMS is the delay between two numbers, in milliseconds (default 1000).
const EnvStepMS = "A2A_COUNTDOWN_STEP_MS"

// Agent counts down.
type Agent struct{ step time.Duration }

// New builds the agent from its settings; it is the agent.Factory to register.
func New(s agent.Settings) (agent.Agent, error) {
	ms, err := s.Int(EnvStepMS, 1000, 0, 60_000)
	if err != nil {
		return nil, err
	}
	return &Agent{step: time.Duration(ms) * time.Millisecond}, nil
}

// Info describes the agent for its card.
func (a *Agent) Info() agent.Info {
	return agent.Info{
		Name: "Countdown", Description: "Counts down, one number per step, then asks before liftoff.", Version: "1.0.0",
		Skills: []a2a.AgentSkill{{ID: "countdown", Name: "Countdown", Description: "Counts down from N (1 to 20).",
			Tags: []string{"example"}, Examples: []string{"countdown 5"}}},
	}
}

// state is what a step hands to the next one (the checkpoint).
type state struct {
	Next   int  `json:"next,omitempty"`   // the number to say next
	Launch bool `json:"launch,omitempty"` // waiting for the launch permission
}

// Step says one number per step; the host stores everything in between.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, emit agent.Emitter) (agent.Outcome, error) {
	var st state
	if err := in.DecodeCheckpoint(&st); err != nil {
		return agent.Outcome{}, fmt.Errorf("countdown: %w", err)
	}
	switch {
	case st.Launch && in.Reply.Permission == agent.PermissionReject:
		return agent.Complete(agent.Text("Launch aborted.")), nil
	case st.Launch:
		if err := emit.Artifact(ctx, countdown("Liftoff!"), agent.ArtifactOptions{Append: true, LastChunk: true}); err != nil {
			return agent.Outcome{}, err
		}
		return agent.Complete(agent.Text("Liftoff!")), nil
	case st.Next == 0: // a new task, or the answer to our question
		text := in.Message.Text()
		if in.Reply != nil && len(in.Reply.Answers) > 0 {
			text = strings.Join(in.Reply.Answers[0], "")
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "countdown")))
		if err != nil || n < 1 || n > 20 {
			return agent.AskQuestion(agent.Text("From which number should I count down? (1 to 20)"), nil), nil
		}
		st.Next = n
	}
	err := emit.Artifact(ctx, countdown(fmt.Sprintf("%d...", st.Next)), agent.ArtifactOptions{Append: true})
	if err != nil {
		return agent.Outcome{}, err
	}
	if st.Next > 1 {
		return agent.Continue(a.step, state{Next: st.Next - 1}), nil
	}
	ask := agent.AskPermission(agent.Text("Countdown finished. Launch? Reply once, always or reject."), map[string]any{"permission": "launch"})
	return ask.WithCheckpoint(state{Launch: true}), nil
}

// countdown is one more piece of the "countdown" artifact.
func countdown(text string) a2a.Artifact {
	return a2a.Artifact{ArtifactID: "countdown", Name: "countdown", Parts: []a2a.Part{a2a.TextPart(text)}}
}
