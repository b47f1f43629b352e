package secrets_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// countingSSM counts the parameters read.
type countingSSM struct {
	secrets.ParameterReader
	reads atomic.Int32
}

func (c *countingSSM) Parameter(ctx context.Context, name string) (string, error) {
	c.reads.Add(1)
	return c.ParameterReader.Parameter(ctx, name)
}

// fixture stores secrets in moto's SSM and Secrets Manager under names
// unique to the test (with the SDK's clients), and reads them with the
// resolver's own light client.
type fixture struct {
	prefix   string
	ssm      *countingSSM
	put      *ssm.Client
	sm       *secretsmanager.Client
	resolver secrets.Resolver
}

func newFixture(t *testing.T) *fixture {
	cfg := awstest.Config(t)
	reader := &secrets.AWS{Region: cfg.Region, Credentials: cfg.Credentials, EndpointURL: aws.ToString(cfg.BaseEndpoint)}
	f := &fixture{prefix: "/" + awstest.UniqueName(t, "secrets"), ssm: &countingSSM{ParameterReader: reader},
		put: ssm.NewFromConfig(cfg), sm: secretsmanager.NewFromConfig(cfg)}
	f.resolver = secrets.Resolver{SSM: f.ssm, SecretsManager: reader}
	return f
}

func (f *fixture) parameter(t *testing.T, name, value string, typ ssmtypes.ParameterType) string {
	_, err := f.put.PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String(f.prefix + "/" + name), Value: aws.String(value), Type: typ,
	})
	require.NoError(t, err)
	return "ssm:" + f.prefix + "/" + name
}

func (f *fixture) secret(t *testing.T, name string, in *secretsmanager.CreateSecretInput) (string, string) {
	in.Name = aws.String(strings.TrimPrefix(f.prefix, "/") + "/" + name)
	out, err := f.sm.CreateSecret(context.Background(), in)
	require.NoError(t, err)
	return "secretsmanager:" + *in.Name, "secretsmanager:" + *out.ARN
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	secure := f.parameter(t, "bearer-token", "s3cret-token", ssmtypes.ParameterTypeSecureString)
	plainParam := f.parameter(t, "plain", "not-encrypted", ssmtypes.ParameterTypeString)
	byName, byARN := f.secret(t, "llm-key", &secretsmanager.CreateSecretInput{SecretString: aws.String("sk-live-123")})
	binary, _ := f.secret(t, "binary", &secretsmanager.CreateSecretInput{SecretBinary: []byte{1, 2, 3}})

	tests := []struct {
		name, ref, want, wantErr string
	}{
		{"SecureString, decrypted", secure, "s3cret-token", ""},
		{"String parameter", plainParam, "not-encrypted", ""},
		{"surrounding blanks", "  " + secure + " ", "s3cret-token", ""},
		{"secret by name", byName, "sk-live-123", ""},
		{"secret by ARN", byARN, "sk-live-123", ""},
		{"missing parameter", "ssm:" + f.prefix + "/missing", "", "ParameterNotFound"},
		{"missing secret", "secretsmanager:" + f.prefix + "/missing", "", "ResourceNotFoundException"},
		{"binary secret", binary, "", "binary secrets are not supported"},
		{"no name", "ssm:", "", "no parameter name after ssm:"},
		{"no secret id", "secretsmanager:", "", "no secret name or ARN"},
		{"not a reference", "s3cret-token", "", "is not a reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := f.resolver.Resolve(context.Background(), tt.ref)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestEnv(t *testing.T) {
	f := newFixture(t)
	token := f.parameter(t, "token", "tok-1", ssmtypes.ParameterTypeSecureString)
	tokens := f.parameter(t, "tokens", "alice:tok-a,bob:tok-b", ssmtypes.ParameterTypeSecureString)
	key, _ := f.secret(t, "llm", &secretsmanager.CreateSecretInput{SecretString: aws.String("sk-1")})
	env := map[string]string{
		"A2A_BEARER_TOKEN":  token,
		"A2A_BEARER_TOKENS": tokens,
		"A2A_LLM_API_KEY":   key,
		"A2A_PROXY_TOKEN":   token, // the same reference twice is read once
		"A2A_PUSH_KEYS":     "plain-value",
		"A2A_AGENT":         token, // not a secret variable: left as it is
	}
	names := []string{"A2A_BEARER_TOKEN", "A2A_BEARER_TOKENS", "A2A_LLM_API_KEY", "A2A_PROXY_TOKEN", "A2A_PUSH_KEYS"}
	require.True(t, secrets.References(func(k string) string { return env[k] }, names))

	getenv, err := f.resolver.Env(context.Background(), func(k string) string { return env[k] }, names)
	require.NoError(t, err)
	for name, want := range map[string]string{
		"A2A_BEARER_TOKEN": "tok-1", "A2A_BEARER_TOKENS": "alice:tok-a,bob:tok-b", "A2A_LLM_API_KEY": "sk-1",
		"A2A_PROXY_TOKEN": "tok-1", "A2A_PUSH_KEYS": "plain-value", "A2A_AGENT": token, "A2A_UNSET": "",
	} {
		assert.Equal(t, want, getenv(name), name)
	}
	assert.EqualValues(t, 2, f.ssm.reads.Load(), "each distinct reference is read once")

	// Every failure is reported at once, naming the variable, never a value.
	env["A2A_BEARER_TOKEN"] = "ssm:" + f.prefix + "/gone"
	env["A2A_LLM_API_KEY"] = "secretsmanager:" + f.prefix + "/gone"
	_, err = f.resolver.Env(context.Background(), func(k string) string { return env[k] }, names)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "A2A_BEARER_TOKEN: ssm:"+f.prefix+"/gone")
	assert.Contains(t, err.Error(), "A2A_LLM_API_KEY: secretsmanager:"+f.prefix+"/gone")
	assert.NotContains(t, err.Error(), "tok-")

	plain := map[string]string{"A2A_BEARER_TOKEN": "local-token"}
	assert.False(t, secrets.References(func(k string) string { return plain[k] }, names))
	getenv, err = secrets.Resolver{}.Env(context.Background(), func(k string) string { return plain[k] }, names)
	require.NoError(t, err, "plain values need no client")
	assert.Equal(t, "local-token", getenv("A2A_BEARER_TOKEN"))
}

// The light client signs its requests and reads AWS's error bodies.
func TestAWSClient(t *testing.T) {
	assert.Equal(t, "https://ssm.eu-west-1.amazonaws.com/", endpointOf(t, "eu-west-1", "ssm"))
	assert.Equal(t, "https://secretsmanager.cn-north-1.amazonaws.com.cn/", endpointOf(t, "cn-north-1", "secretsmanager"))

	f := newFixture(t)
	cfg := awstest.Config(t)
	unsigned := &secrets.AWS{Region: cfg.Region, EndpointURL: aws.ToString(cfg.BaseEndpoint)}
	_, err := unsigned.Parameter(context.Background(), "x")
	assert.ErrorContains(t, err, "no AWS credentials")
	_, err = (&secrets.AWS{Credentials: cfg.Credentials}).Secret(context.Background(), "x")
	assert.ErrorContains(t, err, "no AWS region")

	_, err = f.resolver.Resolve(context.Background(), "ssm:"+f.prefix+"/missing")
	var ae *awscall.Error
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "ParameterNotFound", ae.Code)
	assert.Equal(t, 400, ae.StatusCode)

	creds, err := secrets.EnvCredentials(func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "session"}[k]
	})
	require.NoError(t, err)
	c, err := creds.Retrieve(context.Background())
	require.NoError(t, err)
	assert.Equal(t, aws.Credentials{AccessKeyID: "id", SecretAccessKey: "secret", SessionToken: "session", Source: "environment"}, c)
	_, err = secrets.EnvCredentials(func(string) string { return "" })
	assert.ErrorContains(t, err, "AWS_ACCESS_KEY_ID")
}

// endpointOf is the URL the client posts to for service in region, seen by
// a server that answers every request.
func endpointOf(t *testing.T, region, service string) string {
	t.Helper()
	var got string
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		got = r.URL.String()
		assert.NotEmpty(t, r.Header.Get("Authorization"), "the request is signed")
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"Parameter":{"Value":"v"},"SecretString":"v"}`)), Header: http.Header{}}, nil
	})}
	creds, err := secrets.EnvCredentials(func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}[k]
	})
	require.NoError(t, err)
	a := &secrets.AWS{Region: region, Credentials: creds, HTTPClient: client}
	if service == "ssm" {
		_, err = a.Parameter(context.Background(), "p")
	} else {
		_, err = a.Secret(context.Background(), "s")
	}
	require.NoError(t, err)
	return got
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
