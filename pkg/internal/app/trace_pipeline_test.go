package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/deliverfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/pushfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/notify"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/sqscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

// toServer sends every request to srv, whatever its URL says: the webhook
// has a public name, as the send function requires, and answers on
// loopback.
type toServer struct{ srv *url.URL }

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = t.srv.Scheme, t.srv.Host
	return http.DefaultTransport.RoundTrip(r)
}

// batchAsSingles sends each entry of a batch with SendMessage: moto 5.2.1
// drops the MessageSystemAttributes (AWSTraceHeader) of SendMessageBatch
// entries, which SQS keeps, and keeps those of SendMessage.
type batchAsSingles struct{ *sqscall.Client }

func (c batchAsSingles) SendMessageBatch(ctx context.Context, queueURL string, batch []sqscall.Message) (sqscall.BatchResult, error) {
	var out sqscall.BatchResult
	for _, m := range batch {
		id, err := c.SendMessage(ctx, queueURL, m)
		if err != nil {
			return sqscall.BatchResult{}, err
		}
		out.Successful = append(out.Successful, sqscall.BatchSent{ID: m.ID, MessageID: id})
	}
	return out, nil
}

// TestOneTracePerTask follows one task through the functions on the
// stand-in, each invocation in a trace of its own as Lambda starts them,
// with an in-memory exporter: the send (which completes the task in its
// first step), the table's stream read by the push function, the delivery
// queue and the deliver function's webhook POST. Every span recorded is in
// the send's trace: the task item keeps the send's trace header, the push
// function hands it to the delivery job, and the deliver function runs the
// job under it.
func TestOneTracePerTask(t *testing.T) {
	env := pushEnv(t)
	const (
		sendTrace    = "1-6740d2a0-3f1e2d3c4b5a69788796a5b1"
		pushTrace    = "1-6740d2a1-000000000000000000000001"
		deliverTrace = "1-6740d2a2-000000000000000000000002"
	)
	header := func(root string) string { return "Root=" + root + ";Parent=53995c3f42cd8ad8;Sampled=1" }
	spans := &tracing.Memory{}
	tracer := tracing.New(spans, nil)
	invocation := func(root string) context.Context {
		return context.WithValue(context.Background(), "x-amzn-trace-id", header(root)) //nolint:staticcheck // aws-lambda-go's key
	}
	function := func(name string) *telemetry.Function {
		f := telemetry.NewFunction(name, nil, nil, nil)
		f.Tracer = tracer
		return f
	}

	// The send: a blocking message/send to the echo agent, with a webhook.
	sendFn := function("send")
	h, err := httpfn.New(sendFn.Context(context.Background()), getenv(env), builtin.Registry(), httpapi.RoutesRPC, io.Discard)
	require.NoError(t, err)
	send := telemetry.HTTP(sendFn, boot.LambdaHTTP(h, nil))
	ev := loadEvent(t, "send/jsonrpc-message-send.json")
	ev.Body = `{"jsonrpc":"2.0","id":"1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m-trace-1","parts":[{"kind":"text","text":"hello"}]},` +
		`"configuration":{"blocking":true,"pushNotificationConfig":{"url":"https://hooks.example.com/a2a","token":"hook-token"}}}}`
	resp, err := send(invocation(sendTrace), ev)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode, resp.Body)
	var answer struct {
		Result struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(resp.Body), &answer), resp.Body)
	require.Equal(t, "completed", answer.Result.Status.State, resp.Body)

	// The stream, as the event source mapping reads it, to the push
	// function in its own trace.
	ctx := context.Background()
	recs, err := awstest.NewStreamReader(t, env["A2A_TASK_STORE_TABLE"]).Read(ctx)
	require.NoError(t, err)
	jobs := 0
	for _, r := range recs {
		c, err := dynamo.ChangeFromStream(r)
		require.NoError(t, err)
		if c != nil {
			jobs += len(notify.Jobs(*c))
		}
	}
	require.Positive(t, jobs, "the task's changes notify its webhook")
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	pushAWS, err := boot.AWSConfig(cfg, getenv(env))
	require.NoError(t, err)
	pushSQS, err := sqscall.New(pushAWS, sqscall.Options{})
	require.NoError(t, err)
	fanout, err := pushfn.NewFanout(cfg, batchAsSingles{pushSQS}, nil)
	require.NoError(t, err)
	pushResp, err := telemetry.Wrap(function("push"), fanout.Handle, nil)(invocation(pushTrace), events.DynamoDBEvent{Records: recs})
	require.NoError(t, err)
	require.Empty(t, pushResp.BatchItemFailures)

	// The deliver function in its own trace, as its main assembles it but
	// for the webhook's transport (to a loopback receiver, which Lambda
	// never allows).
	var posts atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hook.Close)
	hookURL, err := url.Parse(hook.URL)
	require.NoError(t, err)
	ks, err := keys.Parse([]byte(env["A2A_PUSH_SIGNING_KEYS"]))
	require.NoError(t, err)
	client := &http.Client{
		Transport:     tracing.Transport(toServer{hookURL}),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	d, err := push.NewDeliverer(push.DelivererOptions{Signer: ks, Issuer: pipelineIssuer, Client: client})
	require.NoError(t, err)
	deliverStore, err := app.OpenDynamoStore(ctx, cfg, app.StoreOptions{})
	require.NoError(t, err)
	deliver, err := deliverfn.NewDeliver(cfg, deliverStore, awstest.SQSCall(t, sqscall.Options{}), d, nil, nil)
	require.NoError(t, err)
	deliverFn := telemetry.Wrap(function("deliver"), deliver.Handle, nil)
	awstest.Pump(t, awstest.SQS(t), env["A2A_PUSH_DELIVERY_QUEUE_URL"], func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		return deliverFn(invocation(deliverTrace), ev)
	}, 30*time.Second, func() bool { return int(posts.Load()) == jobs })

	// One trace: the send's spans, the push function's SQS calls, the
	// deliver function's DynamoDB calls and its webhook POST.
	var sendSpans, sqsSpans, posted int
	for _, sp := range spans.Spans() {
		assert.Equal(t, sendTrace, sp.TraceID, "every span is in the send's trace: %+v", sp)
		switch {
		case sp.Name == "SQS": // SendMessage here (batchAsSingles), SendMessageBatch on SQS
			sqsSpans++
		case sp.Name == "hooks.example.com":
			assert.Equal(t, "remote", sp.Namespace)
			assert.Equal(t, http.MethodPost, sp.Operation)
			assert.Equal(t, http.StatusOK, sp.Status)
			posted++
		case sp.Name == "DynamoDB" || sp.Name == "agent step":
			sendSpans++
		}
	}
	assert.Positive(t, sendSpans, "the send's spans")
	assert.Positive(t, sqsSpans, "the push function's enqueueing")
	assert.Equal(t, jobs, posted, "each webhook POST")
}
