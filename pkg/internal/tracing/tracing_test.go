package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

const header = "Root=1-6740d2a0-3f1e2d3c4b5a69788796a5b1;Parent=53995c3f42cd8ad8;Sampled=1"

func invocation(t *tracing.Tracer, h string) context.Context {
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", h) //nolint:staticcheck // aws-lambda-go's key
	return tracing.NewContext(ctx, t)
}

// Spans join the invocation's trace: the first under the header's parent,
// nested ones under their enclosing span; times come from the clock.
func TestSpansJoinTheInvocationsTrace(t *testing.T) {
	mem := &tracing.Memory{}
	clk := clocktest.New(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	ctx := invocation(tracing.New(mem, clk), header)
	ctx1, step := tracing.Start(ctx, "agent step", "")
	_, call := tracing.Start(ctx1, "DynamoDB", "aws")
	call.SetOperation("GetItem")
	clk.Advance(30 * time.Millisecond)
	call.End(nil)
	step.End(errors.New("boom"))
	spans := mem.Spans()
	require.Len(t, spans, 2)
	call0, step0 := spans[0], spans[1]
	assert.Equal(t, "1-6740d2a0-3f1e2d3c4b5a69788796a5b1", step0.TraceID)
	assert.Equal(t, step0.TraceID, call0.TraceID)
	assert.Equal(t, "53995c3f42cd8ad8", step0.ParentID)
	assert.Equal(t, step0.ID, call0.ParentID)
	assert.Len(t, step0.ID, 16)
	assert.Equal(t, 30*time.Millisecond, call0.End.Sub(call0.Start))
	assert.Equal(t, "boom", step0.Error)

	doc := tracing.Subsegment(call0)
	assert.Equal(t, "subsegment", doc["type"])
	assert.Equal(t, "aws", doc["namespace"])
	assert.Equal(t, map[string]any{"operation": "GetItem"}, doc["aws"])
	assert.InDelta(t, 0.03, doc["end_time"].(float64)-doc["start_time"].(float64), 1e-6)
	assert.Equal(t, true, tracing.Subsegment(step0)["fault"])
}

// Off costs nothing: no tracer, an unsampled or absent trace.
func TestNoSpansWhenOff(t *testing.T) {
	mem := &tracing.Memory{}
	for _, ctx := range []context.Context{
		invocation(nil, header),
		invocation(tracing.New(mem, nil), strings.Replace(header, "Sampled=1", "Sampled=0", 1)),
		invocation(tracing.New(mem, nil), ""),
	} {
		got, span := tracing.Start(ctx, "x", "")
		assert.Nil(t, span)
		assert.Equal(t, ctx, got)
		span.End(nil)
		span.SetOperation("x")
	}
	assert.Empty(t, mem.Spans())
	assert.Nil(t, tracing.New(nil, nil))
	ctx := invocation(nil, header)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, s := tracing.Start(ctx, "x", ""); s.End(nil) }))
}

// A webhook POST is a span named by the host, with method and status, and
// never the URL's path (it may hold a secret).
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer srv.Close()
	mem := &tracing.Memory{}
	client := &http.Client{Transport: tracing.Transport(http.DefaultTransport)}
	req, err := http.NewRequestWithContext(invocation(tracing.New(mem, nil), header), http.MethodPost, srv.URL+"/hook/secret-path", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	spans := mem.Spans()
	require.Len(t, spans, 1)
	assert.Equal(t, "127.0.0.1", spans[0].Name)
	assert.Equal(t, "remote", spans[0].Namespace)
	assert.Equal(t, http.MethodPost, spans[0].Operation)
	assert.Equal(t, http.StatusBadGateway, spans[0].Status)
	assert.Equal(t, "HTTP 502", spans[0].Error)
	b, _ := json.Marshal(tracing.Subsegment(spans[0]))
	assert.NotContains(t, string(b), "secret-path")
}

// The X-Ray daemon exporter sends the header line and the subsegment in
// one UDP datagram.
func TestXRayDaemon(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer pc.Close()
	d, err := tracing.NewXRayDaemon("udp:" + pc.LocalAddr().String() + " tcp:127.0.0.1:2000")
	require.NoError(t, err)
	d.Export(tracing.Span{TraceID: "1-a-b", ID: "0123456789abcdef", ParentID: "fedcba9876543210", Name: "agent step"})
	buf := make([]byte, 4096)
	require.NoError(t, pc.SetReadDeadline(time.Now().Add(5*time.Second)))
	n, _, err := pc.ReadFrom(buf)
	require.NoError(t, err)
	head, body, ok := strings.Cut(string(buf[:n]), "\n")
	require.True(t, ok)
	assert.JSONEq(t, `{"format":"json","version":1}`, head)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &doc))
	assert.Equal(t, "1-a-b", doc["trace_id"])
	assert.Equal(t, "fedcba9876543210", doc["parent_id"])
}

// Header is what a task item or a queued job carries; WithHeader runs work
// under another trace than the invocation's (a stream record's task, a
// job's): its spans, and the header it hands on, are that trace's.
func TestWorkRunsUnderAnotherTrace(t *testing.T) {
	mem := &tracing.Memory{}
	ctx := invocation(tracing.New(mem, nil), header)
	assert.Equal(t, header, tracing.Header(ctx))
	assert.Empty(t, tracing.Header(context.Background()))
	assert.Empty(t, tracing.Header(invocation(nil, "Root=1-"+strings.Repeat("a", 300))), "too long to hand on")

	const task = "Root=1-6740d2a0-aaaaaaaaaaaaaaaaaaaaaaaa;Parent=1111222233334444;Sampled=1"
	job := tracing.WithHeader(ctx, task)
	assert.Equal(t, task, tracing.Header(job))
	assert.Equal(t, header, tracing.Header(tracing.WithHeader(ctx, "")), "no header keeps the invocation's")
	_, span := tracing.Start(job, "SQS", "aws")
	span.End(nil)
	require.Len(t, mem.Spans(), 1)
	assert.Equal(t, "1-6740d2a0-aaaaaaaaaaaaaaaaaaaaaaaa", mem.Spans()[0].TraceID)
	assert.Equal(t, "1111222233334444", mem.Spans()[0].ParentID)
}
