package functions_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/lambdaemu"
)

// A send function that dies in the middle of an inline step (killed, as
// Lambda ends an environment whose function timed out or crashed) leaves
// its task working. Once the task's lease lapses, the sweep function takes
// it over and runs its step again: the task completes within a lease and a
// sweep interval of the crash. A retried send with the same messageId
// returns that task and starts no second one.
func TestSendFunctionDiesMidStep(t *testing.T) {
	functions(t)
	f := newFixture(t)
	const lease = 2 * time.Second
	env := func(extra map[string]string) []string {
		e := map[string]string{"A2A_TASK_LEASE_SECONDS": "2"}
		for k, v := range f.env {
			e[k] = v
		}
		for k, v := range extra {
			e[k] = v
		}
		return environ(e)
	}
	event, err := os.ReadFile(filepath.Join("..", "events", "send", "jsonrpc-message-send.json"))
	require.NoError(t, err)
	ctx := context.Background()

	// A step of a minute: the function is killed long before it ends.
	send, err := lambdaemu.Start(filepath.Join(binDir, "send"), env(map[string]string{"A2A_DEMO_WORK_MS": "60000"}), lambdaemu.Options{})
	require.NoError(t, err)
	_, rep, err := send.Ready(20 * time.Second)
	require.NoError(t, err, "%s", rep.Body)
	go func() { _, _ = send.Emulator.Invoke(ctx, event) }()
	var taskID string
	require.Eventually(t, func() bool {
		page, err := f.store.ListTasks(ctx, store.ListQuery{Owner: config.DefaultTokenName, PageSize: 10})
		require.NoError(t, err)
		for _, rec := range page.Tasks {
			if rec.Task.Status.State == a2a.TaskStateWorking {
				taskID = rec.Task.ID
				return true
			}
		}
		return false
	}, 20*time.Second, 20*time.Millisecond, "the send function starts the step: %s", send.Stderr())
	send.Stop()
	killed := time.Now()

	sweep, err := lambdaemu.Start(filepath.Join(binDir, "sweep"), env(map[string]string{"A2A_DEMO_WORK_MS": "0"}), lambdaemu.Options{})
	require.NoError(t, err)
	defer sweep.Stop()
	_, rep, err = sweep.Ready(20 * time.Second)
	require.NoError(t, err, "%s", rep.Body)
	tick, err := os.ReadFile(filepath.Join("..", "events", "sweep-schedule.json"))
	require.NoError(t, err)

	// The schedule, faster: a tick every half second.
	var rec *store.TaskRecord
	require.Eventually(t, func() bool {
		rep, err := sweep.Emulator.Invoke(ctx, tick)
		require.NoError(t, err)
		require.Equal(t, lambdaemu.KindResponse, rep.Kind, "%s\n%s", rep.Body, sweep.Stderr())
		rec, err = f.store.GetTask(ctx, taskID, store.AllHistory)
		require.NoError(t, err)
		return rec.Task.Status.State.Terminal()
	}, 30*time.Second, 500*time.Millisecond)
	recovered := time.Since(killed)
	t.Logf("task %s recovered %s after the send function was killed (lease %s)", taskID, recovered.Round(time.Millisecond), lease)
	assert.Equal(t, a2a.TaskStateCompleted, rec.Task.Status.State, "%s", sweep.Stderr())
	require.NotEmpty(t, rec.Task.Artifacts)
	assert.Equal(t, "echo: hello from API Gateway", a2a.PartsText(rec.Task.Artifacts[0].Parts))
	assert.Equal(t, 1, rec.Takeovers)
	assert.Less(t, recovered, 2*lease+2*time.Second, "resumed within a lease and a sweep interval")

	// The client retries its send: same task, nothing new started.
	retry, err := lambdaemu.Start(filepath.Join(binDir, "send"), env(map[string]string{"A2A_DEMO_WORK_MS": "0"}), lambdaemu.Options{})
	require.NoError(t, err)
	defer retry.Stop()
	_, rep, err = retry.Ready(20 * time.Second)
	require.NoError(t, err, "%s", rep.Body)
	rep, err = retry.Emulator.Invoke(ctx, event)
	require.NoError(t, err)
	_, body := httpResponse(t, rep.Body)
	assert.Contains(t, body, `"id":"`+taskID+`"`)
	page, err := f.store.ListTasks(ctx, store.ListQuery{Owner: config.DefaultTokenName, PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, 1, page.Total, "a retried send starts no second task")
	after, err := f.store.GetTask(ctx, taskID, store.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, rec.Version, after.Version, "the retry changed nothing")
}
