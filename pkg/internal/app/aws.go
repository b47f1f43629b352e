package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
)

// LocalAWS is the AWSLoader of the local commands: LocalAWSConfig with the
// process's environment and the AWS CLI.
func LocalAWS(_ context.Context, cfg config.Config) (aws.Config, error) {
	return LocalAWSConfig(cfg, os.Getenv, AWSCLICredentials)
}

// AWSCLICredentials is the command whose output a local command's AWS
// credentials are when its environment has none (see LocalAWSConfig): the
// AWS CLI's for its profile (AWS_PROFILE, else its default), in the shape
// a credential process prints.
const AWSCLICredentials = "aws configure export-credentials --format process"

// LocalAWSConfig is the AWS configuration of a local command (a2a-local, or
// one of your own on pkg/app/localmain): in cfg's region (AWS_REGION),
// with the credentials of the environment when it has them
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), else
// those cli (AWSCLICredentials) prints, run as a credential process when a
// call first needs them and again before they expire. Every kind of profile
// the AWS CLI knows (static keys, SSO, roles, credential_process) works
// through it. It does not link the SDK's own loader of shared
// configuration: its packages (with its SSO, SSO-OIDC, STS and sign-in
// clients) cost every local start 1-2 ms.
func LocalAWSConfig(cfg config.Config, getenv func(string) string, cli string) (aws.Config, error) {
	if cfg.AWS.Region == "" {
		return aws.Config{}, errors.New("AWS configuration: AWS_REGION is not set: set it to the region of the table or bucket (your profile's: export AWS_REGION=$(aws configure get region))")
	}
	creds, err := secrets.EnvCredentials(getenv)
	if err != nil {
		name, _, _ := strings.Cut(cli, " ")
		if _, lookErr := exec.LookPath(name); lookErr != nil {
			return aws.Config{}, fmt.Errorf("AWS configuration: no credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the AWS CLI, whose profile's credentials are used without them (%s), cannot be run: %w", cli, lookErr)
		}
		creds = processcreds.NewProvider(cli)
	}
	return startup.NewAWSConfig(cfg, creds), nil
}
