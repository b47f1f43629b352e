package startup

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
)

// ResolveSecrets returns getenv with the secret references among
// config.SecretVariables resolved (ssm:<name>, secretsmanager:<name or
// ARN>; see pkg/internal/secrets), read once with the environment's credentials (the
// function role's, in Lambda) in AWS_REGION, or at AWS_ENDPOINT_URL.
// Without references it returns getenv itself and makes no request. Errors
// name the variable, never a value.
func ResolveSecrets(ctx context.Context, getenv func(string) string) (func(string) string, error) {
	names := config.SecretVariables()
	if !secrets.References(getenv, names) {
		return getenv, nil
	}
	creds, err := secrets.EnvCredentials(getenv)
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	reader := &secrets.AWS{
		Region:      cmp.Or(strings.TrimSpace(getenv("AWS_REGION")), strings.TrimSpace(getenv("AWS_DEFAULT_REGION"))),
		EndpointURL: strings.TrimSpace(getenv("AWS_ENDPOINT_URL")),
		Credentials: creds,
	}
	r := secrets.Resolver{SSM: reader, SecretsManager: reader}
	resolved, err := r.Env(ctx, getenv, names)
	if err != nil {
		return nil, fmt.Errorf("secret references: %w", err)
	}
	return resolved, nil
}
