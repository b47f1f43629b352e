// Command deliver is the Lambda function on the push delivery queue: it
// POSTs each job's signed notification to its webhook, schedules retries
// through the message's visibility timeout, dead-letters what fails for
// good, and records every outcome on the push config. It only wires;
// pkg/app/deliverfn assembles the handler once per cold start and pkg/boot
// starts it.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/app/deliverfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("deliver", deliverfn.Function) }
