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

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
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
	for _, src := range r.sources() {
		if id, ok := strings.CutPrefix(ref, src.prefix); ok {
			v, err := src.get(ctx, id)
			if err != nil {
				return "", fmt.Errorf("%s: %w", ref, err)
			}
			if strings.TrimSpace(v) == "" {
				return "", fmt.Errorf("%s: the secret is empty", ref)
			}
			return v, nil
		}
	}
	return "", fmt.Errorf("%q is not a reference: it starts with neither %s nor %s", ref, PrefixSSM, PrefixSecretsManager)
}

// source is one kind of reference: its prefix, the words its errors use,
// the AWS error type of a missing secret, and its reader (nil without a
// client).
type source struct {
	prefix, idName, client, kind, notFound string
	read                                   func(ctx context.Context, id string) (string, error)
}

func (r Resolver) sources() [2]source {
	s := [2]source{
		{prefix: PrefixSSM, idName: "parameter name", client: "SSM", kind: "SSM parameter", notFound: "ParameterNotFound"},
		{prefix: PrefixSecretsManager, idName: "secret name or ARN", client: "Secrets Manager", kind: "Secrets Manager secret", notFound: "ResourceNotFoundException"},
	}
	if r.SSM != nil {
		s[0].read = r.SSM.Parameter
	}
	if r.SecretsManager != nil {
		s[1].read = r.SecretsManager.Secret
	}
	return s
}

// get reads the secret id names.
func (s source) get(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("no %s after %s", s.idName, s.prefix)
	}
	if s.read == nil {
		return "", fmt.Errorf("no %s client", s.client)
	}
	v, err := s.read(ctx, id)
	if isAPIError(err, s.notFound) {
		return "", fmt.Errorf("the %s %s does not exist in this account and region (create it, or correct the reference): %w", s.kind, id, err)
	}
	return v, err
}

// isAPIError reports whether err is the AWS error of that type.
func isAPIError(err error, typ string) bool {
	var ae *awscall.Error
	return errors.As(err, &ae) && ae.Code == typ
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
