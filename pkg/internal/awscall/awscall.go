// Package awscall calls AWS APIs over plain HTTP, signed with the AWS SDK's
// Signature Version 4 signer and the caller's credentials: the operations
// the Lambda functions make of DynamoDB (pkg/dynamodb), Lambda
// (pkg/internal/lambdainvoke), Step Functions (pkg/internal/sfncall), SQS
// (pkg/internal/sqscall), S3 (pkg/internal/objectstore) and SSM and Secrets
// Manager (pkg/internal/secrets), and those the local server makes of
// DynamoDB Streams (pkg/internal/streamscall), without the SDK's service
// clients. Go
// initializes every linked package at each cold start, and a client's
// packages are among the costliest (the DynamoDB client's service model
// alone took 0.5-1.0 ms), besides hundreds of kilobytes of every binary
// (functions.TestFunctionsLinkOnlyTheirClients, TestDeployedBinarySize).
//
// A Client signs, sends and tries again what AWS refused for the moment
// (throttling, whatever its HTTP status, and 5xx) or what did not reach
// it; reading the answer is the caller's, which knows its API's error
// format (CallJSON reads the JSON protocols' answers; PostJSON leaves
// them to the caller).
package awscall

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing"
)

// UnsignedPayload is the payload hash of a request whose body is not part
// of its signature (presigned URLs).
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// DefaultMaxAttempts bounds the calls made for one request.
const DefaultMaxAttempts = 3

// AttemptHeader tells which attempt of a call a retry is ("attempt=2;
// max=3"), as the AWS SDKs' clients send it (they send it on the first
// attempt too).
const AttemptHeader = "Amz-Sdk-Request"

// DefaultBaseDelay is the longest wait before the second attempt; each
// later one may wait twice as long as the one before.
const DefaultBaseDelay = 200 * time.Millisecond

// Options configure a Client.
type Options struct {
	// Endpoint is the API's base URL. Empty: the config's BaseEndpoint
	// (AWS_ENDPOINT_URL), else the region's public endpoint.
	Endpoint string
	// HTTPClient makes the calls; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
	// Clock tells the signing time and paces the waits between attempts;
	// nil means the system clock.
	Clock clock.Clock
	// BaseDelay and MaxBackoff pace the attempts: the wait before attempt
	// n+1 is random between zero and BaseDelay doubled n-1 times, at most
	// MaxBackoff ("full jitter": callers throttled together come back
	// apart). Defaults: DefaultBaseDelay, one second (calls are made while
	// a client waits).
	BaseDelay  time.Duration
	MaxBackoff time.Duration
	// MaxAttempts bounds the calls made for one request (default
	// DefaultMaxAttempts).
	MaxAttempts int
	// DisableURIPathEscaping signs the path as it is sent (S3's rule).
	DisableURIPathEscaping bool
}

// Service names an AWS API: its signing name, the first label of its
// regional endpoint, and its name in spans (the SDK's service id).
type Service struct {
	SigningName, EndpointPrefix, ID string
}

// Client signs and sends requests of one service in one region. It is safe
// for concurrent use.
type Client struct {
	svc      Service
	region   string
	endpoint string
	// custom is true when the endpoint is not the region's public one (a
	// local stand-in such as moto).
	custom   bool
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	http     *http.Client
	clock    clock.Clock
	base     time.Duration
	max      time.Duration
	attempts int
}

// New returns a client of svc with cfg's region and credentials.
func New(cfg aws.Config, svc Service, o Options) (*Client, error) {
	name := strings.ToLower(svc.ID)
	if cfg.Region == "" {
		return nil, fmt.Errorf("%s: a region is required", name)
	}
	if cfg.Credentials == nil {
		return nil, fmt.Errorf("%s: credentials are required", name)
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = aws.ToString(cfg.BaseEndpoint)
	}
	custom := endpoint != ""
	if !custom {
		endpoint = "https://" + svc.EndpointPrefix + "." + cfg.Region + "." + DNSSuffix(cfg.Region)
	}
	if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: %q is not an http(s) endpoint URL", name, endpoint)
	}
	c := &Client{svc: svc, region: cfg.Region, endpoint: strings.TrimRight(endpoint, "/"), custom: custom, creds: cfg.Credentials,
		signer: v4.NewSigner(func(so *v4.SignerOptions) { so.DisableURIPathEscaping = o.DisableURIPathEscaping }),
		http:   o.HTTPClient, clock: clock.Or(o.Clock), base: o.BaseDelay, max: o.MaxBackoff, attempts: o.MaxAttempts}
	if c.base <= 0 {
		c.base = DefaultBaseDelay
	}
	if c.max <= 0 {
		c.max = time.Second
	}
	if c.attempts <= 0 {
		c.attempts = DefaultMaxAttempts
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 10 * time.Second}
	}
	return c, nil
}

// DNSSuffix is the DNS suffix of region's partition: China's regions are
// under amazonaws.com.cn, the commercial and GovCloud regions under
// amazonaws.com. (Other partitions: set the endpoint.)
func DNSSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

// Endpoint is the base URL requests go to, without a trailing slash.
func (c *Client) Endpoint() string { return c.endpoint }

// CustomEndpoint reports whether the endpoint was configured rather than
// the region's public one.
func (c *Client) CustomEndpoint() bool { return c.custom }

// Region is the client's region.
func (c *Client) Region() string { return c.region }

// Request is one call.
type Request struct {
	// Operation names the call in its span (PutObject, StartExecution...).
	Operation string
	Method    string
	// URL is the request's whole URL.
	URL    string
	Header http.Header
	// Body, read from its start at every attempt; nil for none.
	Body          io.ReadSeeker
	ContentLength int64
	// PayloadHash is the hex SHA-256 of the body (EmptyPayloadHash for
	// none), or UnsignedPayload.
	PayloadHash string
}

// EmptyPayloadHash is the SHA-256 of an empty body.
const EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// PayloadHash is the hex SHA-256 of body, as a Request's PayloadHash.
func PayloadHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Do signs and sends r. A call refused for the moment (HTTP 429 or 5xx, or
// an error whose code says throttling, such as Step Functions' and SSM's
// ThrottlingException at HTTP 400) or that did not reach the API is tried
// again, up to the client's attempts, after a jittered wait; the last
// answer is returned whatever its status, for the caller to read (and
// close).
func (c *Client) Do(ctx context.Context, r Request) (*http.Response, error) {
	ctx, span := tracing.Start(ctx, c.svc.ID, "aws")
	span.SetOperation(r.Operation)
	resp, err := c.do(ctx, r)
	if resp != nil {
		span.SetStatus(resp.StatusCode)
	}
	span.End(err)
	return resp, err
}

func (c *Client) do(ctx context.Context, r Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := c.send(ctx, r, attempt)
		again := err // why another attempt may succeed; nil: it would not
		if resp != nil {
			again = passing(resp)
		}
		if again == nil || attempt == c.attempts || ctx.Err() != nil {
			if err != nil && again != nil && attempt > 1 && ctx.Err() == nil {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if serr := clock.Sleep(ctx, c.clock, c.delay(attempt)); serr != nil {
			return nil, fmt.Errorf("%w (then %w)", again, serr)
		}
	}
}

// passing returns the refusal resp answers when it is one that may pass
// (throttling, the API's own failure), nil otherwise. The body of a
// refusal with another status is read to find its code, and put back.
func passing(resp *http.Response) error {
	switch {
	case resp.StatusCode < 400:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body := ReadBody(resp)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if e := JSONError(resp, body); e.RetryableError() {
		return e
	}
	return nil
}

// delay is the wait after attempt: random up to the base delay doubled
// attempt-1 times, at most the client's maximum.
func (c *Client) delay(attempt int) time.Duration {
	ceiling := c.max
	if attempt-1 < 32 {
		ceiling = min(c.base<<(attempt-1), c.max)
	}
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

func (c *Client) send(ctx context.Context, r Request, attempt int) (*http.Response, error) {
	var body io.Reader
	if r.Body != nil {
		if _, err := r.Body.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("rewind the body: %w", err)
		}
		body = io.NopCloser(r.Body) // the client must not close it between attempts
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.ContentLength = r.ContentLength
	if r.ContentLength == 0 {
		req.Body, req.GetBody = http.NoBody, nil
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if h := tracing.Header(ctx); h != "" {
		// The call joins the caller's trace.
		req.Header.Set("X-Amzn-Trace-Id", h)
	}
	if attempt > 1 {
		// A retry says which attempt it is, as the SDK's clients do, so
		// that it is told from a second call (a first attempt, nearly every
		// request, goes without: the header costs its signing).
		req.Header.Set(AttemptHeader, "attempt="+strconv.Itoa(attempt)+"; max="+strconv.Itoa(c.attempts))
	}
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	if err := c.signer.SignHTTP(ctx, creds, req, r.PayloadHash, c.svc.SigningName, c.region, c.clock.Now().UTC()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return c.http.Do(req)
}

// maxAnswer bounds the answer CallJSON reads (a secret of Secrets
// Manager's largest, 64 KiB, escaped, fits).
const maxAnswer = 1 << 20

// CallJSON makes one call of an API of the AWS JSON protocols: target (its
// X-Amz-Target, such as AWSStepFunctions.StartExecution) with in as its
// body, in protocol version ("1.0" or "1.1"), and decodes the answer into
// out (nil: ignored). An API's refusal is an *Error (JSONError); one that
// might have passed says how many attempts it took.
func (c *Client) CallJSON(ctx context.Context, version, target string, in, out any) error {
	return c.callJSON(ctx, version, target, in, out, maxAnswer, false)
}

// CallJSONWithin is CallJSON for an API whose answers may be larger than
// CallJSON reads (at most limit bytes are) and are all JSON documents: an
// empty answer is an error, not an empty result (DynamoDB Streams'
// GetRecords, whose empty answer would read as a shard's end).
func (c *Client) CallJSONWithin(ctx context.Context, version, target string, in, out any, limit int) error {
	return c.callJSON(ctx, version, target, in, out, limit, true)
}

func (c *Client) callJSON(ctx context.Context, version, target string, in, out any, limit int, document bool) error {
	resp, err := c.PostJSON(ctx, version, target, in)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return c.Tried(ctx, JSONError(resp, ReadBody(resp)))
	}
	body, err := ReadAnswer(resp, limit)
	if err != nil {
		return err
	}
	if out != nil && (document || len(bytes.TrimSpace(body)) > 0) {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("decode the answer: %w", err)
		}
	}
	return nil
}

// PostJSON sends a call of an API of the AWS JSON protocols as CallJSON
// does, and returns the answer, whatever its status, for a caller that
// reads answers or refusals its own way (pkg/dynamodb). Refusals go
// through Tried.
func (c *Client) PostJSON(ctx context.Context, version, target string, in any) (*http.Response, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	_, op, _ := strings.Cut(target, ".")
	return c.Do(ctx, Request{
		Operation: op, Method: http.MethodPost, URL: c.endpoint + "/",
		Header: http.Header{"Content-Type": {jsonContentType(version)}, "X-Amz-Target": {target}},
		Body:   bytes.NewReader(b), ContentLength: int64(len(b)), PayloadHash: PayloadHash(b),
	})
}

// jsonContentType is the Content-Type of the AWS JSON protocol version,
// without building the string of the usual two.
func jsonContentType(version string) string {
	switch version {
	case "1.0":
		return "application/x-amz-json-1.0"
	case "1.1":
		return "application/x-amz-json-1.1"
	}
	return "application/x-amz-json-" + version
}

// Tried is e, the refusal in the answer Do returned, saying how many
// attempts Do made when it was one that might have passed (Do tried them
// all).
func (c *Client) Tried(ctx context.Context, e *Error) error {
	if e.RetryableError() && c.attempts > 1 && ctx.Err() == nil {
		return fmt.Errorf("%w (after %d attempts)", e, c.attempts)
	}
	return e
}

// Presign returns a URL that lets its holder make the request method url,
// with the returned headers, until expires from now, without credentials of
// its own: query parameters carry the signature, for an unsigned payload of
// contentLength bytes (0: none signed) and header's values.
func (c *Client) Presign(ctx context.Context, method, rawURL string, header http.Header, contentLength int64, expires time.Duration) (string, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return "", nil, fmt.Errorf("build request: %w", err)
	}
	req.ContentLength = contentLength
	for k, vs := range header {
		req.Header[k] = vs
	}
	q := req.URL.Query()
	q.Set("X-Amz-Expires", strconv.FormatInt(int64(expires/time.Second), 10))
	req.URL.RawQuery = q.Encode()
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("credentials: %w", err)
	}
	u, signed, err := c.signer.PresignHTTP(ctx, creds, req, UnsignedPayload, c.svc.SigningName, c.region, c.clock.Now().UTC())
	if err != nil {
		return "", nil, fmt.Errorf("presign: %w", err)
	}
	delete(signed, "Host") // the URL names it
	return u, signed, nil
}

// Error is an API's refusal of a call.
type Error struct {
	// Code is the API's error type, such as TooManyRequestsException or
	// NoSuchKey; StatusCode the HTTP status.
	Code       string
	Message    string
	StatusCode int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.StatusCode, e.Message)
}

// Refused reports whether err is (or wraps) an API's refusal with one of
// codes.
func Refused(err error, codes ...string) bool {
	var e *Error
	return errors.As(err, &e) && slices.Contains(codes, e.Code)
}

// ErrorCode and RetryableError let the SDK's retry helpers classify it.
func (e *Error) ErrorCode() string { return e.Code }

// RetryableError reports whether trying again may succeed: throttling
// (HTTP 429, or a code the SDK's retryer counts as throttling, whatever
// the status) and the API's own failures.
func (e *Error) RetryableError() bool {
	_, throttled := retry.DefaultThrottleErrorCodes[e.Code]
	_, timedOut := retry.DefaultRetryableErrorCodes[e.Code]
	return throttled || timedOut || e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// NewError is the refusal resp answers with: code and message as the API's
// body says (found by the caller), else the HTTP status's text and the
// body itself.
func NewError(resp *http.Response, code, message string, body []byte) *Error {
	e := &Error{Code: code, Message: message, StatusCode: resp.StatusCode}
	if e.Code == "" {
		e.Code = http.StatusText(resp.StatusCode)
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
	}
	return e
}

// JSONError reads the error of an API of the JSON protocols (Lambda's REST
// JSON, AWS JSON 1.0 and 1.1): its code from the X-Amzn-ErrorType header
// or the body's __type, Type or code, without a namespace ("...#Code") or
// a suffix ("Code:..."), and its message from the body's message or
// Message.
func JSONError(resp *http.Response, body []byte) *Error {
	var b struct {
		Type      string `json:"__type"`
		TypeUC    string `json:"Type"`
		Code      string `json:"code"`
		Message   string `json:"message"`
		MessageUC string `json:"Message"`
	}
	_ = json.Unmarshal(body, &b)
	code := cmp.Or(resp.Header.Get("X-Amzn-Errortype"), b.Type, b.TypeUC, b.Code)
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	code, _, _ = strings.Cut(code, ":")
	return NewError(resp, code, cmp.Or(b.Message, b.MessageUC), body)
}

// ReadAnswer reads resp's body whole, at most limit bytes, and closes it:
// a larger answer is an error, not one cut short (whose JSON would not
// decode, saying less).
func ReadAnswer(resp *http.Response, limit int) ([]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	if len(b) > limit {
		return nil, fmt.Errorf("the answer is larger than %d bytes", limit)
	}
	return b, nil
}

// ReadBody reads at most 64 KiB of resp's body, for an error's details,
// and closes it.
func ReadBody(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return b
}
