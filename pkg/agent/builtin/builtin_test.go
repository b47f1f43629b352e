package builtin_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/llm"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/proxy"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
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

// The built-in agents read their settings from A2A_AGENT_SETTINGS as a
// user's agent does: every A2A_LLM_* and A2A_PROXY_* variable can be a key
// of the object, with a JSON number, boolean or array where that reads
// better; a variable of the environment still wins.
func TestBuiltinAgentsReadTheSettingsObject(t *testing.T) {
	s, err := agent.SettingsFrom(envtest.Getenv("A2A_LLM_MODEL", "from-env", agent.EnvSettings, `{
		"A2A_LLM_BASE_URL": "https://api.example.com/v1", "A2A_LLM_MODEL": "from-json", "A2A_LLM_SYSTEM_PROMPT": "Answer in French.",
		"A2A_LLM_MAX_TOKENS": 512, "A2A_LLM_CHAT": true, "A2A_LLM_ALLOWED_MODELS": ["small", "large"],
		"A2A_PROXY_URL": "https://agent.example.com", "A2A_PROXY_POLL_MS": 250, "A2A_PROXY_NAME": "Weather"}`))
	require.NoError(t, err)
	cfg, err := llm.ConfigFrom(s)
	require.NoError(t, err)
	assert.Equal(t, "from-env", cfg.Model)
	assert.Equal(t, "https://api.example.com/v1", cfg.BaseURL)
	assert.Equal(t, "Answer in French.", cfg.SystemPrompt)
	assert.Equal(t, 512, cfg.MaxTokens)
	assert.True(t, cfg.Chat)
	assert.Equal(t, []string{"small", "large"}, cfg.AllowedModels)
	pc, err := proxy.ConfigFrom(s)
	require.NoError(t, err)
	assert.Equal(t, "https://agent.example.com", pc.URL)
	assert.Equal(t, 250*time.Millisecond, pc.Poll)
	assert.Equal(t, "Weather", pc.Name)

	_, err = builtin.Registry().New("llm", envtest.Getenv(agent.EnvSettings, `{"A2A_LLM_BASE_URL": "https://api.example.com/v1", "A2A_LLM_MODEL": "m", "A2A_LLM_MAX_TOKENS": "lots"}`))
	assert.ErrorContains(t, err, `agent "llm": A2A_LLM_MAX_TOKENS="lots" must be an integer from 1 to 1000000`)
}
