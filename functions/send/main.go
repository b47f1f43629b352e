// Command send is the send Lambda function: JSON-RPC (every method: POST /) and the REST message:send routes,
// behind an API Gateway HTTP API (payload 2.0), on the DynamoDB task store.
// It only wires; pkg/app/httpfn assembles the handler once per cold start
// and pkg/boot starts it.
package main

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
)

func main() { boot.Main("send", httpfn.Send(builtin.Registry())) }
