// Command sweep is the Lambda function that EventBridge invokes every
// minute: it takes over the tasks whose runner died (a send function that
// crashed or timed out in the middle of an inline step) once their lease
// lapsed, or fails them after A2A_TASK_MAX_TAKEOVERS. It only wires;
// pkg/app/sweepfn assembles the handler once per cold start and pkg/boot
// starts it.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/sweepfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("sweep", sweepfn.Function(builtin.Registry())) }
