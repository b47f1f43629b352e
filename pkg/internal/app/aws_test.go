package app_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/app"
)

// A local command's AWS credentials are the environment's, else what the
// AWS CLI exports for its profile, run as a credential process; without
// either, or without a region, it says what to set.
func TestLocalAWSConfig(t *testing.T) {
	dir := t.TempDir()
	// cli is a stand-in for the AWS CLI that runs script, called as
	// AWSCLICredentials calls the CLI.
	cli := func(name, script string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755))
		return path + " configure export-credentials --format process"
	}
	exported := cli("aws-ok", `echo '{"Version":1,"AccessKeyId":"AKIDCLI","SecretAccessKey":"cli-secret","SessionToken":"cli-token","Expiration":"2099-01-02T03:04:05Z"}'`)
	expired := cli("aws-sso-expired", `echo "Error when retrieving token from sso: Token has expired and refresh failed" >&2; exit 255`)
	missing := filepath.Join(dir, "no-aws-here") + " configure export-credentials --format process"
	envKeys := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token"}

	tests := []struct {
		name     string
		env      map[string]string
		region   string
		cli      string
		keyID    string
		token    string
		expires  time.Time
		err      string // from LocalAWSConfig
		retrieve string // from the first call that needs credentials
	}{
		{name: "environment first", env: envKeys, region: "eu-west-1", cli: exported, keyID: "AKIDENV", token: "env-token"},
		{name: "environment without the CLI", env: envKeys, region: "eu-west-1", cli: missing, keyID: "AKIDENV", token: "env-token"},
		{name: "the CLI's profile", region: "eu-west-1", cli: exported, keyID: "AKIDCLI", token: "cli-token", expires: time.Date(2099, 1, 2, 3, 4, 5, 0, time.UTC)},
		{name: "half the environment's keys", env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV"}, region: "eu-west-1", cli: exported, keyID: "AKIDCLI", token: "cli-token", expires: time.Date(2099, 1, 2, 3, 4, 5, 0, time.UTC)},
		{name: "the CLI fails", region: "eu-west-1", cli: expired, retrieve: "credential_process"},
		{name: "no credentials at all", region: "eu-west-1", cli: missing, err: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and the AWS CLI, whose profile's credentials are used without them"},
		{name: "no region", env: envKeys, cli: exported, err: "AWS_REGION is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg config.Config
			cfg.AWS.Region, cfg.AWS.EndpointURL = tt.region, "http://127.0.0.1:5000"
			awsCfg, err := app.LocalAWSConfig(cfg, func(k string) string { return tt.env[k] }, tt.cli)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.region, awsCfg.Region)
			require.NotNil(t, awsCfg.BaseEndpoint)
			assert.Equal(t, "http://127.0.0.1:5000", *awsCfg.BaseEndpoint)
			creds, err := awsCfg.Credentials.Retrieve(context.Background())
			if tt.retrieve != "" {
				assert.ErrorContains(t, err, tt.retrieve)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.keyID, creds.AccessKeyID)
			assert.Equal(t, tt.token, creds.SessionToken)
			assert.Equal(t, !tt.expires.IsZero(), creds.CanExpire)
			if creds.CanExpire {
				assert.True(t, tt.expires.Equal(creds.Expires), creds.Expires)
			}
		})
	}
}
