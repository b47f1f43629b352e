package awstest

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// OpCounter counts the calls an AWS SDK client makes, by operation: the
// X-Amz-Target header of the JSON protocols (DynamoDB, Step Functions, SQS)
// names it. A retry is not a call: a request whose amz-sdk-request header
// (which the SDK's clients send, and this module's on a retry) names an
// attempt after the first is not counted, so that counts do not follow the load of the
// machine (a stand-in that failed a request under load). Give a client its Client as the HTTP client:
//
//	c := OpCounter{}
//	sfn.NewFromConfig(cfg, func(o *sfn.Options) { o.HTTPClient = c.Client(nil) })
type OpCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// NewOpCounter returns an empty counter.
func NewOpCounter() *OpCounter { return &OpCounter{counts: map[string]int{}} }

// Client returns an HTTP client that sends every request through next
// (nil: http.DefaultTransport), and counts those that are not retries.
func (c *OpCounter) Client(next http.RoundTripper) *http.Client {
	if next == nil {
		next = http.DefaultTransport
	}
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		if retry(r.Header.Get("Amz-Sdk-Request")) {
			return next.RoundTrip(r)
		}
		op := r.Header.Get("X-Amz-Target")
		if i := strings.LastIndexByte(op, '.'); i >= 0 {
			op = op[i+1:]
		}
		c.mu.Lock()
		c.counts[op]++
		c.mu.Unlock()
		return next.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Count returns the calls of op (such as "StartExecution") since the last
// Reset.
func (c *OpCounter) Count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[op]
}

// Counts returns every operation's count since the last Reset.
func (c *OpCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Reset forgets the counts.
func (c *OpCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts = map[string]int{}
}

// retry reports whether an amz-sdk-request header ("attempt=2; max=3")
// names an attempt after the first.
func retry(h string) bool {
	a, ok := strings.CutPrefix(h, "attempt=")
	if !ok {
		return false
	}
	a, _, _ = strings.Cut(a, ";")
	n, err := strconv.Atoi(strings.TrimSpace(a))
	return err == nil && n > 1
}
