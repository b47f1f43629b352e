package boot

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/startup"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
)

// The start-up the local server shares with the functions lives in
// pkg/internal/startup, which does not link the Lambda runtime client;
// these are its names for the functions of other modules.

// Env is what a function starts from: the environment with its secret
// references resolved, the configuration read from it, and the logger at
// the configured level.
type Env = startup.Env

// Edge is what an HTTP handler is assembled from besides the configuration
// and the agent's description (HandlerOptions).
type Edge = startup.Edge

// MaxResponseBytes is the largest response body an HTTP function returns
// (Lambda's limit on a synchronous response, less the event's status and
// headers).
const MaxResponseBytes = startup.MaxResponseBytes

// Start reads a function's environment through getenv: secret references
// resolved (ResolveSecrets), the configuration loaded, each check run on
// it, and a JSON logger on logOut, on which the configuration's warnings
// are logged. Call it once per cold start.
func Start(ctx context.Context, getenv func(string) string, logOut io.Writer, checks ...func(config.Config) error) (Env, error) {
	return startup.Start(ctx, getenv, logOut, checks...)
}

// ResolveSecrets returns getenv with the secret references among
// config.SecretVariables resolved (ssm:<name>, secretsmanager:<name or
// ARN>); without references it returns getenv itself.
func ResolveSecrets(ctx context.Context, getenv func(string) string) (func(string) string, error) {
	return startup.ResolveSecrets(ctx, getenv)
}

// LogWarnings logs, once at start, each setting the configuration corrected
// rather than refused (config.Config.Warnings).
func LogWarnings(ctx context.Context, log *slog.Logger, cfg config.Config) {
	startup.LogWarnings(ctx, log, cfg)
}

// NewLogger returns the JSON logger every binary uses.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return startup.NewLogger(w, level)
}

// AWSConfig is the AWS configuration of a Lambda function, built from what
// Lambda puts in its environment (region, the role's credentials, and
// AWS_ENDPOINT_URL when set), without the SDK's default loader.
func AWSConfig(cfg config.Config, getenv func(string) string) (aws.Config, error) {
	return startup.AWSConfig(cfg, getenv)
}

// HandlerOptions are the options of the HTTP handler of the agent info
// describes, configured by cfg (cards, protocol versions, public URL,
// limits, compression, CORS, callers' rate limits).
func HandlerOptions(cfg config.Config, info agent.Info, e Edge) httpapi.Options {
	return startup.HandlerOptions(cfg, info, e)
}

// PushKeys returns the push notification signing keys of
// A2A_PUSH_SIGNING_KEYS; without them it generates a key when generate is
// set (the local server), else it refuses.
func PushKeys(cfg config.Config, generate bool, log *slog.Logger) (*keys.Set, error) {
	return startup.PushKeys(cfg, generate, log)
}

// ResponseSize is how many bytes body takes in the function's response, as
// boot.LambdaHTTP and aws-lambda-go encode it.
func ResponseSize(body []byte) int { return startup.ResponseSize(body) }

// ResponseFits reports whether any body of n bytes takes at most limit
// bytes in a response, however it is encoded.
func ResponseFits(n, limit int) bool { return startup.ResponseFits(n, limit) }
