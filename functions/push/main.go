// Command push is the Lambda function on the task table's DynamoDB stream
// (NEW_AND_OLD_IMAGES): it turns the task changes webhooks are told about
// into one delivery job per push config on the delivery queue, reporting
// partial batch failures by sequence number. It only wires;
// pkg/app/pushfn assembles the handler once per cold start.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/app/pushfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("push", pushfn.Function) }
