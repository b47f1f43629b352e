package secrets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
)

// AWS reads SSM parameters and Secrets Manager secrets with the two AWS
// JSON 1.1 calls the resolver needs (ssm:GetParameter and
// secretsmanager:GetSecretValue), signed with Signature Version 4. It
// links no AWS SDK service client: their packages' initialization would
// cost every cold start of every function, for two requests made once.
type AWS struct {
	// Region is the region of both services (required).
	Region string
	// Credentials sign the requests (required); in Lambda, the function
	// role's credentials from the environment (see EnvCredentials).
	Credentials aws.CredentialsProvider
	// EndpointURL, when set, replaces both services' endpoints (a local
	// stand-in, as AWS_ENDPOINT_URL does for the SDK).
	EndpointURL string
	// HTTPClient sends the requests; nil means a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// Retry paces the attempts of a throttled or failed call; its zero
	// value is DefaultRetry.
	Retry Retry
}

// Retry is how a call that AWS throttled, or that failed on AWS's side or
// on the way, is tried again: up to Attempts attempts in all, each after a
// random delay between zero and BaseDelay doubled per attempt, capped at
// MaxDelay ("full jitter": cold starts that were throttled together spread
// out instead of coming back together). SSM allows 40 GetParameter calls
// per second per account by default, which a burst of cold starts spends
// at once.
type Retry struct {
	Attempts  int
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Clock paces the delays; nil means the system clock.
	Clock clock.Clock
}

// DefaultRetry takes at most about 3 s of waiting (six attempts, delays
// capped at 0.1, 0.2, 0.4, 0.8 and 1.6 s), well inside Lambda's 10 s for a
// cold start.
var DefaultRetry = Retry{Attempts: 6, BaseDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second}

// delay is the wait before attempt (2, 3, ...).
func (r Retry) delay(attempt int) time.Duration {
	ceiling := min(r.BaseDelay<<(attempt-2), r.MaxDelay)
	if ceiling <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceiling) + 1))
}

// retryable reports whether err may pass on a later attempt: AWS throttled
// the call or failed on its side (HTTP 429 or 5xx, or a throttling error
// type), or the request did not get an answer. A refusal (a missing
// parameter, a denied access) never does.
func retryable(err error) bool {
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var ae *APIError
	if !errors.As(err, &ae) {
		return false // the request could not be made: it never will
	}
	switch ae.Type {
	case "ThrottlingException", "TooManyRequestsException", "RequestLimitExceeded", "Throttling", "ServiceUnavailable", "InternalServerError", "InternalFailure", "InternalServiceError":
		return true
	}
	return ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500
}

var (
	_ ParameterReader = (*AWS)(nil)
	_ SecretReader    = (*AWS)(nil)
)

// EnvCredentials are the static credentials of the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which is
// where Lambda puts the function role's.
func EnvCredentials(getenv func(string) string) (aws.CredentialsProvider, error) {
	id, secret := strings.TrimSpace(getenv("AWS_ACCESS_KEY_ID")), strings.TrimSpace(getenv("AWS_SECRET_ACCESS_KEY"))
	if id == "" || secret == "" {
		return nil, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the function's role)")
	}
	creds := aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: strings.TrimSpace(getenv("AWS_SESSION_TOKEN")), Source: "environment"}
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil }), nil
}

// Parameter implements ParameterReader: the parameter's value, a
// SecureString decrypted.
func (a *AWS) Parameter(ctx context.Context, name string) (string, error) {
	var out struct {
		Parameter *struct {
			Value *string `json:"Value"`
		} `json:"Parameter"`
	}
	in := map[string]any{"Name": name, "WithDecryption": true}
	if err := a.call(ctx, "ssm", "AmazonSSM.GetParameter", in, &out); err != nil {
		return "", fmt.Errorf("ssm:GetParameter: %w", err)
	}
	if out.Parameter == nil || out.Parameter.Value == nil {
		return "", errors.New("ssm:GetParameter returned no value")
	}
	return *out.Parameter.Value, nil
}

// Secret implements SecretReader: the secret's string value.
func (a *AWS) Secret(ctx context.Context, id string) (string, error) {
	var out struct {
		SecretString *string `json:"SecretString"`
	}
	if err := a.call(ctx, "secretsmanager", "secretsmanager.GetSecretValue", map[string]any{"SecretId": id}, &out); err != nil {
		return "", fmt.Errorf("secretsmanager:GetSecretValue: %w", err)
	}
	if out.SecretString == nil {
		return "", errors.New("the secret has no string value (binary secrets are not supported)")
	}
	return *out.SecretString, nil
}

// transportError is a request that got no answer (a connection or read
// failure, a timeout).
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// APIError is an error an AWS service answered: its type (the
// exception's name, e.g. ParameterNotFound) and message.
type APIError struct {
	Service    string
	StatusCode int
	Type       string
	Message    string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s answered %d %s: %s", e.Service, e.StatusCode, e.Type, e.Message)
}

// call sends one AWS JSON 1.1 request to service and decodes its answer,
// trying again as a.Retry says while it fails in a way that may pass.
func (a *AWS) call(ctx context.Context, service, target string, in, out any) error {
	r := a.Retry
	if r.Attempts <= 0 {
		r = DefaultRetry
	}
	var err error
	for attempt := 1; attempt <= r.Attempts; attempt++ {
		if attempt > 1 {
			if serr := clock.Sleep(ctx, clock.Or(r.Clock), r.delay(attempt)); serr != nil {
				return fmt.Errorf("%w (gave up waiting to try again: %w)", err, serr)
			}
		}
		if err = a.callOnce(ctx, service, target, in, out); err == nil || !retryable(err) {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
	}
	return fmt.Errorf("%w (after %d attempts)", err, r.Attempts)
}

// callOnce sends one AWS JSON 1.1 request to service and decodes its
// answer.
func (a *AWS) callOnce(ctx context.Context, service, target string, in, out any) error {
	if a.Region == "" {
		return errors.New("no AWS region (AWS_REGION)")
	}
	if a.Credentials == nil {
		return errors.New("no AWS credentials")
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.endpoint(service), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", target)
	creds, err := a.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, a.Region, time.Now()); err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	client := a.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return &transportError{err}
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return &transportError{fmt.Errorf("read the answer: %w", err)}
	}
	if resp.StatusCode != http.StatusOK {
		return apiError(service, resp.StatusCode, rb)
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return fmt.Errorf("decode the answer: %w", err)
	}
	return nil
}

// apiError reads an AWS JSON error body: {"__type": "...#Name", "message"}.
func apiError(service string, status int, body []byte) error {
	var w struct {
		Type     string `json:"__type"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	e := &APIError{Service: service, StatusCode: status}
	if json.Unmarshal(body, &w) == nil {
		e.Type = w.Type[strings.LastIndex(w.Type, "#")+1:]
		e.Message = w.Message
		if e.Message == "" {
			e.Message = w.MessageU
		}
	}
	if e.Type == "" {
		e.Type = http.StatusText(status)
	}
	return e
}

// endpoint is the service's regional endpoint, or EndpointURL.
func (a *AWS) endpoint(service string) string {
	if a.EndpointURL != "" {
		return strings.TrimRight(a.EndpointURL, "/") + "/"
	}
	domain := "amazonaws.com"
	if strings.HasPrefix(a.Region, "cn-") {
		domain = "amazonaws.com.cn"
	}
	return "https://" + service + "." + a.Region + "." + domain + "/"
}
