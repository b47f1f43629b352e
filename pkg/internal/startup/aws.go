package startup

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/tracing/awstrace"
)

// AWSConfig is the AWS configuration of a Lambda function, built from what
// Lambda puts in its environment: the region (cfg.AWS.Region, from
// AWS_REGION), the function role's credentials (secrets.EnvCredentials:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) and, when
// set, AWS_ENDPOINT_URL (cfg.AWS.EndpointURL: a local stand-in). It does not
// use the SDK's default loader (shared config files, SSO, IMDS): linking
// it costs every cold start, and Lambda needs none of it. The service
// clients add their default retryer and HTTP client.
func AWSConfig(cfg config.Config, getenv func(string) string) (aws.Config, error) {
	creds, err := secrets.EnvCredentials(getenv)
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.AWS.Region == "" {
		return aws.Config{}, errors.New("AWS configuration: AWS_REGION is not set (Lambda sets it)")
	}
	return NewAWSConfig(cfg, creds), nil
}

// NewAWSConfig is the configuration of cfg's region and endpoint with
// creds, cached until they expire.
func NewAWSConfig(cfg config.Config, creds aws.CredentialsProvider) aws.Config {
	awsCfg := aws.Config{
		Region:      cfg.AWS.Region,
		Credentials: aws.NewCredentialsCache(creds),
		// Each call is a span of the invocation's trace, when tracing is on.
		APIOptions: []func(*middleware.Stack) error{awstrace.Middleware},
	}
	if cfg.AWS.EndpointURL != "" {
		awsCfg.BaseEndpoint = aws.String(cfg.AWS.EndpointURL)
	}
	return awsCfg
}
