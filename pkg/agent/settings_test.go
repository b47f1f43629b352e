package agent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// A setting is read from the environment when set there, else from the
// A2A_AGENT_SETTINGS object, whatever JSON type its value has there.
func TestSettingsLookup(t *testing.T) {
	s, err := agent.SettingsFrom(envtest.Getenv(
		"FROM_ENV", "env",
		"EMPTY_ENV", "",
		agent.EnvSettings, ` {"FROM_ENV": "json", "EMPTY_ENV": "json", "TEXT": " spaced ", "NUMBER": 512, "FLOAT": 0.5,
			"BOOL": false, "NULL": null, "LIST": ["a", " b ", ""], "CSV": "x, y,,z", "OBJECT": {"k": [1, 2]}} `,
	))
	require.NoError(t, err)
	for name, want := range map[string]string{
		"FROM_ENV":  "env",
		"EMPTY_ENV": "json",
		"TEXT":      " spaced ",
		"NUMBER":    "512",
		"FLOAT":     "0.5",
		"BOOL":      "false",
		"LIST":      `["a"," b ",""]`,
		"OBJECT":    `{"k":[1,2]}`,
	} {
		got, ok := s.Lookup(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, unset := range []string{"NULL", "MISSING"} {
		_, ok := s.Lookup(unset)
		assert.False(t, ok, unset)
	}
	assert.Equal(t, "spaced", s.String("TEXT", "def"))
	assert.Equal(t, "def", s.String("MISSING", "def"))
	assert.Equal(t, []string{"a", "b"}, s.List("LIST"))
	assert.Equal(t, []string{"x", "y", "z"}, s.List("CSV"))
	assert.Empty(t, s.List("MISSING"))

	n, err := s.Int("NUMBER", 1, 1, 1000)
	require.NoError(t, err)
	assert.Equal(t, 512, n)
	n, err = s.Int("MISSING", 7, 1, 10)
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	_, err = s.Int("NUMBER", 1, 1, 100)
	assert.EqualError(t, err, `NUMBER="512" must be an integer from 1 to 100`)
	_, err = s.Int("FLOAT", 1, 0, 100)
	assert.EqualError(t, err, `FLOAT="0.5" must be an integer from 0 to 100`)
	b, err := s.Bool("BOOL", true)
	require.NoError(t, err)
	assert.False(t, b)
	_, err = s.Bool("TEXT", false)
	assert.EqualError(t, err, `TEXT="spaced" must be true or false`)

	var zero agent.Settings
	assert.Empty(t, zero.Get("ANY"), "the zero Settings has no value")
}

// An A2A_AGENT_SETTINGS that is not one JSON object is refused with an
// error that names the variable and quotes none of its value.
func TestSettingsRefused(t *testing.T) {
	for name, tc := range map[string]struct{ value, want string }{
		"not json":      {`SECRET=1`, "A2A_AGENT_SETTINGS must be a JSON object of settings"},
		"syntax":        {`{"a": SECRET}`, "(invalid JSON at byte"},
		"array":         {`["SECRET"]`, "must be a JSON object"},
		"null":          {`null`, "must be a JSON object"},
		"two values":    {`{} {"SECRET": 1}`, "must be a JSON object"},
		"ssm reference": {`ssm:/SECRET/settings`, "names where the settings are kept, but nothing read it"},
		"secrets ref":   {`secretsmanager:SECRET`, "names where the settings are kept"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := agent.SettingsFrom(envtest.Getenv(agent.EnvSettings, tc.value))
			require.ErrorContains(t, err, tc.want)
			assert.NotContains(t, err.Error(), "SECRET")
		})
	}
	s, err := agent.SettingsFrom(envtest.Getenv(agent.EnvSettings, "  "))
	require.NoError(t, err, "blank is no settings")
	assert.Empty(t, s.Get("A"))

	reg := agent.NewRegistry()
	reg.Register("mine", func(agent.Settings) (agent.Agent, error) { return nil, nil })
	_, err = reg.New("mine", envtest.Getenv(agent.EnvSettings, "{"))
	assert.ErrorContains(t, err, `agent "mine": A2A_AGENT_SETTINGS must be a JSON object`)
}
