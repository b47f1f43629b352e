package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// redriver records what the service hands it.
type redriver struct {
	got []store.Delivery
	err error
}

func (r *redriver) Redrive(_ context.Context, d store.Delivery) error {
	r.got = append(r.got, d)
	return r.err
}

// logAttempt logs one attempt of task's delivery of version to configID.
// It returns the attempt's time.
func logAttempt(t *testing.T, f *fixture, taskID, configID string, version int64, state string) time.Time {
	t.Helper()
	a := store.DeliveryAttempt{ConfigID: configID, Version: version, Attempt: 1, At: f.clock.Now(), State: state, StatusCode: 200}
	if state == a2a.DeliveryFailed {
		a.StatusCode, a.Error, a.DeadLettered, a.Job = 410, "hooks.example.com answered 410 Gone", true, []byte(`{"job":"`+configID+`"}`)
	}
	require.NoError(t, f.store.LogDelivery(context.Background(), taskID, a))
	return a.At
}

func TestListDeliveries(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	for v := int64(1); v <= 3; v++ {
		logAttempt(t, f, task.ID, "hook", v, a2a.DeliveryDelivered)
	}
	at := logAttempt(t, f, task.ID, "other", 3, a2a.DeliveryFailed)

	two := 2
	res, err := f.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{TaskID: task.ID, PageSize: &two})
	require.NoError(t, err)
	require.Len(t, res.Deliveries, 2)
	d := res.Deliveries[1]
	assert.Equal(t, task.ID+":3", d.EventID)
	assert.Equal(t, "other", d.ConfigID)
	assert.Equal(t, int64(3), d.TaskVersion)
	assert.Equal(t, "failed", d.State)
	assert.True(t, d.DeadLettered)
	require.Len(t, d.Attempts, 1)
	assert.Equal(t, a2a.DeliveryAttempt{Attempt: 1, At: a2a.FormatTime(at), StatusCode: 410, Error: "hooks.example.com answered 410 Gone",
		State: "failed", DeadLettered: true}, d.Attempts[0])
	require.NotEmpty(t, res.NextPageToken)

	_, err = f.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{TaskID: task.ID, PageToken: "bm90IGEgdG9rZW4"})
	requireCode(t, err, a2a.CodeInvalidParams, "pageToken")
	next, err := f.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{TaskID: task.ID, PageSize: &two, PageToken: res.NextPageToken})
	require.NoError(t, err)
	require.Len(t, next.Deliveries, 2)
	assert.Equal(t, task.ID+":1", next.Deliveries[1].EventID)
	assert.Empty(t, next.NextPageToken)

	_, err = f.svc.ListDeliveries(ctx, "bob", a2a.ListDeliveriesParams{TaskID: task.ID})
	requireCode(t, err, a2a.CodeTaskNotFound, task.ID)
	_, err = f.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{})
	requireCode(t, err, a2a.CodeInvalidParams, "params.taskId: is required")
	zero := 0
	_, err = f.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{TaskID: task.ID, PageSize: &zero})
	requireCode(t, err, a2a.CodeInvalidParams, "params.pageSize")

	off := newFixture(t, askThenAnswer) // push notifications off
	other := sent(t, off.svc, "alice", send(userMsg("m1", "hi"), true))
	_, err = off.svc.ListDeliveries(ctx, "alice", a2a.ListDeliveriesParams{TaskID: other.ID})
	requireCode(t, err, a2a.CodePushNotificationNotSupported, "")
}

func TestRedriveDeliveries(t *testing.T) {
	f := pushFixture(t, askThenAnswer)
	r := &redriver{}
	f.svc.WithRedriver(r)
	ctx := context.Background()
	task := sent(t, f.svc, "alice", send(userMsg("m1", "hi"), true))
	logAttempt(t, f, task.ID, "a", 2, a2a.DeliveryFailed)
	logAttempt(t, f, task.ID, "b", 2, a2a.DeliveryFailed)
	logAttempt(t, f, task.ID, "a", 3, a2a.DeliveryDelivered)
	logAttempt(t, f, task.ID, "a", 4, a2a.DeliveryFailed)

	_, err := f.svc.RedriveDeliveries(ctx, "bob", a2a.RedriveDeliveriesParams{TaskID: task.ID})
	requireCode(t, err, a2a.CodeTaskNotFound, task.ID)
	assert.Empty(t, r.got, "another caller's deliveries are not theirs to redrive")

	res, err := f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: task.ID + ":2", ConfigID: "b"})
	require.NoError(t, err)
	require.Len(t, res.Redriven, 1)
	assert.Equal(t, "queued", res.Redriven[0].State)
	assert.Equal(t, 1, res.Redriven[0].Redrives)
	require.Len(t, r.got, 1)
	assert.Equal(t, []byte(`{"job":"b"}`), r.got[0].Job, "the redriver gets the job to send")

	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: task.ID + ":2", ConfigID: "b"})
	requireCode(t, err, a2a.CodeInvalidParams, `to push config "b" is queued; only failed (dead-lettered) deliveries are redriven`)
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: task.ID + ":3"})
	requireCode(t, err, a2a.CodeInvalidParams, "is delivered")
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: task.ID + ":9"})
	requireCode(t, err, a2a.CodeTaskNotFound, "has no delivery of event "+task.ID+":9")
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: "other-task:2"})
	requireCode(t, err, a2a.CodeInvalidParams, "is an event of another task")
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID, EventID: "nonsense"})
	requireCode(t, err, a2a.CodeInvalidParams, "is not an event id")

	res, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID})
	require.NoError(t, err, "without an event, every failed delivery is redriven")
	var ids []string
	for _, d := range res.Redriven {
		ids = append(ids, d.EventID+"/"+d.ConfigID)
	}
	assert.Equal(t, []string{task.ID + ":4/a", task.ID + ":2/a"}, ids)
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID})
	requireCode(t, err, a2a.CodeInvalidParams, "has no failed delivery to redrive")

	r.err = errors.New("push queue is full")
	logAttempt(t, f, task.ID, "a", 5, a2a.DeliveryFailed)
	_, err = f.svc.RedriveDeliveries(ctx, "alice", a2a.RedriveDeliveriesParams{TaskID: task.ID})
	assert.ErrorContains(t, err, "push queue is full")
}
