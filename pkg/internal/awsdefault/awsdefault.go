// Package awsdefault loads the AWS SDK's default configuration for the
// local commands (shared config files, profiles, SSO, the environment),
// as the AWS CLI does. The Lambda functions do not link it: they build
// their configuration from the environment Lambda provides (boot.AWSConfig),
// since this loader's packages cost every cold start.
package awsdefault

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
)

// Load is the SDK's default AWS configuration in cfg's region, pointed at
// AWS_ENDPOINT_URL when it is set (a local stand-in).
func Load(ctx context.Context, cfg config.Config) (aws.Config, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(cfg.AWS.Region))
	if err != nil {
		return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.AWS.EndpointURL != "" {
		awsCfg.BaseEndpoint = aws.String(cfg.AWS.EndpointURL)
	}
	return awsCfg, nil
}
