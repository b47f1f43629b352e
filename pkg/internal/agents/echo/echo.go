// Package echo is the simplest agent: it completes every task at once with
// one text artifact holding the text it was sent. It is the agent of the
// benchmarks and a starting point for your own.
package echo

import (
	"context"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// Name is the agent's registry name.
const Name = "echo"

// Agent echoes text.
type Agent struct{}

var _ agent.Agent = Agent{}

// New builds the echo agent; it has no settings.
func New(agent.Settings) (agent.Agent, error) { return Agent{}, nil }

// Info implements agent.Agent.
func (Agent) Info() agent.Info {
	return agent.Info{
		Name:        "Echo Agent",
		Description: "Completes every task at once with an artifact holding the text it was sent.",
		Version:     "1.0.0",
		Skills: []a2a.AgentSkill{{
			ID: "echo", Name: "Echo", Description: "Returns the text of your message as an artifact.",
			Tags: []string{"echo", "test"}, Examples: []string{"hello"},
		}},
	}
}

// Step implements agent.Agent.
func (Agent) Step(_ context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	return agent.Complete(nil, a2a.Artifact{
		ArtifactID: "echo",
		Name:       "echo",
		Parts:      []a2a.Part{a2a.TextPart(in.Message.Text())},
	}), nil
}
