package startup_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// A function whose A2A_AGENT_SETTINGS names an SSM parameter reads the
// settings object there at cold start, and the agent is built with it: a
// stack's AgentSettings reach the agent, secrets included, with no
// template edit. A variable set in the environment still wins.
func TestAgentSettingsFromAReference(t *testing.T) {
	var asked []string
	ssm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in struct{ Name string }
		_ = json.Unmarshal(body, &in)
		asked = append(asked, r.Header.Get("X-Amz-Target")+" "+in.Name)
		_ = json.NewEncoder(w).Encode(map[string]any{"Parameter": map[string]any{"Value": `{"GREETING": "from ssm", "TOKEN": "s3cret", "LIMIT": 3}`}})
	}))
	defer ssm.Close()

	var got agent.Settings
	reg := agent.NewRegistry()
	reg.Register("probe", func(s agent.Settings) (agent.Agent, error) {
		got = s
		return echo.New(s)
	})
	env, err := startup.Start(context.Background(), envtest.Getenv(
		"A2A_AGENT", "probe",
		agent.EnvSettings, "ssm:/my-agent/settings",
		"LIMIT", "5",
		"AWS_REGION", "us-east-1", "AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret",
		"AWS_ENDPOINT_URL", ssm.URL,
	), io.Discard)
	require.NoError(t, err)
	_, err = env.Agent(reg)
	require.NoError(t, err)
	assert.Equal(t, []string{"AmazonSSM.GetParameter /my-agent/settings"}, asked, "one read, at cold start")
	assert.Equal(t, "from ssm", got.Get("GREETING"))
	assert.Equal(t, "s3cret", got.Get("TOKEN"))
	assert.Equal(t, "5", got.Get("LIMIT"), "the environment wins")

	// A reference that cannot be read stops the cold start, naming the
	// variable and never a value.
	ssm.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Amzn-ErrorType", "ParameterNotFound")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"ParameterNotFound","message":"no such parameter"}`)
	})
	_, err = startup.Start(context.Background(), envtest.Getenv(agent.EnvSettings, "ssm:/my-agent/missing",
		"AWS_REGION", "us-east-1", "AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret", "AWS_ENDPOINT_URL", ssm.URL), io.Discard)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "A2A_AGENT_SETTINGS") && strings.Contains(err.Error(), "ssm:/my-agent/missing"), err.Error())
}
