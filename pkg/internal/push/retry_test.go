package push

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

func TestRetryPolicyBackoff(t *testing.T) {
	retry := Result{Outcome: Retryable}
	low := RetryPolicy{MaxAttempts: 6, BaseDelay: time.Second, MaxDelay: 10 * time.Second, Rand: func() float64 { return 0 }}
	high := low
	high.Rand = func() float64 { return 0.999999 }

	tests := []struct {
		attempt   int
		low, high time.Duration
	}{
		{1, 500 * time.Millisecond, time.Second},
		{2, time.Second, 2 * time.Second},
		{3, 2 * time.Second, 4 * time.Second},
		{4, 4 * time.Second, 8 * time.Second},
		{5, 5 * time.Second, 10 * time.Second}, // capped at MaxDelay
	}
	for _, tt := range tests {
		d, ok := low.Next(tt.attempt, retry)
		assert.True(t, ok)
		assert.Equal(t, tt.low, d, "attempt %d, lowest jitter", tt.attempt)
		d, ok = high.Next(tt.attempt, retry)
		assert.True(t, ok)
		assert.InDelta(t, float64(tt.high), float64(d), float64(time.Millisecond), "attempt %d, highest jitter", tt.attempt)
	}
	_, ok := low.Next(6, retry)
	assert.False(t, ok, "the sixth attempt was the last")
}

func TestRetryPolicyStopsOnFinalOutcomes(t *testing.T) {
	p := RetryPolicy{}
	for _, o := range []Outcome{Delivered, Permanent} {
		d, ok := p.Next(1, Result{Outcome: o})
		assert.False(t, ok, o.String())
		assert.Zero(t, d)
	}
}

func TestRetryPolicyRetryAfter(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxRetryAfter: time.Minute, Rand: func() float64 { return 0 }}
	d, _ := p.Next(1, Result{Outcome: Retryable, RetryAfter: 30 * time.Second})
	assert.Equal(t, 30*time.Second, d, "Retry-After longer than the backoff wins")
	d, _ = p.Next(1, Result{Outcome: Retryable, RetryAfter: time.Hour})
	assert.Equal(t, time.Minute, d, "Retry-After is capped")
	d, _ = p.Next(1, Result{Outcome: Retryable, RetryAfter: time.Millisecond})
	assert.Equal(t, 500*time.Millisecond, d, "a short Retry-After does not shorten the backoff")
}

func TestRetryPolicyDefaults(t *testing.T) {
	p := RetryPolicy{}
	assert.Equal(t, config.DefaultPushMaxAttempts, p.MaxAttemptsOrDefault())
	var total time.Duration
	for attempt := 1; ; attempt++ {
		d, ok := p.Next(attempt, Result{Outcome: Retryable})
		if !ok {
			assert.Equal(t, config.DefaultPushMaxAttempts, attempt)
			break
		}
		assert.GreaterOrEqual(t, d, DefaultBaseDelay/2)
		assert.Less(t, d, DefaultMaxDelay)
		total += d
	}
	assert.Greater(t, total, 10*time.Minute)
	assert.Less(t, total, time.Hour)
	// Huge attempt numbers do not overflow.
	d, ok := RetryPolicy{MaxAttempts: 1000}.Next(500, Result{Outcome: Retryable})
	assert.True(t, ok)
	assert.LessOrEqual(t, d, DefaultMaxDelay)
	assert.GreaterOrEqual(t, d, DefaultMaxDelay/2)
}

func TestDecide(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 2, BaseDelay: time.Second, Rand: func() float64 { return 0 }}
	n := Notification{Config: a2a.PushNotificationConfig{ID: "cfg-1", URL: "https://example.com/h", Token: "tok"}, TaskID: "t", TaskVersion: 4}
	at := fixedNow()
	fail := Result{Outcome: Retryable, StatusCode: 503, Err: &StatusError{Host: "example.com", Code: 503}, At: at, Duration: time.Second}

	d := p.Decide(n, 1, fail)
	assert.True(t, d.Retry)
	assert.Equal(t, 500*time.Millisecond, d.Delay)
	assert.Equal(t, DeliveryStatus{
		EventID: "t:4", TaskID: "t", ConfigID: "cfg-1", State: StateRetrying, Attempts: 1,
		LastStatusCode: 503, LastError: "webhook example.com answered 503 Service Unavailable",
		LastAttemptAt: at, NextAttemptAt: at.Add(1500 * time.Millisecond),
	}, d.Status)

	d = p.Decide(n, 2, fail)
	assert.False(t, d.Retry)
	assert.Equal(t, StateFailed, d.Status.State)
	assert.Equal(t, 2, d.Status.Attempts)
	assert.True(t, d.Status.NextAttemptAt.IsZero())

	d = p.Decide(n, 2, Result{Outcome: Delivered, StatusCode: 204, At: at, Duration: time.Second})
	assert.False(t, d.Retry)
	assert.Equal(t, StateDelivered, d.Status.State)
	assert.Equal(t, at.Add(time.Second), d.Status.DeliveredAt)
	assert.Empty(t, d.Status.LastError)

	d = p.Decide(n, 1, Result{Outcome: Permanent, StatusCode: 404, Err: &StatusError{Host: "example.com", Code: 404}, At: at})
	assert.False(t, d.Retry)
	assert.Equal(t, StateFailed, d.Status.State)
}
