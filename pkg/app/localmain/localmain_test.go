package localmain_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/localmain"
)

// -h and --help print the usage and exit 0; an argument is refused with
// the usage (exit 2) rather than ignored; no argument serves.
func TestCommandLine(t *testing.T) {
	reg := builtin.Registry()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		var out, errw bytes.Buffer
		code, done := localmain.CommandLine("a2a-local", args, reg, &out, &errw)
		assert.True(t, done, args)
		assert.Equal(t, 0, code, args)
		assert.Contains(t, out.String(), "Usage: a2a-local\n", args)
		assert.Contains(t, out.String(), "A2A_AGENT=NAME              the agent to serve: ", args)
		assert.Contains(t, out.String(), "conformance", "the registry's agents are listed")
		assert.Empty(t, errw.String())
	}
	var out, errw bytes.Buffer
	code, done := localmain.CommandLine("a2a-local", []string{"--port", "9000"}, reg, &out, &errw)
	assert.True(t, done)
	assert.Equal(t, 2, code)
	assert.Contains(t, errw.String(), `a2a-local: unexpected argument "--port": the server takes no arguments, only A2A_* environment variables`)
	assert.Contains(t, errw.String(), "Usage: a2a-local")
	assert.Empty(t, out.String())

	_, done = localmain.CommandLine("a2a-local", nil, reg, &out, &errw)
	assert.False(t, done, "no argument: serve")
}
