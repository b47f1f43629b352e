package llm

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/secrets"
)

// EnvBedrockEndpoint replaces Bedrock Runtime's regional endpoint, as it
// does for the AWS SDKs (AWS_ENDPOINT_URL, for every service, comes after
// it): a local stand-in.
const EnvBedrockEndpoint = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"

// Bedrock says how the agent reaches Amazon Bedrock.
//
// The provider speaks the Converse API's REST-JSON wire format itself,
// signed with Signature Version 4 (as pkg/internal/secrets does for its two calls):
// the SDK's bedrockruntime client would add 1.2 MB to every function that
// runs the agent (send would weigh 11.1 MB, over the 10 MB its deployed
// binary is held to) and its schema tables to every cold start. A test
// holds this client to the SDK's: the same request, the same reading of
// answers and errors.
type Bedrock struct {
	// Region is AWS_REGION (or AWS_DEFAULT_REGION).
	Region string
	// EndpointURL, when set, replaces the regional endpoint
	// (AWS_ENDPOINT_URL_BEDROCK_RUNTIME, else AWS_ENDPOINT_URL).
	EndpointURL string
	// Credentials sign the requests: the environment's
	// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which
	// in Lambda are the function role's.
	Credentials aws.CredentialsProvider
}

// BedrockFrom reads how to reach Bedrock from the AWS variables of the
// environment (through s, which reads the environment first).
func BedrockFrom(s agent.Settings) (Bedrock, error) {
	b := Bedrock{
		Region:      cmp.Or(s.String("AWS_REGION", ""), s.String("AWS_DEFAULT_REGION", "")),
		EndpointURL: cmp.Or(s.String(EnvBedrockEndpoint, ""), s.String("AWS_ENDPOINT_URL", "")),
	}
	var errs []error
	if b.Region == "" {
		errs = append(errs, fmt.Errorf("%s=%s needs AWS_REGION (Lambda sets it)", EnvProvider, ProviderBedrock))
	}
	creds, err := secrets.EnvCredentials(s.Get)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s=%s signs with the environment's AWS credentials: %w", EnvProvider, ProviderBedrock, err))
	}
	b.Credentials = creds
	return b, errors.Join(errs...)
}

// bedrock is the Converse provider.
type bedrock struct {
	region    string
	base      string
	creds     aws.CredentialsProvider
	signer    *v4.Signer
	maxTokens int
	client    *http.Client
}

func newBedrock(b Bedrock, maxTokens int, client *http.Client) (*bedrock, error) {
	if b.Region == "" {
		return nil, fmt.Errorf("%s=%s needs AWS_REGION", EnvProvider, ProviderBedrock)
	}
	if b.Credentials == nil {
		return nil, fmt.Errorf("%s=%s needs AWS credentials", EnvProvider, ProviderBedrock)
	}
	base := "https://bedrock-runtime." + b.Region + ".amazonaws.com"
	if strings.HasPrefix(b.Region, "cn-") {
		base += ".cn"
	}
	if b.EndpointURL != "" {
		u, err := url.Parse(b.EndpointURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s=%q must be an absolute http(s) URL", EnvBedrockEndpoint, b.EndpointURL)
		}
		base = strings.TrimRight(b.EndpointURL, "/")
	}
	return &bedrock{region: b.Region, base: base, creds: b.Credentials, signer: v4.NewSigner(), maxTokens: maxTokens, client: client}, nil
}

// The Converse wire format (the subset this agent uses).

type converseText struct {
	Text string `json:"text"`
}

type converseMessage struct {
	Role    string         `json:"role"`
	Content []converseText `json:"content"`
}

type converseRequest struct {
	Messages        []converseMessage `json:"messages"`
	System          []converseText    `json:"system,omitempty"`
	InferenceConfig *inferenceConfig  `json:"inferenceConfig,omitempty"`
}

type inferenceConfig struct {
	MaxTokens int `json:"maxTokens,omitempty"`
}

type converseResponse struct {
	Output struct {
		Message *struct {
			Content []struct {
				Text *string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string `json:"stopReason"`
	Usage      *struct {
		InputTokens  int `json:"inputTokens"`
		OutputTokens int `json:"outputTokens"`
		TotalTokens  int `json:"totalTokens"`
	} `json:"usage"`
}

// converseBody turns the conversation into a Converse request: the system
// message apart, and turns that alternate and start with the user, as the
// API requires (consecutive messages of one role are joined, the agent's
// before the first user message dropped).
func (b *bedrock) converseBody(msgs []chatMessage) converseRequest {
	var req converseRequest
	for _, m := range msgs {
		switch {
		case m.Role == "system":
			req.System = append(req.System, converseText{Text: m.Content})
		case len(req.Messages) == 0 && m.Role != "user":
		case len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == m.Role:
			last := &req.Messages[len(req.Messages)-1]
			last.Content[0].Text += "\n\n" + m.Content
		default:
			req.Messages = append(req.Messages, converseMessage{Role: m.Role, Content: []converseText{{Text: m.Content}}})
		}
	}
	if b.maxTokens > 0 {
		req.InferenceConfig = &inferenceConfig{MaxTokens: b.maxTokens}
	}
	return req
}

// call implements provider: one signed Converse request.
func (b *bedrock) call(ctx context.Context, model string, msgs []chatMessage) (*answer, time.Duration, error) {
	body, err := json.Marshal(b.converseBody(msgs))
	if err != nil {
		return nil, 0, fmt.Errorf("encode the request: %w", err)
	}
	endpoint := b.base + "/model/" + escapeLabel(model) + "/converse"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	creds, err := b.creds.Retrieve(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("could not get AWS credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := b.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "bedrock", b.region, time.Now()); err != nil {
		return nil, 0, fmt.Errorf("sign the request: %w", err)
	}
	resp, raw, err := send(ctx, b.client, req)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, bedrockError(resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"), raw, model)
	}
	return parseConverse(raw)
}

// escapeLabel escapes a URI label as the AWS SDKs do: every byte but the
// unreserved characters of RFC 3986, so that a model ARN's ':' and '/'
// stay in the one path segment.
func escapeLabel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// bedrockError words a Converse error: the exception's name (from
// X-Amzn-ErrorType, else the body's code or __type) and Bedrock's own
// message. Throttling, a model not ready yet, a model timeout and server
// errors are retried. An access denial does not quote Bedrock's message,
// which names the function's role and account.
func bedrockError(status int, header string, raw []byte, model string) *upstreamError {
	var body struct {
		Code     string `json:"code"`
		Type     string `json:"__type"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	_ = json.Unmarshal(raw, &body)
	code := sanitizeErrorCode(cmp.Or(header, body.Code, body.Type))
	e := &upstreamError{status: status}
	switch code {
	case "ThrottlingException", "ModelNotReadyException", "ServiceUnavailableException", "InternalServerException", "ModelTimeoutException":
		e.retryable = true
	case "":
		code = fmt.Sprintf("HTTP %d", status)
		e.retryable = status == http.StatusTooManyRequests || status >= 500
	}
	switch code {
	case "AccessDeniedException", "UnrecognizedClientException", "ExpiredTokenException":
		e.message = fmt.Sprintf("Bedrock refused the function's credentials for model %s (%s): the role needs bedrock:InvokeModel on it, and the model access enabled in the account", model, code)
		return e
	case "ThrottlingException":
		e.message = "Bedrock is throttling requests (ThrottlingException)"
	default:
		e.message = "Bedrock answered " + code
	}
	if msg := strings.Join(strings.Fields(cmp.Or(body.Message, body.MessageU)), " "); msg != "" {
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		e.message += ": " + msg
	}
	return e
}

// sanitizeErrorCode reads an exception's name in its AWS forms
// ("aws.protocols#Name", "Name:http://...").
func sanitizeErrorCode(code string) string {
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	return strings.TrimSpace(code)
}

// parseConverse reads a Converse answer: its text blocks and usage.
func parseConverse(raw []byte) (*answer, time.Duration, error) {
	var r converseResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, 0, &upstreamError{status: http.StatusOK, message: "Bedrock's answer is not Converse JSON"}
	}
	var text strings.Builder
	if r.Output.Message != nil {
		for _, c := range r.Output.Message.Content {
			if c.Text != nil {
				text.WriteString(*c.Text)
			}
		}
	}
	if strings.TrimSpace(text.String()) == "" {
		reason := "an empty answer"
		if r.StopReason != "" {
			reason += " (stop reason " + r.StopReason + ")"
		}
		return nil, 0, &upstreamError{status: http.StatusOK, message: "the model returned " + reason}
	}
	a := &answer{text: text.String()}
	if r.Usage != nil {
		a.usage = chatUsage{PromptTokens: r.Usage.InputTokens, CompletionTokens: r.Usage.OutputTokens, TotalTokens: r.Usage.TotalTokens}
		if a.usage.TotalTokens == 0 {
			a.usage.TotalTokens = a.usage.PromptTokens + a.usage.CompletionTokens
		}
	}
	return a, 0, nil
}
