package app_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/app/httpfn"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/agents/echo"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/store/dynamo"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/dynamocost"
)

// TestCostPerTask measures what the send function asks of DynamoDB for the
// calls of a task's life, through the real handler: the requests (exact,
// asserted) and the capacity units DynamoDB would charge (estimated from
// the items' real sizes, see pkg/testkit/dynamocost). Run it with -v to print
// the table of docs/costs.md's "Cost per task".
func TestCostPerTask(t *testing.T) {
	t.Run("per call", costPerCall)
	t.Run("per task", costPerTask)
}

// costPerCall measures the send function's calls, one at a time.
func costPerCall(t *testing.T) {
	ctx := context.Background()
	env := lambdaEnv(t)
	cfg, err := config.Load(getenv(env))
	require.NoError(t, err)
	storeOf(t, env) // creates the table
	meter, err := dynamocost.New(ctx, awstest.DynamoDB(t), cfg.TaskStore.Table)
	require.NoError(t, err)
	var (
		mu       sync.Mutex
		reported float64 // what DynamoDB (here moto) reported to the usage hook
	)
	ts, err := dynamo.New(meter, dynamo.Options{Table: cfg.TaskStore.Table, OnUsage: func(u dynamo.Usage) {
		mu.Lock()
		defer mu.Unlock()
		reported += u.Units
	}})
	require.NoError(t, err)
	h, err := httpfn.NewHandler(cfg, echo.Agent{}, ts, httpfn.Options{Routes: httpapi.RoutesRPC})
	require.NoError(t, err)
	send := boot.LambdaHTTP(h, nil)

	rpc := func(method, params string) events.APIGatewayV2HTTPResponse {
		ev := loadEvent(t, "send/jsonrpc-tasks-get.json")
		ev.Body = fmt.Sprintf(`{"jsonrpc":"2.0","id":"cost","method":%q,"params":%s}`, method, params)
		resp, err := send(ctx, ev)
		require.NoError(t, err)
		require.Equal(t, 200, resp.StatusCode)
		require.NotContains(t, resp.Body, `"error"`)
		return resp
	}
	sendParams := func(id string, blocking bool) string {
		return fmt.Sprintf(`{"message":{"role":"user","messageId":%q,"parts":[{"kind":"text","text":"What is the weather in Lisbon tomorrow?"}]},"configuration":{"blocking":%t}}`, id, blocking)
	}

	// A task with 10 messages: the first, and 9 progress messages.
	createTask(t, ts, "ten-messages", a2a.TaskStateSubmitted)
	for i := range 9 {
		_, err := ts.UpdateTask(ctx, store.Update{TaskID: "ten-messages", Status: &a2a.TaskStatus{
			State: a2a.TaskStateWorking, Timestamp: a2a.FormatTime(time.Now()),
			Message: &a2a.Message{Role: a2a.RoleAgent, MessageID: fmt.Sprintf("progress-%d", i), TaskID: "ten-messages", ContextID: "ctx-events",
				Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("Step %d of 9: looked up the forecast sources and merged their answers.", i+1))}},
		}})
		require.NoError(t, err)
	}
	createTask(t, ts, "to-cancel", a2a.TaskStateWorking)
	// A long conversation: ctx-events holds 100 tasks: what a send into it reads must not grow with them.
	for i := range 98 {
		createTask(t, ts, fmt.Sprint("earlier-", i), a2a.TaskStateSubmitted)
	}
	inContext := `{"message":{"role":"user","messageId":"cost-3","contextId":"ctx-events","parts":[{"kind":"text","text":"And the day after?"}]},"configuration":{"blocking":true}}`

	var rows []string
	// The goals of a task's cost (write and read units at most, index
	// writes included), as measured below.
	for _, tc := range []struct {
		name              string
		do                func()
		ops               string
		maxWrite, maxRead float64
	}{
		{"non-blocking message/send, inline mode (task created, marked awaiting execution; the answer is the task as created)", func() { rpc("message/send", sendParams("cost-1", false)) },
			"1×PutItem, 1×UpdateItem", 8, 0},
		{"tasks/get of a task with 10 messages (all history, artifacts)", func() { rpc("tasks/get", `{"id":"ten-messages"}`) },
			"1×Query", 0, 1},
		{"tasks/cancel of a working task", func() { rpc("tasks/cancel", `{"id":"to-cancel"}`) },
			"2×Query, 1×UpdateItem", 5, 2},
		{"full lifecycle: blocking message/send, one artifact, completed", func() { rpc("message/send", sendParams("cost-2", true)) },
			"1×PutItem", 4, 0},
		{"blocking message/send in a context of 100 tasks", func() { rpc("message/send", inContext) },
			"1×GetItem, 1×PutItem, 1×Query", 4, 2.5},
	} {
		meter.Reset()
		mu.Lock()
		reported = 0
		mu.Unlock()
		tc.do()
		c := meter.Counts()
		assert.Equal(t, tc.ops, c.Ops(), tc.name)
		if tc.maxRead > 0 {
			assert.Positive(t, c.Read, tc.name)
		}
		assert.LessOrEqual(t, c.Write, tc.maxWrite, tc.name)
		assert.LessOrEqual(t, c.Read, tc.maxRead, tc.name)
		mu.Lock()
		row := fmt.Sprintf("| %s | %d (%s) | %.1f | %.0f (%.0f index) | %.1f |", tc.name, c.Total(), c.Ops(), c.Read, c.Write, c.IndexWrite, reported)
		mu.Unlock()
		rows = append(rows, row)
	}
	t.Logf("\n| call | DynamoDB requests | read units (est.) | write units (est.) | units moto reported |\n|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}
