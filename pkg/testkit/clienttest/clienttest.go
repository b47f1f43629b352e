// Package clienttest starts this project's local A2A server on a loopback
// listener, for tests of clients and of agents that talk to other agents.
package clienttest

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
)

// Options configure a test server.
type Options struct {
	// Agent is the agent served; nil serves the demo agent with no
	// simulated work and 10 ms between the steps of "long N".
	Agent agent.Agent
	// Token, when set, is the only bearer token the server accepts.
	Token string
	// Env holds extra server settings (A2A_BLOCKING_TIMEOUT_SECONDS...).
	Env map[string]string
}

// Server is a running local server.
type Server struct {
	// URL is the base URL: the card is at URL/.well-known/agent-card.json.
	URL   string
	Local *app.Local
}

// DemoEnv is the demo agent's fast settings.
func DemoEnv() map[string]string {
	return map[string]string{demo.EnvWorkMS: "0", demo.EnvStepMS: "10"}
}

// Start serves o.Agent until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	env := DemoEnv()
	for k, v := range o.Env {
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(getenv)
	require.NoError(t, err)
	cfg.PublicURL = "" // the card takes the listener's URL from each request
	ag := o.Agent
	if ag == nil {
		ag, err = demo.New(getenv)
		require.NoError(t, err)
	}
	var authn httpapi.Authenticator = auth.Anonymous{}
	if o.Token != "" {
		authn = auth.NewBearer(map[string]string{"tester": o.Token})
	}
	srv, err := app.NewLocal(cfg, ag, app.LocalOptions{Auth: authn})
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return &Server{URL: hs.URL, Local: srv}
}
