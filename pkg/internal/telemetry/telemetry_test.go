package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/telemetry"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
)

func lines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for l := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}

type pushConfig struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	Auth  struct {
		Credentials string `json:"credentials"`
	} `json:"authentication"`
}

// Debug lines too: secrets in attribute names, values, errors, messages,
// composite values and logger attributes never reach the output.
func TestHandlerRedactsSecrets(t *testing.T) {
	const (
		bearer = "tok-4a1b2c3d"
		llm    = "sk-proj-abcdef1234567890"
		pemKey = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----"
		push   = "push-tok-99887766"
		given  = "configured-secret-value"
	)
	pc := pushConfig{URL: "https://hooks.example.com", Token: push}
	pc.Auth.Credentials = push
	logAll := func(log *slog.Logger) {
		log.Debug("header Authorization: Bearer "+bearer, "authorization", "Bearer "+bearer)
		log.Debug("llm", "api_key", llm, "note", "key is "+llm)
		log.Debug("keys", "error", errors.New("bad key: "+pemKey))
		log.Debug("config", "config", pc, "configs", []pushConfig{pc})
		log.With("push_token", push).Debug("with", "detail", "value "+given)
		log.WithGroup("g").Debug("group", slog.Group("inner", "token", push))
		log.Debug("any case", "note", "sent with BeaRer\t"+bearer+" in the header")
	}
	var buf bytes.Buffer
	logAll(slog.New(telemetry.NewHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), given)))
	out := buf.String()
	for _, s := range []string{bearer, llm, "MIGHAgEAMBMGByqGSM49", push, given} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, telemetry.Redacted)
	assert.Len(t, lines(t, &buf), 7)

	// The logger every binary uses (its own JSON handler) redacts the
	// same (it is given no secret values).
	buf.Reset()
	logAll(telemetry.NewLogger(&buf, slog.LevelDebug))
	out = buf.String()
	for _, s := range []string{bearer, llm, "MIGHAgEAMBMGByqGSM49", push} {
		assert.NotContains(t, out, s)
	}
	assert.Len(t, lines(t, &buf), 7)
}

// Every line carries the Lambda request id, the trace root and the bag's
// fields; the summary line adds the cold start flag and the duration,
// measured on the injected clock; metrics are flushed as EMF at the end.
func TestWrapJoinsLinesAndFlushesMetrics(t *testing.T) {
	var logs, emf bytes.Buffer
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	sink := metrics.New(metrics.Config{Namespace: "NS", Dimensions: map[string]string{"Service": "svc"}, Out: &emf, Clock: clk})
	log := slog.New(telemetry.NewHandler(slog.NewJSONHandler(&logs, nil)))
	f := telemetry.NewFunction("worker", log, sink, clk)
	type event struct{ TaskID string }
	h := telemetry.Wrap(f, func(ctx context.Context, ev event) (string, error) {
		log.InfoContext(ctx, "before")
		logfields.AddTask(ctx, ev.TaskID, "ctx-1")
		logfields.Add(ctx, logfields.FieldMethod, "message/send")
		metrics.From(ctx).Count(metrics.TasksCompleted, metrics.DimAgent, "echo")
		clk.Advance(250 * time.Millisecond)
		log.InfoContext(ctx, "after")
		return "ok", nil
	}, func(ctx context.Context, ev event) { logfields.Add(ctx, "event_task", ev.TaskID) })
	for i, id := range []string{"r-1", "r-2"} {
		ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: id})
		ctx = context.WithValue(ctx, "x-amzn-trace-id", "Root=1-abc-def;Parent=12;Sampled=1") //nolint:staticcheck // aws-lambda-go's key
		_, err := h(ctx, event{TaskID: "task-" + id})
		require.NoError(t, err, i)
	}
	ls := lines(t, &logs)
	require.Len(t, ls, 6)
	for _, l := range ls {
		assert.Equal(t, "1-abc-def", l["trace_id"])
		assert.Equal(t, "worker", l["function"])
		assert.NotEmpty(t, l["aws_request_id"])
	}
	assert.Nil(t, ls[0]["task_id"], "a field appears once it is known")
	assert.Equal(t, "task-r-1", ls[1]["task_id"])
	sum := ls[2]
	assert.Equal(t, "invocation", sum["msg"])
	assert.Equal(t, true, sum["cold_start"])
	assert.Equal(t, 250.0, sum["duration_ms"])
	assert.Equal(t, "ctx-1", sum["context_id"])
	assert.Equal(t, false, ls[5]["cold_start"])
	assert.Equal(t, "r-2", ls[5]["aws_request_id"])

	docs := lines(t, &emf)
	require.Len(t, docs, 2, "per invocation: one line")
	d := docs[0]
	assert.Equal(t, "echo", d["Agent"])
	assert.Equal(t, "svc", d["Service"])
	assert.Equal(t, 1.0, d[metrics.TasksCompleted])
	assert.Equal(t, "message/send", d["Method"])
	assert.Equal(t, 250.0, d[metrics.RequestLatency])
	meta := d["_aws"].(map[string]any)
	assert.Equal(t, float64(clk.Now().Add(-250*time.Millisecond).UnixMilli()), meta["Timestamp"], "first invocation's flush time")
	dirs := meta["CloudWatchMetrics"].([]any)
	require.Len(t, dirs, 2, "a directive per dimension set")
	dir := dirs[0].(map[string]any)
	assert.Equal(t, "NS", dir["Namespace"])
	assert.Equal(t, []any{[]any{"Service", "Agent"}, []any{"Service"}}, dir["Dimensions"])
	assert.Equal(t, []any{map[string]any{"Name": "TasksCompleted", "Unit": "Count"}}, dir["Metrics"])
	assert.Equal(t, []any{[]any{"Service", "Method"}, []any{"Service"}}, dirs[1].(map[string]any)["Dimensions"])
	assert.Equal(t, []any{map[string]any{"Name": "RequestLatency", "Unit": "Milliseconds"}}, dirs[1].(map[string]any)["Metrics"])
}

func TestCallerHash(t *testing.T) {
	h := logfields.CallerHash("alice")
	assert.Len(t, h, 16)
	assert.Equal(t, h, logfields.CallerHash("alice"))
	assert.NotEqual(t, h, logfields.CallerHash("bob"))
	assert.NotContains(t, h, "alice")
	assert.Empty(t, logfields.CallerHash(""))
}

func TestWithAttrsTakePrecedenceOverFields(t *testing.T) {
	var buf bytes.Buffer
	log := telemetry.NewLogger(&buf, slog.LevelInfo).With(logfields.FieldFunction, "card")
	ctx := logfields.WithFields(context.Background())
	logfields.Add(ctx, logfields.FieldFunction, "card", logfields.FieldMethod, "GET")
	log.InfoContext(ctx, "line")
	log.WithGroup("g").InfoContext(ctx, "grouped")
	out := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, out, 2)
	assert.Equal(t, 1, strings.Count(out[0], `"function"`), "a key once per line: %s", out[0])
	assert.Contains(t, out[0], `"method":"GET"`)
	assert.Contains(t, out[1], `"g":{"function":"card","method":"GET"}`, "inside a group the fields are the group's: %s", out[1])
}

// A plain path's request (a document) is summarised by the same line as any
// other, its keys in the same order, without a field bag: what its handler
// adds is dropped, and its cold start is the function's.
func TestMiddlewarePlainPaths(t *testing.T) {
	var logs bytes.Buffer
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	f := telemetry.NewFunction("local", telemetry.NewLogger(&logs, slog.LevelInfo), nil, clk)
	h := telemetry.Middleware(f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logfields.Add(r.Context(), logfields.FieldMethod, "GetTask")
		clk.Advance(2 * time.Millisecond)
		if r.URL.Path == "/gone" {
			w.WriteHeader(http.StatusGone)
		}
	}), "/doc", "/gone")
	for _, req := range [][2]string{{http.MethodGet, "/doc"}, {http.MethodGet, "/rpc"}, {http.MethodGet, "/gone"}, {http.MethodHead, "/doc"}} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req[0], req[1], nil))
	}
	got := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, got, 4)
	assert.Equal(t, `{"time":"2026-11-24T12:00:00.002Z","level":"INFO","msg":"invocation","route":"GET /doc","status":200,"duration_ms":2,"function":"local","cold_start":true}`, got[0])
	assert.Equal(t, `{"time":"2026-11-24T12:00:00.004Z","level":"INFO","msg":"invocation","route":"GET /rpc","status":200,"duration_ms":2,"function":"local","cold_start":false,"method":"GetTask"}`, got[1])
	assert.Equal(t, `{"time":"2026-11-24T12:00:00.006Z","level":"INFO","msg":"invocation","route":"GET /gone","status":410,"duration_ms":2,"function":"local","cold_start":false}`, got[2])
	assert.Equal(t, `{"time":"2026-11-24T12:00:00.008Z","level":"INFO","msg":"invocation","route":"HEAD /doc","status":200,"duration_ms":2,"function":"local","cold_start":false}`, got[3])
}

// An answer whose length its handler set reaches the client while its
// summary line is still being written; one without keeps net/http's own
// Content-Length (a flush would have made it chunked) and is sent after
// the line.
func TestMiddlewareAnswersBeforeItsLine(t *testing.T) {
	const body = `{"name":"card"}`
	for _, tc := range []struct {
		name   string
		length bool
	}{
		{"length set by the handler", true},
		{"length left to net/http", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gate, lineStarted := make(chan struct{}), make(chan struct{}, 1)
			var opened sync.Once
			open := func() { opened.Do(func() { close(gate) }) }
			var line bytes.Buffer
			out := writerFunc(func(p []byte) (int, error) {
				lineStarted <- struct{}{}
				<-gate
				return line.Write(p)
			})
			f := telemetry.NewFunction("local", telemetry.NewLogger(out, slog.LevelInfo), nil, nil)
			srv := httptest.NewServer(telemetry.Middleware(f, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.length {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				_, _ = w.Write([]byte(body))
			}), "/card"))
			defer srv.Close()
			defer open() // before the server's Close waits for the handler
			if !tc.length {
				go func() {
					<-lineStarted
					open()
				}()
			}
			c := &http.Client{Timeout: 5 * time.Second}
			resp, err := c.Get(srv.URL + "/card")
			require.NoError(t, err, "the answer came while its line was written")
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			assert.Equal(t, body, string(got))
			assert.Equal(t, int64(len(body)), resp.ContentLength)
			assert.Empty(t, resp.TransferEncoding, "not chunked")
			if tc.length {
				select {
				case <-lineStarted:
				case <-time.After(5 * time.Second):
					t.Fatal("no summary line")
				}
				open()
			}
			srv.Close()
			assert.Contains(t, line.String(), `"route":"GET /card","status":200`)
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The summary line has the same attributes whichever handler the
// function's logger has: ours (NewHandler, which takes the line's parts as
// they are, and adds the invocation's fields) or any other (which gets
// them as a record): the route and status, the duration, the error, in
// that order.
func TestSummaryLineWithAnyHandler(t *testing.T) {
	const own = `"ERROR","msg":"invocation failed","route":"GET /card","status":502,"duration_ms":1.5,"error":"the upstream failed"`
	for _, tc := range []struct {
		name string
		log  func(*bytes.Buffer) *slog.Logger
		want string
	}{
		{"NewHandler", func(b *bytes.Buffer) *slog.Logger { return slog.New(telemetry.NewHandler(slog.NewJSONHandler(b, nil))) },
			own + `,"function":"card","cold_start":true,"apigw_request_id":"api-1"}`},
		{"another handler", func(b *bytes.Buffer) *slog.Logger { return slog.New(slog.NewJSONHandler(b, nil)) }, own + "}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
			f := telemetry.NewFunction("card", tc.log(&buf), nil, clk)
			h := telemetry.HTTP(f, func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
				clk.Advance(1500 * time.Microsecond)
				return events.APIGatewayV2HTTPResponse{StatusCode: 502}, errors.New("the upstream failed")
			})
			ev := events.APIGatewayV2HTTPRequest{RouteKey: "GET /card"}
			ev.RequestContext.RequestID = "api-1"
			_, err := h(context.Background(), ev)
			require.Error(t, err)
			line := strings.TrimSpace(buf.String())
			_, rest, _ := strings.Cut(line, `"level":`)
			assert.Equal(t, tc.want, rest)
		})
	}
}

// An answer's Date is the telemetry clock's time when its header is
// written (a document's: when its request came), unless its handler set
// one, or a nil one (none); an answer with nothing written gets
// net/http's own.
func TestMiddlewareDatesAnswers(t *testing.T) {
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 900_000_000, time.UTC))
	f := telemetry.NewFunction("local", telemetry.NewLogger(io.Discard, slog.LevelInfo), nil, clk)
	srv := httptest.NewServer(telemetry.Middleware(f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc":
			clk.Advance(200 * time.Millisecond) // the next second, as the document is written
		case "/slow":
			clk.Advance(90 * time.Second) // a blocking send
		case "/created":
			clk.Advance(time.Second)
			w.WriteHeader(http.StatusCreated)
			clk.Advance(time.Second)
		case "/own":
			w.Header().Set("Date", "Thu, 01 Jan 1970 00:00:00 GMT")
		case "/none":
			w.Header()["Date"] = nil
		case "/empty":
			return
		}
		_, _ = w.Write([]byte("{}"))
	}), "/doc"))
	defer srv.Close()
	for _, tc := range []struct {
		path string
		date []string
	}{
		{"/doc", []string{"Tue, 24 Nov 2026 12:00:00 GMT"}},
		{"/rpc", []string{"Tue, 24 Nov 2026 12:00:01 GMT"}},
		{"/rpc", []string{"Tue, 24 Nov 2026 12:00:01 GMT"}},
		{"/slow", []string{"Tue, 24 Nov 2026 12:01:31 GMT"}},
		{"/created", []string{"Tue, 24 Nov 2026 12:01:32 GMT"}},
		{"/own", []string{"Thu, 01 Jan 1970 00:00:00 GMT"}},
		{"/none", nil},
	} {
		resp, err := srv.Client().Get(srv.URL + tc.path)
		require.NoError(t, err, tc.path)
		resp.Body.Close()
		assert.Equal(t, tc.date, resp.Header.Values("Date"), tc.path)
	}
	resp, err := srv.Client().Get(srv.URL + "/empty")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Len(t, resp.Header.Values("Date"), 1, "net/http's own")
}
