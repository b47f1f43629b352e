// Command countdown-local serves the countdown example agent on this
// machine, next to the built-in agents: one registration call, no change to
// the host's packages. A2A_AGENT defaults to countdown here.
package main

import (
	"os"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/countdown"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/localmain"
)

func main() {
	reg := builtin.Registry()
	reg.Register(countdown.Name, countdown.New) // your agent: the one registration call
	getenv := func(k string) string {
		if v := os.Getenv(k); v != "" || k != "A2A_AGENT" {
			return v
		}
		return countdown.Name
	}
	localmain.Run("countdown-local", getenv, reg)
}
