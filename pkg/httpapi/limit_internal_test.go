package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock/clocktest"
)

// The buckets kept are bounded: at the bound, a new caller's bucket takes
// the place of a full one (a caller whose bucket refilled is no different
// from a new one), or, when none is full, of any.
func TestLimiterBoundsItsCallers(t *testing.T) {
	clk := clocktest.New(clocktest.Start(t))
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 2, MaxCallers: 3, Clock: clk})
	spend := func(key string) {
		for {
			if ok, _ := l.take(key); !ok {
				return
			}
		}
	}
	spend("a")
	clk.Advance(5 * time.Second) // a is full again
	spend("b")
	spend("c")
	spend("d") // the bound: a, full, makes room
	assert.ElementsMatch(t, []string{"b", "c", "d"}, keysOf(l.bucket))
	for _, k := range []string{"e", "f", "g", "h"} {
		spend(k) // none full: any makes room
		assert.Len(t, l.bucket, 3)
		assert.Contains(t, l.bucket, k)
	}
	ok, wait := l.take("h")
	assert.False(t, ok)
	assert.Equal(t, time.Second, wait, "an empty bucket of 1 a second has the next request in a second")
	assert.Nil(t, newLimiter(RateLimit{}), "no rate, no limiter")
	assert.Equal(t, 20.0, newLimiter(RateLimit{PerSecond: 10}).burst, "the burst defaults to two seconds' worth")
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
