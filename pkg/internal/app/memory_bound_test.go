package app_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// 1,000 tasks of 300 KB messages keep the local server within
// A2A_MEMORY_MAX_BYTES: the tasks that finished first make room, the
// newest stay readable. The heap, not only the store's count, stays within
// the bound (without it the 10,000 tasks of A2A_MEMORY_MAX_TASKS would keep
// all 300 MB). Each message is ten parts of 30 KB, which the store keeps
// inline (a larger part would be kept as a file); their 300 KB echo is
// kept as a file, in a store that keeps nothing.
func TestLocalServerStaysWithinItsByteBound(t *testing.T) {
	const bound = 32 << 20
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"A2A_MEMORY_MAX_BYTES": strconv.Itoa(bound), "A2A_PUSH_NOTIFICATIONS": "false"}[k]
	})
	require.NoError(t, err)
	srv, err := app.NewLocal(cfg, echo.Agent{}, app.LocalOptions{Auth: auth.Anonymous{}, Files: discardedFiles{}})
	require.NoError(t, err)
	defer srv.Close()
	store, ok := srv.Store.(*memory.Store)
	require.True(t, ok)

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc

	parts := strings.TrimSuffix(strings.Repeat(`{"kind":"text","text":"`+strings.Repeat("x", 30<<10)+`"},`, 10), ",")
	send := func(method, params string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		req.Host = "127.0.0.1:8000"
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.Handler.ServeHTTP(rec, req)
		return rec
	}
	var first, last string
	for i := range 1000 {
		rec := send("message/send", `{"message":{"role":"user","messageId":"big-`+strconv.Itoa(i)+`","parts":[`+parts+`]},"configuration":{"blocking":true,"historyLength":0}}`)
		require.Equal(t, http.StatusOK, rec.Code)
		body := rec.Body.String()
		require.Contains(t, body, `"state":"completed"`, "task %d: %.300s", i, body)
		id := between(body, `"id":"`, `"`)
		if i == 0 {
			first = id
		}
		last = id
		require.LessOrEqual(t, store.Bytes(), int64(bound), "after task %d", i)
	}

	runtime.GC()
	runtime.ReadMemStats(&ms)
	grown := int64(ms.HeapAlloc) - int64(before)
	t.Logf("heap grew %d MiB; the store counts %d MiB (bound %d MiB)", grown>>20, store.Bytes()>>20, bound>>20)
	assert.Less(t, grown, int64(bound+bound/4), "the heap stays within the bound (with a margin for the count's estimate)")

	assert.Contains(t, send("tasks/get", `{"id":"`+last+`","historyLength":0}`).Body.String(), `"state":"completed"`, "the newest task is kept")
	assert.Contains(t, send("tasks/get", `{"id":"`+first+`"}`).Body.String(), `"code":-32001`, "the first finished task made room")
	runtime.KeepAlive(srv)
}

// discardedFiles is a file store that keeps nothing it is given.
type discardedFiles struct{}

func (discardedFiles) Put(_ context.Context, _ string, body io.ReadSeeker, _ int64, _ objectstore.PutOptions) error {
	_, err := io.Copy(io.Discard, body)
	return err
}
func (discardedFiles) Get(context.Context, string) (io.ReadCloser, objectstore.Info, error) {
	return nil, objectstore.Info{}, objectstore.ErrNotFound
}
func (discardedFiles) Head(context.Context, string) (objectstore.Info, error) {
	return objectstore.Info{}, objectstore.ErrNotFound
}
func (discardedFiles) Delete(context.Context, string) error { return nil }
func (discardedFiles) PresignGet(_ context.Context, key string, _ time.Duration) (string, error) {
	return "https://files.invalid/" + key, nil
}
func (discardedFiles) PresignPut(_ context.Context, key string, _ int64, _ objectstore.PutOptions, _ time.Duration) (string, http.Header, error) {
	return "https://files.invalid/" + key, nil, nil
}

// between returns the text of s between the first before and the next
// after.
func between(s, before, after string) string {
	_, rest, ok := strings.Cut(s, before)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, after)
	return v
}
