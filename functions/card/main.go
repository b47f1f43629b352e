// Command card is the Lambda function that serves the public agent card
// (GET /.well-known/agent-card.json and /.well-known/agent.json). It needs
// no AWS access.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("card", boot.CardFunction(builtin.Registry())) }
