// Package clienttest starts this project's local A2A server on a loopback
// listener, for tests of clients and of agents that talk to other agents.
package clienttest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/dynamodb"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/demo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/follow"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/streamscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// Options configure a test server.
type Options struct {
	// Agent is the agent served; nil serves the demo agent with no
	// simulated work and 10 ms between the steps of "long N".
	Agent agent.Agent
	// Token, when set, is the only bearer token the server accepts.
	Token string
	// Env holds extra server settings (A2A_BLOCKING_TIMEOUT_SECONDS...).
	Env map[string]string
	// Store keeps the tasks; nil means the memory store. Push configs are
	// kept in it, but no notification is sent unless Changes follows its
	// changes (see DynamoStoreWithChanges).
	Store   store.Store
	Changes app.ChangeSource
	// Push replaces parts of the push pipeline (its retry policy...).
	Push app.PushOptions
	// Wrap, when set, wraps the server's handler (to record requests).
	Wrap func(http.Handler) http.Handler
	// Files keeps the files; nil means a folder of the test's own, served
	// at URL/files/.
	Files objectstore.Store
	// Clock tells the server's time (nil: the system clock).
	Clock clock.Clock
}

// Server is a running local server.
type Server struct {
	// URL is the base URL: the card is at URL/.well-known/agent-card.json.
	URL   string
	Local *app.Local
}

// DemoEnv is the demo agent's fast settings.
func DemoEnv() map[string]string {
	return map[string]string{demo.EnvWorkMS: "0", demo.EnvStepMS: "10"}
}

// Start serves o.Agent until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	env := DemoEnv()
	env["A2A_FILES_DIR"] = t.TempDir()
	for k, v := range o.Env {
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	cfg, err := config.Load(getenv)
	require.NoError(t, err)
	cfg.PublicURL = "" // the card takes the listener's URL from each request
	// The listener's URL is the file URLs' base.
	var h http.Handler
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	ag := o.Agent
	if ag == nil {
		ag, err = demo.New(agent.NewSettings(getenv, nil))
		require.NoError(t, err)
	}
	var authn httpapi.Authenticator = auth.Anonymous{}
	if o.Token != "" {
		authn = auth.NewBearer(map[string]string{"tester": o.Token})
	}
	lo := app.LocalOptions{Auth: authn, Store: o.Store, Changes: o.Changes, Push: o.Push, Files: o.Files, Clock: o.Clock,
		FilesURL: "http://" + hs.Listener.Addr().String()}
	if o.Store != nil && o.Changes == nil {
		lo.Changes = func(ctx context.Context, _ func(store.TaskChange), started func()) { started(); <-ctx.Done() }
	}
	srv, err := app.NewLocal(cfg, ag, lo)
	require.NoError(t, err)
	h = srv.Handler
	if o.Wrap != nil {
		h = o.Wrap(h)
	}
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return &Server{URL: hs.URL, Local: srv}
}

// DynamoStore is a DynamoDB store on a new table of the test's local AWS
// stand-in (see awstest).
func DynamoStore(t testing.TB) *dynamo.Store {
	s, _ := DynamoStoreWithChanges(t)
	return s
}

// DynamoStoreWithChanges is DynamoStore with the follower of its table's
// stream, for Options.Changes: the local server then sends push
// notifications, as make run does on DynamoDB.
func DynamoStoreWithChanges(t testing.TB) (*dynamo.Store, app.ChangeSource) {
	t.Helper()
	c := awstest.DynamoDB(t)
	table := awstest.UniqueName(t, "clienttest")
	require.NoError(t, dynamo.CreateTable(context.Background(), c, table))
	s, err := dynamo.New(c, dynamo.Options{Table: table})
	require.NoError(t, err)
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	streams, err := streamscall.New(awstest.Config(t), streamscall.Options{})
	require.NoError(t, err)
	arn := aws.ToString(out.Table.LatestStreamArn)
	return s, func(ctx context.Context, fn func(store.TaskChange), started func()) {
		follow.Changes(ctx, streams, arn, fn, follow.Options{Started: started})
	}
}
