package service_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/engine"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/logfields"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/service"
	"github.com/a2a-lambda/a2a-lambda/pkg/metrics"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/emftest"
)

// The service counts what happens to tasks in the metrics of the request
// that made it happen, and names the task in the request's log fields.
func TestOperationsAreCounted(t *testing.T) {
	var buf bytes.Buffer
	f := newFixture(t, interrupting)
	sink := metrics.New(metrics.Config{Dimensions: map[string]string{"Service": "t"}, Out: &buf, Clock: f.clock})
	ctx := logfields.WithFields(metrics.NewContext(context.Background(), sink))

	task, id := ask(t, f, "alice", "question")
	_, err := f.svc.ReplyQuestion(ctx, "alice", a2a.QuestionReplyParams{RequestID: id, Answers: [][]string{{"red"}}})
	require.NoError(t, err)
	assert.Equal(t, task.ID, logfields.Get(ctx, logfields.FieldTaskID))
	assert.Equal(t, task.ContextID, logfields.Get(ctx, logfields.FieldContextID))

	expiring, expiringID := ask(t, f, "alice", "question")

	task, _ = ask(t, f, "alice", "permission")
	_, err = f.svc.CancelTask(ctx, "alice", a2a.TaskIDParams{ID: task.ID})
	require.NoError(t, err)

	_, err = f.svc.SendMessage(ctx, "alice", send(userMsg(service.NewID(), "question"), false))
	require.NoError(t, err)

	step, err := f.exec.Step(ctx, engine.Job{TaskID: task.ID})
	require.NoError(t, err)
	assert.Equal(t, engine.NextDone, step.Next, "a canceled task is not stepped")

	// The interrupt's TTL passes. The local runner follows the fake clock
	// and would expire the task itself, outside this request's metrics, as
	// soon as the clock moves: stop it, and play its timer here.
	f.runner.Close()
	f.clock.Advance(time.Hour + time.Second)
	res, err := f.exec.Expire(ctx, expiring.ID, expiringID)
	require.NoError(t, err)
	require.Equal(t, a2a.TaskStateFailed, res.State)
	_, err = f.exec.Expire(ctx, expiring.ID, expiringID)
	require.NoError(t, err, "a repeated expiry changes nothing, and is not counted")

	require.NoError(t, sink.Flush())
	docs := emftest.Documents(t, buf.Bytes())
	for _, d := range docs {
		assert.Equal(t, "test", d["Agent"])
	}
	got := emftest.Totals(docs)
	assert.Equal(t, map[string]float64{
		metrics.InterruptsAnswered: 1,
		metrics.InterruptsExpired:  1,
		metrics.TasksFailed:        1,
		metrics.TasksCanceled:      1,
		metrics.TasksCreated:       1,
	}, got)
}
