package push

import (
	"math/rand/v2"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Retry policy defaults (the number of attempts is the configuration's,
// config.DefaultPushMaxAttempts: the SQS queue's maxReceiveCount should
// match).
const (
	// DefaultBaseDelay is the backoff after the first failed attempt.
	DefaultBaseDelay = 5 * time.Second
	// DefaultMaxDelay caps the backoff. With the defaults the attempts
	// span roughly half an hour.
	DefaultMaxDelay = 15 * time.Minute
	// DefaultMaxRetryAfter caps how long a webhook's Retry-After can
	// postpone the next attempt.
	DefaultMaxRetryAfter = 15 * time.Minute
)

// RetryPolicy says whether and when to attempt a failed delivery again:
// exponential backoff with jitter, a Retry-After from the webhook honoured
// up to a cap, and a maximum number of attempts. Zero fields take the
// defaults above. It is a value; copies are independent.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included.
	MaxAttempts int
	// BaseDelay is the backoff after attempt 1; it doubles with every
	// further attempt up to MaxDelay.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps a Retry-After answer.
	MaxRetryAfter time.Duration
	// Rand returns a number in [0, 1) for the jitter; nil uses math/rand/v2.
	// Tests inject a fixed one.
	Rand func() float64
}

// Next returns the delay before the next attempt after attempt number
// attempt (1 for the first) ended with r, and false when there is no next
// attempt: r was delivered or permanent, or attempt reached MaxAttempts.
//
// The delay is "equal jitter" backoff: with d = min(MaxDelay,
// BaseDelay*2^(attempt-1)), a uniform value in [d/2, d). When the webhook
// sent Retry-After, the delay is at least that, capped at MaxRetryAfter.
func (p RetryPolicy) Next(attempt int, r Result) (time.Duration, bool) {
	if r.Outcome != Retryable || attempt >= p.MaxAttemptsOrDefault() {
		return 0, false
	}
	base, maxDelay := positive.Or(p.BaseDelay, DefaultBaseDelay), positive.Or(p.MaxDelay, DefaultMaxDelay)
	d := base
	for i := 1; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	d = min(d, maxDelay)
	random := p.Rand
	if random == nil {
		random = rand.Float64
	}
	delay := d/2 + time.Duration(random()*float64(d/2))
	if r.RetryAfter > 0 {
		delay = max(delay, min(r.RetryAfter, positive.Or(p.MaxRetryAfter, DefaultMaxRetryAfter)))
	}
	return delay, true
}

// MaxAttemptsOrDefault returns MaxAttempts, or config.DefaultPushMaxAttempts
// when it is not positive.
func (p RetryPolicy) MaxAttemptsOrDefault() int {
	return positive.Or(p.MaxAttempts, config.DefaultPushMaxAttempts)
}
