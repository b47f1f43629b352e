// Package builtin registers the agents that ship with the host.
package builtin

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/conformance"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/llm"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/proxy"
)

// Registry returns a new registry holding the built-in agents. Binaries that
// serve their own agent register it on the result.
func Registry() *agent.Registry {
	r := agent.NewRegistry()
	r.Register(conformance.Name, conformance.New)
	r.Register(demo.Name, demo.New)
	r.Register(echo.Name, echo.New)
	r.Register(llm.Name, llm.New)
	r.Register(proxy.Name, proxy.New)
	return r
}
