package app_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/memory"
)

// memoryBacklog is the memory store as a Lambda function's store (nothing
// here defers work).
type memoryBacklog struct{ *memory.Store }

func (memoryBacklog) Defer(context.Context, string, []byte) error { return nil }

// A task whose history is larger than a Lambda response can carry (6 MB)
// is answered, through the deployed adapter, with a typed error that says
// how to ask for less, in each binding's shape; asking for less works. No
// 500, no failed invocation.
func TestOversizedResponse(t *testing.T) {
	env := map[string]string{"A2A_BEARER_TOKEN": "test-token-16-ch", "A2A_AGENT": "echo", "A2A_EXECUTION": "inline"}
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	ag, err := builtin.Registry().New("echo", getenv(env))
	require.NoError(t, err)
	ts := memory.New(memory.Options{})
	ctx := context.Background()
	// About 370 KB per message (under the store's item limit) of text
	// that gzip cannot shrink much: 20 of them are above 6 MB, compressed
	// or not.
	rng := rand.New(rand.NewPCG(1, 2))
	letters := make([]byte, 370_000)
	for i := range letters {
		letters[i] = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rng.IntN(63)]
	}
	big := string(letters)
	msg := func(i int) a2a.Message {
		return a2a.Message{Role: a2a.RoleUser, MessageID: fmt.Sprintf("m-%d", i), TaskID: "t-big", ContextID: "c-big", Parts: []a2a.Part{a2a.TextPart(big)}}
	}
	task := a2a.Task{ID: "t-big", ContextID: "c-big", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(time.Unix(1_700_000_000, 0))},
		History: []a2a.Message{msg(0)}}
	require.NoError(t, ts.CreateTask(ctx, store.NewTask{Owner: config.DefaultTokenName, Task: task}))
	for i := 1; i < 20; i++ { // 7.4 MB of history
		_, err := ts.UpdateTask(ctx, store.Update{TaskID: "t-big", Messages: []a2a.Message{msg(i)}})
		require.NoError(t, err)
	}

	fn := map[httpapi.Routes]boot.HTTPFunc{}
	for _, routes := range []httpapi.Routes{httpapi.RoutesRPC, httpapi.RoutesTasks} {
		h, err := httpfn.NewHandler(cfg, ag, memoryBacklog{ts}, httpfn.Options{Routes: routes})
		require.NoError(t, err)
		fn[routes] = boot.LambdaHTTP(h, nil)
	}
	event := func(method, route, path, query, body string) events.APIGatewayV2HTTPRequest {
		ev := events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: method + " " + route, RawPath: path, RawQueryString: query, Body: body,
			Headers: map[string]string{"authorization": "Bearer test-token-16-ch", "content-type": "application/json", "accept-encoding": "gzip"}}
		ev.RequestContext.HTTP.Method = method
		ev.RequestContext.DomainName = "api.example.com"
		return ev
	}

	t.Run("JSON-RPC", func(t *testing.T) {
		resp, err := fn[httpapi.RoutesRPC](ctx, event("POST", "/", "/", "", `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t-big"}}`))
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		var out struct {
			ID    int `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(resp.Body), &out), short(resp.Body))
		assert.Equal(t, 7, out.ID)
		assert.Equal(t, int(a2a.CodeInvalidParams), out.Error.Code)
		assert.Contains(t, out.Error.Message, "historyLength")

		resp, err = fn[httpapi.RoutesRPC](ctx, event("POST", "/", "/", "", `{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"id":"t-big","historyLength":2}}`))
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.LessOrEqual(t, len(resp.Body), boot.MaxResponseBytes)
		var small struct {
			Result struct {
				History []json.RawMessage `json:"history"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(plain(t, resp), &small))
		assert.Len(t, small.Result.History, 2, "asking for less works")
	})
	t.Run("REST", func(t *testing.T) {
		resp, err := fn[httpapi.RoutesTasks](ctx, event("GET", "/rest/{proxy+}", "/rest/v1/tasks/t-big", "", ""))
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, short(resp.Body))
		assert.Contains(t, resp.Body, "historyLength", short(resp.Body))

		resp, err = fn[httpapi.RoutesTasks](ctx, event("GET", "/rest/{proxy+}", "/rest/v1/tasks/t-big", "historyLength=1", ""))
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.LessOrEqual(t, boot.ResponseSize([]byte(resp.Body)), boot.MaxResponseBytes)
	})
}

// short is the start of a long body, for a failure message.
func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// plain is a response's body, decoded from base64 and gzip when it is.
func plain(t *testing.T, resp events.APIGatewayV2HTTPResponse) []byte {
	t.Helper()
	if !resp.IsBase64Encoded {
		return []byte(resp.Body)
	}
	b, err := base64.StdEncoding.DecodeString(resp.Body)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}
