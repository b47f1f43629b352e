package egress

import (
	"net"
	"net/http"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// DefaultTimeout bounds one webhook request from dial to the end of the
// response body.
const DefaultTimeout = 10 * time.Second

// NewClient returns an HTTP client for webhook deliveries that enforces p
// on every connection:
//
//   - its dialer's Control function (Policy.Control) refuses any resolved
//     address the policy refuses, so DNS rebinding cannot bypass the
//     registration check;
//   - it never uses a proxy from the environment (HTTPS_PROXY and friends);
//   - it follows no redirects: a 3xx answer is returned to the caller as
//     is (a redirect could carry the notification token to another host);
//   - the whole request is bounded by timeout (DefaultTimeout when zero).
//
// Dial errors caused by the policy wrap ErrRefused.
func NewClient(p Policy, timeout time.Duration) *http.Client {
	timeout = positive.Or(timeout, DefaultTimeout)
	dialer := &net.Dialer{
		Timeout:   5 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   p.Control,
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    5 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
		DisableCompression:     true,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
