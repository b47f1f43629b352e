package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/keystest"
)

// BenchmarkHTTPInvocation measures what one invocation of each HTTP Lambda
// function costs in process, from the JSON of its sample API Gateway v2
// event (events/, as the Lambda runtime hands it to aws-lambda-go) to the
// JSON of its response: the function's telemetry (fields, summary line,
// EMF metrics, as in Lambda), the api-proxy adapter and its handler, on
// the memory store, kept small (the store's own requests, DynamoDB's in
// Lambda, are not counted). "bare" is an aws-lambda-go + api-proxy handler that writes
// a constant body, given the same event; x-bare is each function's cost
// over bare's, measured in alternating blocks in the same run so that the
// machine's load weighs on both alike. `make bench` runs it;
// docs/measured.md quotes the figures.
func BenchmarkHTTPInvocation(b *testing.B) {
	for _, fn := range []struct {
		name, event string
		routes      httpapi.Routes
	}{
		{"card", "card-get.json", httpapi.RoutesCard},
		{"send", "send/jsonrpc-message-send.json", httpapi.RoutesRPC},
		{"tasks", "tasks/rest-tasks-get.json", httpapi.RoutesTasks},
	} {
		h, payload, body := invocationFunction(b, fn.name, fn.event, fn.routes)
		bare := lambda.NewHandler(httpadapter.NewV2(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(body)
		})).ProxyWithContext)
		run := func(hh lambda.Handler) func() {
			ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "8476a536-e9f4-11e8-9739-2dfe598c3fcd"})
			return func() {
				payload.next()
				if _, err := hh.Invoke(ctx, payload.bytes); err != nil {
					b.Fatal(err)
				}
			}
		}
		function, yardstick := run(h), run(bare)
		b.Run(fn.name, func(b *testing.B) {
			lambdaSized(b)
			b.ReportAllocs()
			for b.Loop() {
				function()
			}
			b.StopTimer()
			b.ReportMetric(blockRatio(function, yardstick), "x-bare")
		})
		b.Run(fn.name+"/bare", func(b *testing.B) {
			lambdaSized(b)
			b.ReportAllocs()
			for b.Loop() {
				yardstick()
			}
		})
	}
}

// lambdaSized runs b with the Go runtime as boot.Main sizes it in Lambda
// at the template's memory size (256 MB: one P, where Lambda may show the
// process 2 CPUs; GOGC 400), the function and the bare handler alike.
// (The testing package sets GOMAXPROCS before each benchmark, so each sets
// it itself.)
func lambdaSized(b *testing.B) {
	procs, limit, gc := runtime.GOMAXPROCS(0), debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	b.Cleanup(func() { runtime.GOMAXPROCS(procs); debug.SetMemoryLimit(limit); debug.SetGCPercent(gc) })
	boot.LambdaResources(getenv(map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256"})).Apply()
}

// invocationPayload is an event's JSON; a send's message id is changed
// before each invocation (in place: its digits), so that each one is a
// new task, not an idempotent replay.
type invocationPayload struct {
	bytes  []byte
	digits []byte // the message id's last 12 digits, within bytes
	n      int
}

func (p *invocationPayload) next() {
	if p.digits == nil {
		return
	}
	p.n++
	s := strconv.Itoa(p.n)
	for i := range p.digits {
		p.digits[i] = '0'
	}
	copy(p.digits[len(p.digits)-len(s):], s)
}

// invocationFunction builds the function as its main does, but on the
// memory store, reads its event, and returns the body it answers with.
func invocationFunction(b *testing.B, name, event string, routes httpapi.Routes) (lambda.Handler, *invocationPayload, []byte) {
	env := map[string]string{"A2A_BEARER_TOKEN": eventsToken, "A2A_AGENT": echo.Name, "A2A_EXECUTION": "inline", "AWS_LAMBDA_FUNCTION_NAME": name,
		"A2A_PUSH_SIGNING_KEYS": keystest.PEM(b, "")}
	cfg, err := config.Load(getenv(env))
	require.NoError(b, err)
	tel := telemetry.ForLambda(name, getenv(env), io.Discard, io.Discard)
	var fn any
	if routes == httpapi.RoutesCard {
		fn, err = boot.CardFunction(builtin.Registry())(tel.Context(context.Background()), getenv(env), io.Discard)
		require.NoError(b, err)
	} else {
		// A thousand tasks at most: in Lambda the tasks are in DynamoDB,
		// not on the heap the garbage collector scans.
		store := memory.New(memory.Options{TaskTTL: cfg.TaskStore.TTL, MaxTasks: 1000})
		createTask(b, store, eventTaskGet, a2a.TaskStateCompleted)
		h, err := httpfn.NewHandler(cfg, echo.Agent{}, memoryBacklog{store}, httpfn.Options{Routes: routes})
		require.NoError(b, err)
		fn = boot.LambdaHTTP(h, boot.NewLogger(io.Discard, cfg.LogLevel))
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "events", event))
	require.NoError(b, err)
	var compact bytes.Buffer
	require.NoError(b, json.Compact(&compact, raw))
	p := &invocationPayload{bytes: compact.Bytes()}
	// The sample send's messageId is a UUID: its last group (12 hex
	// digits) becomes a counter.
	if i := bytes.Index(p.bytes, []byte(`-0a1b2c3d4e5f`)); i >= 0 {
		p.digits = p.bytes[i+1 : i+13]
	}
	h := boot.Instrument(tel, fn)
	out, err := h.Invoke(context.Background(), p.bytes)
	require.NoError(b, err)
	var resp events.APIGatewayV2HTTPResponse
	require.NoError(b, json.Unmarshal(out, &resp))
	require.Equal(b, http.StatusOK, resp.StatusCode, "the sample event is answered: %s", resp.Body)
	require.False(b, resp.IsBase64Encoded)
	return h, p, []byte(resp.Body)
}

// blockRatio is the median, over rounds, of the time of a block of calls
// of f over that of a block of calls of yardstick, run in turn. A block
// (60-170 ms) spans several garbage collection cycles, so that each side
// pays its share of them: blocks of 100 calls (2-3 ms) were shorter than a
// cycle, and the median followed where the cycles fell (card: 1.07x in
// one run, 1.76x in the next); at GOGC 400, as in Lambda, blocks of 1,000
// did the same (send: 1.65x in one run, 1.95x in the next).
func blockRatio(f, yardstick func()) float64 {
	const rounds, block = 15, 4000
	block1 := func(g func()) time.Duration {
		start := time.Now()
		for range block {
			g()
		}
		return time.Since(start)
	}
	ratios := make([]float64, rounds)
	for i := range ratios {
		ratios[i] = float64(block1(f)) / float64(block1(yardstick))
	}
	slices.Sort(ratios)
	return ratios[rounds/2]
}
