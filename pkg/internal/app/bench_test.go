package app_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
)

// The in-process benchmarks of the hot paths: the full http.Handler of the
// local server (memory store, goroutine runner, echo agent), called without
// a network. `make bench` runs them; docs/measured.md quotes the figures.

func newEchoServer(b *testing.B) http.Handler {
	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(b, err)
	srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: auth.NewBearer(map[string]string{"bench": "t"})})
	require.NoError(b, err)
	b.Cleanup(srv.Close)
	return srv.Handler
}

var seq atomic.Int64

func sendBody(blocking bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-%d","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":%t}}}`,
		seq.Add(1), blocking)
}

// sendBody10 is sendBody in A2A 1.0 (SendMessage waits unless
// returnImmediately).
func sendBody10(blocking bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m-%d","parts":[{"text":"hello"}]},"configuration":{"returnImmediately":%t}}}`,
		seq.Add(1), !blocking)
}

// sentTaskID is the id of the task a send answered with (the first "id"
// member of its result, a UUID).
func sentTaskID(w *httptest.ResponseRecorder) string {
	body := w.Body.String()
	return body[strings.Index(body, `"id":"`)+6:][:36]
}

func getBody(taskID string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":%q}}`, taskID)
}

func getBody10(taskID string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":%q}}`, taskID)
}

func serve(b *testing.B, h http.Handler, method, path, body string, headers ...string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Authorization", "Bearer t")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
	return w
}

func BenchmarkSendNonBlocking(b *testing.B) {
	h := newEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", sendBody(false))
	}
}

func BenchmarkSendBlocking(b *testing.B) {
	h := newEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", sendBody(true))
	}
}

func BenchmarkGetTask(b *testing.B) {
	h := newEchoServer(b)
	get := getBody(sentTaskID(serve(b, h, "POST", "/", sendBody(true))))
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", get)
	}
}

// The same paths in A2A 1.0: they should cost about what the 0.3 ones do.

var v10 = []string{"A2A-Version", "1.0"}

func BenchmarkSendNonBlocking10(b *testing.B) {
	h := newEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", sendBody10(false), v10...)
	}
}

func BenchmarkSendBlocking10(b *testing.B) {
	h := newEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", sendBody10(true), v10...)
	}
}

func BenchmarkGetTask10(b *testing.B) {
	h := newEchoServer(b)
	get := getBody10(sentTaskID(serve(b, h, "POST", "/", sendBody10(true), v10...)))
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "POST", "/", get, v10...)
	}
}

func BenchmarkGetTaskREST10(b *testing.B) {
	h := newEchoServer(b)
	id := sentTaskID(serve(b, h, "POST", "/", sendBody10(true), v10...))
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "GET", "/rest/tasks/"+id, "", v10...)
	}
}

func BenchmarkAgentCard(b *testing.B) {
	h := newEchoServer(b)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, h, "GET", "/.well-known/agent-card.json", "")
	}
}

// BenchmarkNewLocal is the local server's construction on the default
// settings (echo agent, bearer tokens, push on): the part of its start-up
// after the configuration is read and before it listens.
func BenchmarkNewLocal(b *testing.B) {
	cfg, err := config.Load(func(string) string { return "" })
	require.NoError(b, err)
	authn := auth.NewBearer(map[string]string{"bench": "t"})
	b.ReportAllocs()
	for b.Loop() {
		srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: authn})
		if err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}
