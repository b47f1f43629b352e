package app

import (
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

// LambdaStore is what the HTTP Lambda functions need of a task store
// (httpfn.Store).
type LambdaStore = httpfn.Store

// LambdaOptions configure the handler of an HTTP Lambda function
// (httpfn.Options).
type LambdaOptions = httpfn.Options

// NewLambdaHandler assembles an HTTP Lambda function around store, as the
// send and tasks functions do (httpfn.NewHandler).
func NewLambdaHandler(cfg config.Config, ag agent.Agent, store LambdaStore, o LambdaOptions) (http.Handler, error) {
	return httpfn.NewHandler(cfg, ag, store, o)
}
