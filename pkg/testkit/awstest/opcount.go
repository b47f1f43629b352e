package awstest

import (
	"net/http"
	"strings"
	"sync"
)

// OpCounter counts the calls an AWS SDK client makes, by operation: the
// X-Amz-Target header of the JSON protocols (DynamoDB, Step Functions, SQS)
// names it. Give a client its Client as the HTTP client:
//
//	c := OpCounter{}
//	sfn.NewFromConfig(cfg, func(o *sfn.Options) { o.HTTPClient = c.Client(nil) })
type OpCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// NewOpCounter returns an empty counter.
func NewOpCounter() *OpCounter { return &OpCounter{counts: map[string]int{}} }

// Client returns an HTTP client that counts every request it sends through
// next (nil: http.DefaultTransport), retries included.
func (c *OpCounter) Client(next http.RoundTripper) *http.Client {
	if next == nil {
		next = http.DefaultTransport
	}
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
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
