package storetest

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// logDelivery logs one attempt of (configID, version) made now.
func (s *suite) logDelivery(taskID string, a store.DeliveryAttempt) {
	s.t.Helper()
	if a.At.IsZero() {
		a.At = s.clock.Now()
	}
	require.NoError(s.t, s.store.LogDelivery(s.ctx, taskID, a))
}

func (s *suite) deliveries(taskID string) []store.Delivery {
	s.t.Helper()
	page, err := s.store.ListDeliveries(s.ctx, store.DeliveryQuery{TaskID: taskID, PageSize: 100})
	require.NoError(s.t, err)
	assert.Empty(s.t, page.NextCursor)
	return page.Deliveries
}

// deliveryNames are "<version>/<config>" of ds, in order.
func deliveryNames(ds []store.Delivery) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.EventID()[strings.LastIndexByte(d.EventID(), ':')+1:]+"/"+d.ConfigID)
	}
	return out
}

func assertTime(t *testing.T, want, got time.Time, what string) {
	t.Helper()
	assert.True(t, want.Equal(got), "%s: want %v, got %v", what, want, got)
}

func testDeliveryLog(t *testing.T, s *suite) {
	s.create("t1")
	first := s.clock.Now().Add(1500 * time.Millisecond)
	retry := store.DeliveryAttempt{ConfigID: "cfg-a", Version: 3, Attempt: 1, At: first, Error: "POST to hooks.example.com: connection refused",
		State: a2a.DeliveryRetrying, NextAttemptAt: first.Add(5 * time.Second)}
	s.logDelivery("t1", retry)
	s.clock.Advance(6 * time.Second)
	delivered := store.DeliveryAttempt{ConfigID: "cfg-a", Version: 3, Attempt: 2, StatusCode: 204, State: a2a.DeliveryDelivered}
	s.logDelivery("t1", delivered)
	job := []byte(`{"taskId":"t1","configId":"cfg-b","version":3}`)
	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg-b", Version: 3, Attempt: 1, StatusCode: 410, Error: "hooks.example.com answered 410 Gone",
		State: a2a.DeliveryFailed, DeadLettered: true, Job: job})
	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg-a", Version: 5, Attempt: 1, StatusCode: 200, State: a2a.DeliveryDelivered})

	ds := s.deliveries("t1")
	require.Equal(t, []string{"5/cfg-a", "3/cfg-a", "3/cfg-b"}, deliveryNames(ds), "newest version first, then by config id")
	a := ds[1]
	assert.Equal(t, "t1", a.TaskID)
	assert.Equal(t, "t1:3", a.EventID())
	assert.Equal(t, a2a.DeliveryDelivered, a.State, "a delivery takes its latest attempt's state")
	assert.False(t, a.DeadLettered)
	assert.True(t, a.NextAttemptAt.IsZero(), "delivered: nothing is due")
	assert.Nil(t, a.Job)
	assertTime(t, s.clock.Now(), a.UpdatedAt, "updated at")
	require.Len(t, a.Attempts, 2, "every attempt is kept, oldest first")
	got := a.Attempts[0]
	assert.Equal(t, retry.Attempt, got.Attempt)
	assertTime(t, retry.At, got.At, "attempt time")
	assert.Equal(t, retry.Error, got.Error)
	assert.Equal(t, 0, got.StatusCode)
	assert.Equal(t, a2a.DeliveryRetrying, got.State)
	assertTime(t, retry.NextAttemptAt, got.NextAttemptAt, "next attempt")
	assert.False(t, got.DeadLettered)
	assert.Equal(t, 204, a.Attempts[1].StatusCode)
	assert.Equal(t, 2, a.Attempts[1].Attempt)
	assert.Empty(t, a.Attempts[1].Error)

	b := ds[2]
	assert.Equal(t, a2a.DeliveryFailed, b.State)
	assert.True(t, b.DeadLettered)
	assert.Equal(t, job, b.Job, "a dead-lettered delivery keeps the job to redrive it with")
	require.Len(t, b.Attempts, 1)
	assert.True(t, b.Attempts[0].DeadLettered)
	assert.Equal(t, 410, b.Attempts[0].StatusCode)
	assert.Nil(t, b.Attempts[0].Job, "attempts do not repeat the job")

	s.create("t2")
	assert.Empty(t, s.deliveries("t2"), "deliveries belong to their task")
}

func testDeliveryPages(t *testing.T, s *suite) {
	s.create("t1")
	for v := int64(1); v <= 3; v++ {
		for _, c := range []string{"b", "a"} {
			s.logDelivery("t1", store.DeliveryAttempt{ConfigID: c, Version: v, Attempt: 1, State: a2a.DeliveryDelivered, StatusCode: 200})
		}
	}
	var names []string
	q := store.DeliveryQuery{TaskID: "t1", PageSize: 4}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3, "the pages end")
		page, err := s.store.ListDeliveries(s.ctx, q)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Deliveries), 4)
		names = append(names, deliveryNames(page.Deliveries)...)
		if page.NextCursor == "" {
			break
		}
		q.Cursor = page.NextCursor
	}
	assert.Equal(t, []string{"3/a", "3/b", "2/a", "2/b", "1/a", "1/b"}, names)

	for _, cursor := range []string{"garbage", "%%%", base64.RawURLEncoding.EncodeToString([]byte("x")), strings.Repeat("A", 5000)} {
		_, err := s.store.ListDeliveries(s.ctx, store.DeliveryQuery{TaskID: "t1", PageSize: 5, Cursor: cursor})
		var ae *a2a.Error
		require.ErrorAs(t, err, &ae, "cursor %.20q", cursor)
		assert.Equal(t, a2a.CodeInvalidParams, ae.Code)
	}
}

func testDeliveryAttemptsBounded(t *testing.T, s *suite) {
	s.create("t1")
	n := store.MaxDeliveryAttempts + 5
	for i := 1; i <= n; i++ {
		s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 2, Attempt: i, StatusCode: 503, State: a2a.DeliveryRetrying})
	}
	ds := s.deliveries("t1")
	require.Len(t, ds, 1)
	require.Len(t, ds[0].Attempts, store.MaxDeliveryAttempts, "the log keeps the latest attempts")
	assert.Equal(t, 6, ds[0].Attempts[0].Attempt)
	assert.Equal(t, n, ds[0].Attempts[store.MaxDeliveryAttempts-1].Attempt)
}

func testRedriveDelivery(t *testing.T, s *suite) {
	s.create("t1")
	job := []byte(`{"taskId":"t1","configId":"cfg","version":4}`)
	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 4, Attempt: 1, StatusCode: 404, State: a2a.DeliveryFailed, DeadLettered: true, Job: job})
	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 5, Attempt: 1, StatusCode: 503, State: a2a.DeliveryRetrying, NextAttemptAt: s.clock.Now().Add(time.Minute)})

	s.clock.Advance(time.Minute)
	d, err := s.store.RedriveDelivery(s.ctx, "t1", "cfg", 4)
	require.NoError(t, err)
	assert.Equal(t, a2a.DeliveryQueued, d.State)
	assert.False(t, d.DeadLettered)
	assert.Equal(t, 1, d.Redrives)
	assert.Equal(t, job, d.Job, "the redrive gets the job to send")
	assert.Equal(t, "t1:4", d.EventID())
	assertTime(t, s.clock.Now(), d.UpdatedAt, "updated at")
	require.Len(t, d.Attempts, 1)

	_, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 4)
	var se *store.DeliveryStateError
	require.ErrorAs(t, err, &se, "a queued delivery is not redriven twice")
	assert.Equal(t, a2a.DeliveryQueued, se.State)

	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 4, Attempt: 1, StatusCode: 200, State: a2a.DeliveryDelivered})
	ds := s.deliveries("t1")
	require.Equal(t, []string{"5/cfg", "4/cfg"}, deliveryNames(ds))
	assert.Equal(t, a2a.DeliveryDelivered, ds[1].State)
	assert.Equal(t, 1, ds[1].Redrives)
	assert.Len(t, ds[1].Attempts, 2, "the redrive's attempts follow the first run's")
	_, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 4)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, a2a.DeliveryDelivered, se.State)
	_, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 5)
	require.ErrorAs(t, err, &se, "a retrying delivery is not redriven")
	assert.Equal(t, a2a.DeliveryRetrying, se.State)

	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 4, Attempt: 1, StatusCode: 400, State: a2a.DeliveryFailed, DeadLettered: true})
	d, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 4)
	require.NoError(t, err, "a delivery that fails again is redriven again")
	assert.Equal(t, 2, d.Redrives)
	assert.Equal(t, job, d.Job, "with the job it kept")

	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "other", Version: 4, Attempt: 1, StatusCode: 400, State: a2a.DeliveryFailed, DeadLettered: true})
	_, err = s.store.RedriveDelivery(s.ctx, "t1", "other", 4)
	require.ErrorAs(t, err, &se, "a failed delivery without a job cannot be sent again")

	_, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 9)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.store.RedriveDelivery(s.ctx, "nope", "cfg", 4)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testDeliveriesLiveWithTheirTask(t *testing.T, s *suite) {
	s.create("t1")
	s.logDelivery("t1", store.DeliveryAttempt{ConfigID: "cfg", Version: 2, Attempt: 1, StatusCode: 200, State: a2a.DeliveryDelivered})
	s.clock.Advance(TaskTTL - time.Second)
	s.update(store.Update{TaskID: "t1", Status: s.status(a2a.TaskStateCompleted, nil)})
	s.clock.Advance(TaskTTL - time.Second)
	assert.Equal(t, []string{"2/cfg"}, deliveryNames(s.deliveries("t1")), "deliveries live as long as their task")

	s.clock.Advance(time.Second)
	_, err := s.store.ListDeliveries(s.ctx, store.DeliveryQuery{TaskID: "t1", PageSize: 10})
	assert.ErrorIs(t, err, store.ErrNotFound, "deliveries expire with their task")
	_, err = s.store.RedriveDelivery(s.ctx, "t1", "cfg", 2)
	assert.ErrorIs(t, err, store.ErrNotFound)

	err = s.store.LogDelivery(s.ctx, "nope", store.DeliveryAttempt{ConfigID: "cfg", Version: 2, Attempt: 1, State: a2a.DeliveryDelivered, At: s.clock.Now()})
	if err != nil {
		assert.ErrorIs(t, err, store.ErrNotFound)
	}
	_, err = s.store.ListDeliveries(s.ctx, store.DeliveryQuery{TaskID: "nope", PageSize: 10})
	assert.ErrorIs(t, err, store.ErrNotFound, "a delivery of an unknown task is never read")
}
