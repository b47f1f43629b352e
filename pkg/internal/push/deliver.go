package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

// DefaultTokenTTL is the lifetime of a notification JWT.
const DefaultTokenTTL = 5 * time.Minute

// maxResponseBytes is how much of a webhook's response is read (and
// discarded) before the connection is closed.
const maxResponseBytes = 4 << 10

// userAgent identifies deliveries to webhooks.
const userAgent = "a2a-lambda-push/1"

// Outcome classifies one delivery attempt.
type Outcome int

// Outcomes.
const (
	// Delivered: the webhook answered 2xx.
	Delivered Outcome = iota + 1
	// Retryable: a 5xx, 408, 425 or 429 answer, a timeout, a connection
	// error or a failure on our side; try again later.
	Retryable
	// Permanent: another 4xx, a redirect (not followed), a URL or address
	// the egress policy refuses, or an unusable config; do not retry.
	Permanent
)

// String returns "delivered", "retryable" or "permanent".
func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Retryable:
		return "retryable"
	case Permanent:
		return "permanent"
	}
	return "unknown"
}

// Result is the result of one delivery attempt.
type Result struct {
	Outcome Outcome
	// StatusCode is the webhook's HTTP status, or 0 when there was no
	// answer.
	StatusCode int
	// RetryAfter is the webhook's Retry-After (on 429 and 503), or 0.
	RetryAfter time.Duration
	// Err says why the attempt was not delivered (nil when it was). Its
	// message names the webhook's host but never its path, query, token or
	// credentials, so it can be logged and stored.
	Err error
	// At is when the attempt started; Duration is how long it took.
	At       time.Time
	Duration time.Duration
}

// Errors wrapped by Result.Err (besides egress.ErrRefused and context
// errors).
var (
	// ErrStatus: the webhook answered with a non-2xx status; see
	// *StatusError.
	ErrStatus = errors.New("webhook answered with an error status")
	// ErrRedirect: the webhook answered with a redirect, which is not
	// followed.
	ErrRedirect = errors.New("webhook answered with a redirect, which is not followed")
)

// StatusError is a non-2xx answer from a webhook.
type StatusError struct {
	Host string
	Code int
}

// Error names the host and the status.
func (e *StatusError) Error() string {
	return fmt.Sprintf("webhook %s answered %d %s", e.Host, e.Code, http.StatusText(e.Code))
}

// Unwrap makes errors.Is(err, ErrStatus) true, and ErrRedirect for 3xx.
func (e *StatusError) Unwrap() []error {
	if e.Code >= 300 && e.Code < 400 {
		return []error{ErrStatus, ErrRedirect}
	}
	return []error{ErrStatus}
}

// Signer signs notification JWTs; *keys.Set implements it.
type Signer interface {
	// Sign returns a compact JWS of claims, with the key's kid in its
	// header, or an error.
	Sign(claims any) (string, error)
}

// DelivererOptions configure a Deliverer.
type DelivererOptions struct {
	// Signer signs the notification JWTs. Required.
	Signer Signer
	// Issuer is the iss claim, normally the agent's public URL. Required.
	Issuer string
	// Policy is the egress policy, applied to the URL before each attempt
	// and, through the default Client, to every connection.
	Policy egress.Policy
	// Client sends the requests; nil means egress.NewClient(Policy, 0).
	// A custom client must keep the dial guard and refuse redirects.
	Client *http.Client
	// TokenTTL is the JWT lifetime; 0 means DefaultTokenTTL.
	TokenTTL time.Duration
	// Clock tells the time (the JWT's iat and exp, Retry-After dates); nil
	// means the system clock.
	Clock clock.Clock
}

// Deliverer sends notifications. It is safe for concurrent use.
type Deliverer struct {
	signer   Signer
	issuer   string
	policy   egress.Policy
	client   *http.Client
	tokenTTL time.Duration
	clock    clock.Clock
}

// NewDeliverer returns a Deliverer, or an error when Signer or Issuer is
// missing.
func NewDeliverer(o DelivererOptions) (*Deliverer, error) {
	if o.Signer == nil {
		return nil, errors.New("push deliverer: a signer is required")
	}
	if o.Issuer == "" {
		return nil, errors.New("push deliverer: an issuer is required")
	}
	d := &Deliverer{signer: o.Signer, issuer: o.Issuer, policy: o.Policy, client: o.Client, tokenTTL: o.TokenTTL, clock: clock.Or(o.Clock)}
	if d.client == nil {
		d.client = egress.NewClient(o.Policy, 0)
		// Each webhook POST is a span of the delivery's trace, when on.
		d.client.Transport = tracing.Transport(d.client.Transport)
	}
	d.tokenTTL = positive.Or(d.tokenTTL, DefaultTokenTTL)
	return d, nil
}

// Deliver makes one attempt to POST n to its webhook and classifies the
// result (see Outcome). It never retries itself; the caller applies a
// RetryPolicy. At most a small part of the response body is read. When ctx
// ends first, the attempt is Retryable with ctx's error.
func (d *Deliverer) Deliver(ctx context.Context, n Notification) Result {
	start := d.clock.Now()
	r := d.deliver(ctx, n, start)
	r.At = start
	r.Duration = d.clock.Now().Sub(start)
	return r
}

func (d *Deliverer) deliver(ctx context.Context, n Notification, now time.Time) Result {
	u, err := d.policy.CheckURL(n.Config.URL)
	if err != nil {
		return Result{Outcome: Permanent, Err: err}
	}
	host := u.Host
	if n.TaskID == "" {
		return Result{Outcome: Permanent, Err: fmt.Errorf("%w: notification has no task id", ErrInvalidConfig)}
	}
	if err := checkSecrets(n.Config); err != nil {
		return Result{Outcome: Permanent, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(n.Body))
	if err != nil {
		return Result{Outcome: Permanent, Err: fmt.Errorf("%w: build request for %s", ErrInvalidConfig, host)}
	}
	signed, err := d.sign(n, now)
	if err != nil {
		return Result{Outcome: Retryable, Err: err}
	}

	h := req.Header
	contentType := n.ContentType
	if contentType == "" {
		contentType = ContentTypeJSON
	}
	h.Set("Content-Type", contentType)
	h.Set("User-Agent", userAgent)
	h.Set(HeaderWebhookID, n.EventID())
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderTaskVersion, strconv.FormatInt(n.TaskVersion, 10))
	if n.Config.Token != "" {
		h.Set(HeaderNotificationToken, n.Config.Token)
	}
	switch scheme, credentials, inAuth := authorization(n.Config.Authentication); {
	case inAuth:
		h.Set("Authorization", "Bearer "+signed)
	case scheme != "":
		h.Set("Authorization", scheme+" "+credentials)
		h.Set(HeaderSignature, signed)
	default:
		h.Set(HeaderSignature, signed)
	}

	resp, err := d.client.Do(req)
	if err != nil {
		return classifyError(ctx, host, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	_ = resp.Body.Close()
	return classifyStatus(host, resp, d.clock.Now())
}

// sign returns the notification JWT for n signed at now.
func (d *Deliverer) sign(n Notification, now time.Time) (string, error) {
	return d.signer.Sign(Claims{
		TaskID:      n.TaskID,
		TaskVersion: n.TaskVersion,
		BodySHA256:  BodyHash(n.Body),
		Issuer:      d.issuer,
		Audience:    []string{n.Config.URL},
		ExpiresAt:   now.Add(d.tokenTTL).Unix(),
		IssuedAt:    now.Unix(),
		ID:          n.EventID(),
	})
}

// classifyError turns a failed request into a Result whose error does not
// contain the URL (net/url's errors quote it whole).
func classifyError(ctx context.Context, host string, err error) Result {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	err = fmt.Errorf("POST to %s: %w", host, err)
	if errors.Is(err, egress.ErrRefused) {
		return Result{Outcome: Permanent, Err: err}
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w (%w)", err, ctxErr)
	}
	return Result{Outcome: Retryable, Err: err}
}

// classifyStatus classifies a webhook's answer.
func classifyStatus(host string, resp *http.Response, now time.Time) Result {
	code := resp.StatusCode
	r := Result{StatusCode: code}
	switch {
	case code >= 200 && code < 300:
		r.Outcome = Delivered
		return r
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		r.Outcome = Retryable
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			r.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
		}
	default:
		r.Outcome = Permanent
	}
	r.Err = &StatusError{Host: host, Code: code}
	return r
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// Invalid or past values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}
