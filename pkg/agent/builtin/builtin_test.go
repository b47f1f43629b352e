package builtin_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
)

func TestRegistry(t *testing.T) {
	reg := builtin.Registry()
	assert.Equal(t, []string{"a2a-proxy", "conformance", "demo", "echo", "llm"}, reg.Names())
	// The agents that talk to other services need their settings.
	settings := map[string]string{
		"A2A_LLM_BASE_URL": "https://api.example.com/v1", "A2A_LLM_MODEL": "m",
		"A2A_PROXY_URL": "https://agent.example.com",
	}
	for _, name := range reg.Names() {
		ag, err := reg.New(name, func(k string) string { return settings[k] })
		require.NoError(t, err, name)
		info := ag.Info()
		assert.NotEmpty(t, info.Name, name)
		assert.NotEmpty(t, info.Skills, name)
	}
	_, err := reg.New("nope", func(string) string { return "" })
	assert.ErrorContains(t, err, "choose one of: a2a-proxy, conformance, demo, echo, llm")
	_, err = reg.New("llm", func(string) string { return "" })
	assert.ErrorContains(t, err, `agent "llm": A2A_LLM_BASE_URL is required`)
	_, err = reg.New("a2a-proxy", func(string) string { return "" })
	assert.ErrorContains(t, err, `agent "a2a-proxy": A2A_PROXY_URL is required`)

	// A binary adds its own agent with one call.
	reg.Register("mine", func(agent.Settings) (agent.Agent, error) { return nil, assert.AnError })
	_, err = reg.New("mine", func(string) string { return "" })
	assert.ErrorIs(t, err, assert.AnError)
}

func TestEchoCompletesWithTheText(t *testing.T) {
	ag, err := builtin.Registry().New("echo", func(string) string { return "" })
	require.NoError(t, err)
	out, err := ag.Step(context.Background(), agent.StepInput{Message: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("hi "), a2a.TextPart("there")}}}, nil)
	require.NoError(t, err)
	assert.Equal(t, agent.OutcomeCompleted, out.Kind)
	require.Len(t, out.Artifacts, 1)
	assert.Equal(t, "hi there", a2a.PartsText(out.Artifacts[0].Parts))
}
