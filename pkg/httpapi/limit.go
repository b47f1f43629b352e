package httpapi

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/auth"
	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/oap"
)

// RateLimit is each caller's request budget: a token bucket of Burst
// requests, refilled at PerSecond requests a second. A caller is the
// authenticated identity (a bearer token's name, a JWT's subject), or,
// for a request without valid credentials, its source address (an IPv6
// address by its /64, which one host holds whole). Requests beyond it are
// answered 429 with Retry-After before the request is decoded (a JSON-RPC
// body is read, size-bounded, only to echo the request's id), so a flood
// costs no agent step, no store access and no other caller's budget.
// The buckets live in the process: in Lambda, each execution environment
// keeps its own.
type RateLimit struct {
	// PerSecond is the refill rate; 0 turns the limit off.
	PerSecond int
	// Burst is the bucket's size; 0 means twice PerSecond.
	Burst int
	// MaxCallers bounds the buckets kept; 0 means DefaultMaxCallers. Full
	// buckets are dropped first (a caller whose bucket refilled is
	// indistinguishable from a new one); then any.
	MaxCallers int
	// Clock tells the time; nil means the system clock.
	Clock clock.Clock
}

// DefaultMaxCallers is RateLimit.MaxCallers unset: some 1 MB of buckets.
const DefaultMaxCallers = 10_000

// errRateLimited is the error of a request beyond its caller's budget.
func errRateLimited(wait time.Duration) *a2a.Error {
	return a2a.Errorf(a2a.CodeRateLimited, "too many requests from this caller: retry after %d s (Retry-After)", retryAfter(wait))
}

// retryAfter is wait in whole seconds, rounded up, at least 1.
func retryAfter(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}

// limiter keeps the callers' buckets.
type limiter struct {
	rate   float64 // tokens a second
	burst  float64
	max    int
	clock  clock.Clock
	mu     sync.Mutex
	bucket map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// newLimiter returns the limiter of l, nil when l is off.
func newLimiter(l RateLimit) *limiter {
	if l.PerSecond <= 0 {
		return nil
	}
	burst := l.Burst
	if burst <= 0 {
		burst = 2 * l.PerSecond
	}
	n := l.MaxCallers
	if n <= 0 {
		n = DefaultMaxCallers
	}
	return &limiter{rate: float64(l.PerSecond), burst: float64(burst), max: n, clock: clock.Or(l.Clock), bucket: map[string]*bucket{}}
}

// take spends one request of key's budget. When there is none, it returns
// false and how long until there is.
func (l *limiter) take(key string) (bool, time.Duration) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket[key]
	if b == nil {
		if len(l.bucket) >= l.max {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.bucket[key] = b
	}
	b.tokens = l.refilled(b, now)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}

func (l *limiter) refilled(b *bucket, now time.Time) float64 {
	if d := now.Sub(b.at); d > 0 {
		return math.Min(l.burst, b.tokens+d.Seconds()*l.rate)
	}
	return b.tokens
}

// evict makes room for a bucket: it drops the full ones, or, when none is
// full, one at random (Go's map order), which can only give that caller
// a fresh burst.
func (l *limiter) evict(now time.Time) {
	for k, b := range l.bucket {
		if l.refilled(b, now) >= l.burst {
			delete(l.bucket, k)
		}
	}
	for k := range l.bucket {
		if len(l.bucket) < l.max {
			return
		}
		delete(l.bucket, k)
	}
}

// callerKey names the budget of a request: its caller when authenticated,
// else its source address.
func callerKey(r *http.Request, id auth.Identity, authenticated bool) string {
	if authenticated {
		return "caller:" + id.Owner
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr // Lambda's adapter sets the source IP alone
	}
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		host = ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return "addr:" + host
}

// admit spends one request of the caller's budget; when there is none it
// answers 429 in the binding's shape and returns false.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, b binding, wr *wire, id auth.Identity, authenticated bool) bool {
	if h.limit == nil {
		return true
	}
	ok, wait := h.limit.take(callerKey(r, id, authenticated))
	if ok {
		return true
	}
	e := h.protocolError(r.Context(), errRateLimited(wait), "rate limit") // counted, as every error
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter(wait)))
	h.log.DebugContext(r.Context(), "request over its caller's rate limit", "authenticated", authenticated, "retry_after_s", retryAfter(wait))
	switch b {
	case bindingJSONRPC:
		// With the request's id; HTTP 429 tells any client to wait.
		id, ok := h.requestID(w, r)
		if !ok {
			return false
		}
		w.Header()["Content-Type"] = []string{"application/json"}
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(jsonrpc.EncodeError(id, wr.rpcError(e)))
	case bindingOAP:
		corr, _ := oap.ReadCorrelation(r.Header)
		corr.Echo(w.Header())
		h.oapError(w, r, wr, http.StatusTooManyRequests, nil, corr, e)
	default:
		writeRESTError(w, e)
	}
	return false
}
