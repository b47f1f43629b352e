// Package secrets resolves references to secrets kept outside the
// environment. A deployed stack never holds a token or key in its template:
// the variable names where the secret is kept, and the function reads it
// once, at cold start.
//
//	ssm:/a2a-lambda/bearer-token            an SSM parameter (a SecureString is decrypted)
//	secretsmanager:a2a-lambda/llm-api-key   a Secrets Manager secret, by name or ARN
//
// Any other value is the secret itself (local development).
package secrets

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Reference prefixes.
const (
	PrefixSSM            = "ssm:"
	PrefixSecretsManager = "secretsmanager:"
)

// ParameterReader reads an SSM parameter's value (a SecureString
// decrypted); *AWS is one.
type ParameterReader interface {
	Parameter(ctx context.Context, name string) (string, error)
}

// SecretReader reads a Secrets Manager secret's string value by name or
// ARN; *AWS is one.
type SecretReader interface {
	Secret(ctx context.Context, id string) (string, error)
}

// IsReference reports whether v names a secret rather than holding one.
func IsReference(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, PrefixSSM) || strings.HasPrefix(v, PrefixSecretsManager)
}

// Resolver reads referenced secrets. A nil client makes references of its
// kind fail.
type Resolver struct {
	SSM            ParameterReader
	SecretsManager SecretReader
}

// Resolve returns the secret ref names. Errors name the reference (which is
// not secret) and never the value.
func (r Resolver) Resolve(ctx context.Context, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	var (
		v   string
		err error
	)
	switch {
	case strings.HasPrefix(ref, PrefixSSM):
		v, err = r.parameter(ctx, strings.TrimPrefix(ref, PrefixSSM))
	case strings.HasPrefix(ref, PrefixSecretsManager):
		v, err = r.secret(ctx, strings.TrimPrefix(ref, PrefixSecretsManager))
	default:
		return "", fmt.Errorf("%q is not a reference: it starts with neither %s nor %s", ref, PrefixSSM, PrefixSecretsManager)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	if strings.TrimSpace(v) == "" {
		return "", fmt.Errorf("%s: the secret is empty", ref)
	}
	return v, nil
}

func (r Resolver) parameter(ctx context.Context, name string) (string, error) {
	if name == "" {
		return "", errors.New("no parameter name after ssm:")
	}
	if r.SSM == nil {
		return "", errors.New("no SSM client")
	}
	v, err := r.SSM.Parameter(ctx, name)
	if isAPIError(err, "ParameterNotFound") {
		return "", fmt.Errorf("the SSM parameter %s does not exist in this account and region (create it, or correct the reference): %w", name, err)
	}
	return v, err
}

func (r Resolver) secret(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", errors.New("no secret name or ARN after secretsmanager:")
	}
	if r.SecretsManager == nil {
		return "", errors.New("no Secrets Manager client")
	}
	v, err := r.SecretsManager.Secret(ctx, id)
	if isAPIError(err, "ResourceNotFoundException") {
		return "", fmt.Errorf("the Secrets Manager secret %s does not exist in this account and region (create it, or correct the reference): %w", id, err)
	}
	return v, err
}

// isAPIError reports whether err is the AWS error of that type.
func isAPIError(err error, typ string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Type == typ
}

// Env resolves, once, every reference among the variables names read
// through getenv, and returns a getenv that answers the resolved values
// (every other variable passes through). Each distinct reference is read
// once, all of them at the same time: a cold start waits for the slowest
// read (throttled ones retried, see Retry), not for their sum. All
// failures are reported together, each naming its variable.
func (r Resolver) Env(ctx context.Context, getenv func(string) string, names []string) (func(string) string, error) {
	type read struct {
		v    string
		err  error
		done chan struct{}
	}
	reads := map[string]*read{}
	for _, name := range names {
		ref := getenv(name)
		if !IsReference(ref) || reads[ref] != nil {
			continue
		}
		rd := &read{done: make(chan struct{})}
		reads[ref] = rd
		go func() {
			defer close(rd.done)
			rd.v, rd.err = r.Resolve(ctx, ref)
		}()
	}
	resolved := map[string]string{}
	var errs []error
	for _, name := range names {
		rd := reads[getenv(name)]
		if rd == nil {
			continue
		}
		<-rd.done
		if rd.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, rd.err))
			continue
		}
		resolved[name] = rd.v
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return func(name string) string {
		if v, ok := resolved[name]; ok {
			return v
		}
		return getenv(name)
	}, nil
}

// References reports whether any of the variables names read through getenv
// is a reference, so that callers build AWS clients only when needed.
func References(getenv func(string) string, names []string) bool {
	for _, n := range names {
		if IsReference(getenv(n)) {
			return true
		}
	}
	return false
}
