// Command a2a-local serves an A2A agent on this machine with embedded
// defaults: an in-memory task store, goroutine runner and the demo agent.
// `make run` starts it. Settings come from A2A_* environment variables
// (see the README).
package main

import (
	"os"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/localmain"
)

func main() {
	localmain.Run("a2a-local", os.Getenv, builtin.Registry())
}
