package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
)

func TestOrDefaultsToTheSystemClock(t *testing.T) {
	assert.Equal(t, clock.System{}, clock.Or(nil))
	fake := clocktest.New(clocktest.Start(t))
	assert.Same(t, fake, clock.Or(fake))
}

func TestSleepFollowsTheClock(t *testing.T) {
	c := clocktest.New(clocktest.Start(t))
	done := make(chan error, 1)
	go func() { done <- clock.Sleep(context.Background(), c, time.Hour) }()
	require.Eventually(t, func() bool { return c.Timers() == 1 }, 5*time.Second, time.Millisecond)

	c.Advance(time.Hour - time.Second)
	select {
	case err := <-done:
		t.Fatalf("Sleep returned %v an hour less a second in", err)
	case <-time.After(20 * time.Millisecond):
	}
	c.Advance(time.Second)
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Sleep did not return once the clock passed its end")
	}
	assert.Zero(t, c.Timers())
}

func TestSleepEndsWithItsContext(t *testing.T) {
	c := clocktest.New(clocktest.Start(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- clock.Sleep(ctx, c, time.Hour) }()
	require.Eventually(t, func() bool { return c.Timers() == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, c.Timers(), "the timer is stopped")
}

func TestSleepUntil(t *testing.T) {
	start := clocktest.Start(t)
	c := clocktest.New(start)
	assert.NoError(t, clock.SleepUntil(context.Background(), c, start.Add(-time.Second)), "a past instant returns at once")
	assert.NoError(t, clock.Sleep(context.Background(), c, 0))
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, clock.Sleep(canceled, c, 0), context.Canceled)
}

func TestSystemClock(t *testing.T) {
	before := time.Now()
	now := clock.System{}.Now()
	assert.False(t, now.Before(before))
	require.NoError(t, clock.Sleep(context.Background(), clock.System{}, time.Millisecond))
	tm := clock.System{}.NewTimer(time.Hour)
	assert.True(t, tm.Stop())
}
