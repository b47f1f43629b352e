package secrets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/clock"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
)

// AWS reads SSM parameters and Secrets Manager secrets with the two AWS
// JSON 1.1 calls the resolver needs (ssm:GetParameter and
// secretsmanager:GetSecretValue), signed and tried again by
// pkg/internal/awscall. It links no AWS SDK service client: their
// packages' initialization would cost every cold start of every function,
// for two requests made once.
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
	if err := a.call(ctx, ssm, "AmazonSSM.GetParameter", in, &out); err != nil {
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
	if err := a.call(ctx, secretsManager, "secretsmanager.GetSecretValue", map[string]any{"SecretId": id}, &out); err != nil {
		return "", fmt.Errorf("secretsmanager:GetSecretValue: %w", err)
	}
	if out.SecretString == nil {
		return "", errors.New("the secret has no string value (binary secrets are not supported)")
	}
	return *out.SecretString, nil
}

// The two services.
var (
	ssm            = awscall.Service{SigningName: "ssm", EndpointPrefix: "ssm", ID: "SSM"}
	secretsManager = awscall.Service{SigningName: "secretsmanager", EndpointPrefix: "secretsmanager", ID: "Secrets Manager"}
)

// call sends one AWS JSON 1.1 request to svc and decodes its answer,
// trying again as a.Retry says while it fails in a way that may pass. An
// API's refusal is an *awscall.Error.
func (a *AWS) call(ctx context.Context, svc awscall.Service, target string, in, out any) error {
	if a.Region == "" {
		return errors.New("no AWS region (AWS_REGION)")
	}
	if a.Credentials == nil {
		return errors.New("no AWS credentials")
	}
	r := a.Retry
	if r.Attempts <= 0 {
		r = DefaultRetry
	}
	c, err := awscall.New(aws.Config{Region: a.Region, Credentials: a.Credentials}, svc, awscall.Options{
		Endpoint: a.EndpointURL, HTTPClient: a.HTTPClient, Clock: r.Clock,
		BaseDelay: r.BaseDelay, MaxBackoff: r.MaxDelay, MaxAttempts: r.Attempts,
	})
	if err != nil {
		return err
	}
	return c.CallJSON(ctx, "1.1", target, in, out)
}
