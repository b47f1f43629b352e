package clocktest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
)

func TestTimersFireWhenTheClockReachesThem(t *testing.T) {
	start := clocktest.Start(t)
	c := clocktest.New(start)
	late := c.NewTimer(2 * time.Second)
	early := c.NewTimer(time.Second)
	stopped := c.NewTimer(time.Second)
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop(), "a second Stop stops nothing")
	assert.Equal(t, 2, c.Timers())

	c.Advance(999 * time.Millisecond)
	assert.Empty(t, early.C())
	c.Advance(time.Millisecond)
	require.Len(t, early.C(), 1)
	assert.Equal(t, start.Add(time.Second), <-early.C())
	assert.False(t, early.Stop(), "a fired timer cannot be stopped")
	assert.Empty(t, late.C())
	assert.Empty(t, stopped.C())

	c.Set(start.Add(time.Minute))
	require.Len(t, late.C(), 1)
	assert.Equal(t, start.Add(time.Minute), <-late.C())
	assert.Zero(t, c.Timers())
}

func TestATimerOfNoDurationFiresAtOnce(t *testing.T) {
	c := clocktest.New(clocktest.Start(t))
	assert.Len(t, c.NewTimer(0).C(), 1)
	assert.Len(t, c.NewTimer(-time.Second).C(), 1)
	assert.Zero(t, c.Timers())
}

func TestWithTickMovesOnEveryReading(t *testing.T) {
	start := clocktest.Start(t)
	c := clocktest.New(start, clocktest.WithTick(time.Millisecond))
	tm := c.NewTimer(2 * time.Millisecond)
	assert.Equal(t, start.Add(time.Millisecond), c.Now())
	assert.Empty(t, tm.C())
	assert.Equal(t, start.Add(2*time.Millisecond), c.Now())
	assert.Len(t, tm.C(), 1)
}

func TestStartIsFixedOrChosen(t *testing.T) {
	t.Setenv(clocktest.EnvStart, "")
	assert.Equal(t, clocktest.DefaultStart(), clocktest.Start(t))
	t.Setenv(clocktest.EnvStart, "2031-12-31T23:59:30Z")
	assert.Equal(t, time.Date(2031, 12, 31, 23, 59, 30, 0, time.UTC), clocktest.Start(t).UTC())
}
