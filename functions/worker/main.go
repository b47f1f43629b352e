// Command worker is the Lambda function the state machine
// (infra/statemachine.asl.json) calls for every action of a task's step
// protocol: run a step, show an interrupt and bind its task token, expire
// an unanswered interrupt, fail a task whose step failed. It only wires;
// pkg/app/workerfn assembles the handler once per cold start and pkg/boot
// starts it.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/workerfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("worker", workerfn.Function(builtin.Registry())) }
