// Package lambdafn is what every Lambda function's main shares and what
// needs no AWS SDK service client: the HTTP API adapter, reporting a failed
// cold start, the JSON logger, resolving secret references (pkg/secrets
// reads them without the SSM and Secrets Manager clients), the push signing
// keys, and the whole card function.
//
// It must not import the AWS SDK's service clients, nor its default
// configuration loader (pkg/app does): Go runs every linked package's
// initialization at cold start, and the SDK's service packages are costly
// to initialize (GODEBUG=inittrace=1 shows ssm/schemas, dynamodb/schemas,
// ...). A test in functions/ holds the card binary to that.
package lambdafn

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/card"
	"github.com/a2a-lambda/a2a-lambda/pkg/config"
	"github.com/a2a-lambda/a2a-lambda/pkg/httpapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/push/keys"
	"github.com/a2a-lambda/a2a-lambda/pkg/runtimeapi"
	"github.com/a2a-lambda/a2a-lambda/pkg/secrets"
	"github.com/a2a-lambda/a2a-lambda/pkg/telemetry"
)

// HTTPFunc is the handler of a Lambda behind an API Gateway HTTP API
// (payload format 2.0).
type HTTPFunc func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// MaxResponseBytes is the largest response body an HTTP function returns:
// Lambda refuses a synchronous response above 6 MB (6,291,456 bytes) of
// JSON, and the API Gateway event's status and headers take the rest.
const MaxResponseBytes = 6<<20 - 32<<10

// ResponseSize is how many bytes body takes in the function's response, as
// aws-lambda-go-api-proxy and aws-lambda-go encode it: base64 when it is not
// UTF-8 (gzip-compressed), else a JSON string with encoding/json's escapes.
func ResponseSize(body []byte) int {
	if !utf8.Valid(body) {
		return base64.StdEncoding.EncodedLen(len(body)) + 2
	}
	n := 2
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xe2 && i+2 < len(body) && body[i+1] == 0x80 && (body[i+2] == 0xa8 || body[i+2] == 0xa9):
			n += 6 // U+2028, U+2029
			i += 3
			continue
		default:
			n++
		}
		i++
	}
	return n
}

// LambdaHTTP adapts an http.Handler to an HTTP API Lambda handler. When the
// adapter fails (a handler that wrote no status, say) or the response
// would exceed Lambda's limit (httpapi answers that in the protocol's
// shape before; this is the last guard), it logs the failure as JSON on
// log and answers a JSON 500 itself: Lambda would otherwise fail the
// invocation and API Gateway answer a bare 500.
func LambdaHTTP(h http.Handler, log *slog.Logger) HTTPFunc {
	adapter := httpadapter.NewV2(h)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// What adapter.ProxyWithContext does, without its plain-text log line.
	proxy := func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		req, err := adapter.EventToRequestWithContext(ctx, ev)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("convert the event to a request: %w", err)
		}
		w := core.NewProxyResponseWriterV2()
		h.ServeHTTP(w, req)
		return w.GetProxyResponse()
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		resp, err := proxy(ctx, ev)
		if err != nil {
			log.ErrorContext(ctx, "the HTTP adapter failed", "route", ev.RouteKey, "path", ev.RawPath, "error", err.Error())
			return adapterError("INTERNAL", "internal error; the server logged the cause"), nil
		}
		size := len(resp.Body) + 2
		if !resp.IsBase64Encoded {
			size = ResponseSize([]byte(resp.Body))
		}
		if size > MaxResponseBytes {
			log.ErrorContext(ctx, "the response is too large for Lambda", "route", ev.RouteKey, "path", ev.RawPath, "status", resp.StatusCode, "bytes", size)
			return adapterError("INTERNAL", fmt.Sprintf("the response would take %d bytes, above AWS Lambda's limit of 6 MB: ask for less", size)), nil
		}
		return resp, nil
	}
}

// adapterError is a google.rpc.Status 500 response, as httpapi's own.
func adapterError(status, message string) events.APIGatewayV2HTTPResponse {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": http.StatusInternalServerError, "status": status, "message": message}})
	return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusInternalServerError, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
}

// NewLogger returns the JSON logger every binary uses: each line carries
// the fields of its invocation and never a secret (see pkg/telemetry).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(telemetry.NewHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// Cards returns the card source of an agent.
func Cards(info agent.Info, bearer, push bool, versions []a2a.Version) httpapi.CardSource {
	return func(publicURL string) (a2a.AgentCard, a2a.AgentCard) {
		o := card.Options{PublicURL: publicURL, Agent: info, BearerAuth: bearer, PushNotifications: push, Versions: versions}
		return card.Public(o), card.Extended(o)
	}
}

// GzipMinimumSize maps A2A_HTTP_GZIP_MINIMUM_SIZE to httpapi's option, in
// which 0 means the default: a configured 0 compresses every body.
func GzipMinimumSize(cfg config.Config) int {
	return max(cfg.GzipMinimumSize, 1)
}

// NewCardFunction builds the card function's handler: the public cards and
// the push notification JWKS, nothing else; its only AWS access is reading
// the signing keys when A2A_PUSH_SIGNING_KEYS is a reference. A deployed
// agent always requires authentication (bearer tokens, or a JWT as a
// bearer token), so its card declares the bearer scheme. Without A2A_PUBLIC_URL the card's URLs are
// those the request was addressed to (the API's own domain, or its custom
// domain).
func NewCardFunction(ctx context.Context, getenv func(string) string, reg *agent.Registry, logOut io.Writer) (http.Handler, error) {
	getenv, err := ResolveSecrets(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	ag, err := reg.New(cfg.Agent, getenv)
	if err != nil {
		return nil, err
	}
	log := NewLogger(logOut, cfg.LogLevel)
	o := httpapi.Options{
		Routes:          httpapi.RoutesCard,
		Cards:           Cards(ag.Info(), true, cfg.Push.Enabled, cfg.ProtocolVersions),
		Versions:        cfg.ProtocolVersions,
		PublicURL:       cfg.ConfiguredPublicURL,
		GzipMinimumSize: GzipMinimumSize(cfg),
		Logger:          log,
	}
	if cfg.Push.Enabled {
		ks, err := PushKeys(cfg, false, log)
		if err != nil {
			return nil, err
		}
		o.JWKS = ks
	}
	return httpapi.New(o)
}

// PushKeys returns the push notification signing keys of
// A2A_PUSH_SIGNING_KEYS. Without them, the local server (generate) makes a
// new ES256 key, which lives as long as the process; the Lambda functions
// refuse to start.
func PushKeys(cfg config.Config, generate bool, log *slog.Logger) (*keys.Set, error) {
	if cfg.Push.SigningKeys != "" {
		ks, err := keys.Parse([]byte(cfg.Push.SigningKeys))
		if err != nil {
			return nil, fmt.Errorf("A2A_PUSH_SIGNING_KEYS: %w", err)
		}
		return ks, nil
	}
	if !generate {
		return nil, errors.New("A2A_PUSH_SIGNING_KEYS is required to sign push notifications (PEM text, or an ssm: or secretsmanager: reference), or set A2A_PUSH_NOTIFICATIONS=false")
	}
	ks, err := keys.Generate(keys.AlgES256)
	if err != nil {
		return nil, err
	}
	if log != nil {
		log.Info("push notifications are signed with a key generated at start-up; receivers refetch the JWKS after a restart (set A2A_PUSH_SIGNING_KEYS to keep one)", "kid", ks.KeyID())
	}
	return ks, nil
}

// ResolveSecrets returns getenv with the secret references among
// config.SecretVariables resolved (ssm:<name>, secretsmanager:<name or
// ARN>; see pkg/secrets), read once with the environment's credentials (the
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

// InitFailed reports that a function could not start: as a JSON log line on
// stderr and, inside Lambda (AWS_LAMBDA_RUNTIME_API is set), to the Runtime
// API's init error endpoint, so that Lambda records the reason as the error
// of the invocation that caused the cold start. The caller exits afterwards.
func InitFailed(ctx context.Context, getenv func(string) string, stderr io.Writer, function string, err error) {
	log := NewLogger(stderr, slog.LevelInfo).With("function", function)
	log.ErrorContext(ctx, "cold start failed", "error", err.Error())
	if api := getenv(runtimeapi.EnvAPI); api != "" {
		if rerr := runtimeapi.ReportInitError(ctx, http.DefaultClient, api, fmt.Errorf("%s: %w", function, err)); rerr != nil {
			log.ErrorContext(ctx, "could not report the failed cold start", "error", rerr.Error())
		}
	}
}
