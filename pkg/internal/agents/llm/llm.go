// Package llm is an agent that answers with a large language model: on
// Amazon Bedrock through the Converse API with the environment's AWS
// credentials (A2A_LLM_PROVIDER=bedrock), or behind any OpenAI-compatible
// Chat Completions endpoint (the default: OpenAI, Azure OpenAI's v1 API,
// Ollama, vLLM, llama.cpp, LiteLLM...).
//
// Each step sends the conversation of the context: the most recent messages
// of the context's earlier tasks (A2A_LLM_CONTEXT_MESSAGES, read from the
// task store), then the task's whole history, oldest messages dropped
// beyond A2A_LLM_MAX_HISTORY_CHARS. It answers with the model's reply: the
// task completes with the answer as its status message and as the artifact
// "answer", so a client continues the conversation with a new task in the
// same context. With A2A_LLM_CHAT=true the answer instead parks the task in
// input-required, so the client's next message on the same task continues
// it.
//
// A request may pick another model with metadata.shared.model
// ({"providerID", "modelID"}: modelID is used) in the message's metadata
// or the request's params.metadata, among A2A_LLM_ALLOWED_MODELS (none by
// default: the deployer pays for the model); any other is rejected before
// a call. Token usage is reported in the final status message's
// metadata.shared.usage ({input_tokens, output_tokens, total_tokens}).
//
// Upstream failures fail the task with a status message that says what
// happened. Throttling, HTTP 429 and 5xx answers and network errors are
// retried with exponential backoff (honouring Retry-After) while the
// step's budget allows; other 4xx answers are not retried. The budget is the step's
// deadline (minus a margin to record the outcome) or A2A_LLM_TIMEOUT_SECONDS
// when the runner sets none. The API key is sent only in the Authorization
// header: it is never logged, and never quoted in a status message.
package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Name is the agent's registry name.
const Name = "llm"

// Settings.
const (
	EnvProvider        = "A2A_LLM_PROVIDER"
	EnvBaseURL         = "A2A_LLM_BASE_URL"
	EnvAPIKey          = "A2A_LLM_API_KEY"
	EnvModel           = "A2A_LLM_MODEL"
	EnvSystemPrompt    = "A2A_LLM_SYSTEM_PROMPT"
	EnvMaxTokens       = "A2A_LLM_MAX_TOKENS"
	EnvAllowedModels   = "A2A_LLM_ALLOWED_MODELS"
	EnvChat            = "A2A_LLM_CHAT"
	EnvTimeout         = "A2A_LLM_TIMEOUT_SECONDS"
	EnvMaxHistoryChars = "A2A_LLM_MAX_HISTORY_CHARS"
	EnvContextMessages = "A2A_LLM_CONTEXT_MESSAGES"
)

// Providers (A2A_LLM_PROVIDER).
const (
	// ProviderOpenAI is any OpenAI-compatible Chat Completions endpoint
	// (A2A_LLM_BASE_URL, A2A_LLM_API_KEY): the default.
	ProviderOpenAI = "openai"
	// ProviderBedrock is Amazon Bedrock's Converse API, called with the
	// AWS credentials of the environment (in Lambda, the function's role)
	// in AWS_REGION.
	ProviderBedrock = "bedrock"
)

// AnyModel in A2A_LLM_ALLOWED_MODELS lets a request choose any model.
const AnyModel = "*"

// Defaults.
const (
	DefaultTimeout         = 120 * time.Second
	DefaultMaxHistoryChars = 200_000
	// DefaultContextMessages is A2A_LLM_CONTEXT_MESSAGES unset.
	DefaultContextMessages = 100
	DefaultRetryBase       = 500 * time.Millisecond
	maxRetryDelay          = 10 * time.Second
	maxModelIDLen          = 200
)

// KeySource returns the API key. The Lambda wiring passes one that resolves
// an SSM parameter or a Secrets Manager secret (and caches it); New reads
// A2A_LLM_API_KEY. An empty key sends no Authorization header (local
// endpoints such as Ollama need none).
type KeySource func(ctx context.Context) (string, error)

// StaticKey is a KeySource of a fixed key.
func StaticKey(key string) KeySource {
	return func(context.Context) (string, error) { return key, nil }
}

// Config is every setting of the agent.
type Config struct {
	// Provider is ProviderOpenAI (the default when empty) or
	// ProviderBedrock.
	Provider string
	// Bedrock says how to reach Bedrock (ProviderBedrock).
	Bedrock Bedrock
	// BaseURL is the endpoint's base URL (".../v1"); the agent posts to
	// BaseURL + "/chat/completions" (or to BaseURL itself when it already
	// ends with /chat/completions).
	BaseURL string
	// Model is the default model.
	Model string
	// APIKey supplies the key; nil means none.
	APIKey KeySource
	// SystemPrompt, when set, is sent first.
	SystemPrompt string
	// MaxTokens bounds the answer (max_tokens); 0 leaves the endpoint's
	// default.
	MaxTokens int
	// AllowedModels are the other models a request may choose (the
	// default model is always allowed); AnyModel among them allows any.
	// Empty: a request may not choose.
	AllowedModels []string
	// Chat makes every answer an input-required turn of the same task.
	Chat bool
	// Timeout is the step budget when the step's context has no deadline;
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxHistoryChars bounds the conversation sent; 0 means
	// DefaultMaxHistoryChars.
	MaxHistoryChars int
	// ContextMessages is how many messages of the context's earlier tasks
	// are sent before the task's own (agent.Info.ContextHistory); 0 sends
	// none, each task then starts afresh.
	ContextMessages int
	// RetryBase is the first retry delay, doubled at each attempt; 0 means
	// DefaultRetryBase.
	RetryBase time.Duration
	// HTTPClient sends the requests; nil means a new client without a
	// timeout of its own (the step budget bounds every call).
	HTTPClient *http.Client
	// Logger receives one line per upstream call (never the key or the
	// conversation); nil discards.
	Logger *slog.Logger
}

// Agent answers with a language model.
type Agent struct {
	cfg      Config
	provider provider
}

var _ agent.Agent = (*Agent)(nil)

// New builds the agent from the A2A_LLM_* settings.
func New(s agent.Settings) (agent.Agent, error) {
	return NewWithKeySource(s, nil)
}

// NewWithKeySource builds the agent from the A2A_LLM_* settings with the
// API key from keys (nil reads A2A_LLM_API_KEY).
func NewWithKeySource(s agent.Settings, keys KeySource) (agent.Agent, error) {
	cfg, err := ConfigFrom(s)
	if err != nil {
		return nil, err
	}
	if keys != nil {
		cfg.APIKey = keys
	}
	return NewAgent(cfg)
}

// ConfigFrom reads the A2A_LLM_* settings, reporting every bad or missing
// one by name.
func ConfigFrom(s agent.Settings) (Config, error) {
	var errs []error
	cfg := Config{
		Provider:      s.String(EnvProvider, ProviderOpenAI),
		BaseURL:       s.String(EnvBaseURL, ""),
		Model:         s.String(EnvModel, ""),
		SystemPrompt:  s.Get(EnvSystemPrompt),
		AllowedModels: s.List(EnvAllowedModels),
	}
	switch cfg.Provider {
	case ProviderOpenAI:
		if cfg.BaseURL == "" {
			errs = append(errs, fmt.Errorf("%s is required: the base URL of an OpenAI-compatible endpoint, for example https://api.openai.com/v1", EnvBaseURL))
		}
		if cfg.Model == "" {
			errs = append(errs, fmt.Errorf("%s is required: the model to use, for example gpt-4o-mini", EnvModel))
		}
	case ProviderBedrock:
		var err error
		cfg.Bedrock, err = BedrockFrom(s)
		errs = append(errs, err)
		if cfg.Model == "" {
			errs = append(errs, fmt.Errorf("%s is required: the Bedrock model id or inference profile to use, for example anthropic.claude-3-haiku-20240307-v1:0", EnvModel))
		}
	default:
		errs = append(errs, fmt.Errorf("%s=%q must be %s or %s", EnvProvider, cfg.Provider, ProviderOpenAI, ProviderBedrock))
	}
	if key := s.String(EnvAPIKey, ""); key != "" {
		cfg.APIKey = StaticKey(key)
	}
	intVar := func(name string, def, lo, hi int) int {
		n, err := s.Int(name, def, lo, hi)
		errs = append(errs, err)
		return n
	}
	cfg.MaxTokens = intVar(EnvMaxTokens, 0, 1, 1_000_000)
	cfg.Timeout = time.Duration(intVar(EnvTimeout, 0, 1, 3600)) * time.Second
	cfg.MaxHistoryChars = intVar(EnvMaxHistoryChars, 0, 1000, 10_000_000)
	cfg.ContextMessages = intVar(EnvContextMessages, DefaultContextMessages, 0, 1000)
	var err error
	cfg.Chat, err = s.Bool(EnvChat, false)
	errs = append(errs, err)
	return cfg, errors.Join(errs...)
}

// NewAgent builds the agent from cfg.
func NewAgent(cfg Config) (*Agent, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("%s is required", EnvModel)
	}
	cfg.Provider = cmp.Or(cfg.Provider, ProviderOpenAI)
	cfg.Timeout = positive.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxHistoryChars = positive.Or(cfg.MaxHistoryChars, DefaultMaxHistoryChars)
	cfg.RetryBase = positive.Or(cfg.RetryBase, DefaultRetryBase)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	a := &Agent{cfg: cfg}
	var err error
	switch cfg.Provider {
	case ProviderOpenAI:
		a.provider, err = newOpenAI(cfg)
	case ProviderBedrock:
		a.provider, err = newBedrock(cfg.Bedrock, cfg.MaxTokens, cfg.HTTPClient)
	default:
		err = fmt.Errorf("%s=%q must be %s or %s", EnvProvider, cfg.Provider, ProviderOpenAI, ProviderBedrock)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// newOpenAI is the Chat Completions provider of cfg.
func newOpenAI(cfg Config) (*openAI, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s=%q must be an absolute http(s) URL", EnvBaseURL, cfg.BaseURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s must not carry credentials; set %s", EnvBaseURL, EnvAPIKey)
	}
	endpoint := strings.TrimRight(u.String(), "/")
	if !strings.HasSuffix(endpoint, "/chat/completions") {
		endpoint += "/chat/completions"
	}
	key := cfg.APIKey
	if key == nil {
		key = StaticKey("")
	}
	return &openAI{endpoint: endpoint, key: key, maxTokens: cfg.MaxTokens, client: cfg.HTTPClient}, nil
}

// Info implements agent.Agent.
func (a *Agent) Info() agent.Info {
	desc := fmt.Sprintf("Answers with the %s language model. Each task is one question and its answer.", a.cfg.Model)
	if a.cfg.Chat {
		desc = fmt.Sprintf("Chats with the %s language model: every answer waits for your next message on the same task (input-required); cancel the task to end the conversation.", a.cfg.Model)
	}
	return agent.Info{
		Name:           "LLM agent",
		Description:    desc,
		Version:        "1.0.0",
		ContextHistory: a.cfg.ContextMessages,
		Skills: []a2a.AgentSkill{{
			ID: "chat", Name: "Chat", Tags: []string{"llm", "chat"},
			Description: "Answers your message with a language model; metadata.shared.model.modelID picks another model.",
			Examples:    []string{"Summarize the A2A protocol in two sentences."},
		}},
	}
}

// Step implements agent.Agent.
func (a *Agent) Step(ctx context.Context, in agent.StepInput, _ agent.Emitter) (agent.Outcome, error) {
	model, provider, problem := a.chooseModel(in)
	if problem != "" {
		return agent.Reject(agent.Text(problem)), nil
	}
	msgs := a.conversation(in)
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return agent.Reject(agent.Text("Send a message with some text for the model to answer.")), nil
	}
	budget, length, stop := a.budget(ctx)
	defer stop()
	res, err := a.complete(budget, model, msgs)
	if err != nil {
		if ctx.Err() != nil {
			return agent.Outcome{}, ctx.Err() // canceled, or the step's own deadline passed
		}
		var ue *upstreamError
		if errors.As(err, &ue) && ue.cutShort {
			err = fmt.Errorf("the model did not answer within the step budget of %s", length.Round(10*time.Millisecond))
		}
		return agent.Fail(agent.Text("The language model could not answer: " + err.Error())), nil
	}
	msg := agent.Text(res.text)
	modelMD := map[string]any{"modelID": model}
	if provider != "" {
		modelMD["providerID"] = provider
	}
	msg.Metadata = a2a.WithShared(a2a.WithShared(nil, a2a.SharedUsage,
		map[string]any{"input_tokens": res.usage.PromptTokens, "output_tokens": res.usage.CompletionTokens, "total_tokens": res.usage.TotalTokens}),
		a2a.SharedModel, modelMD)
	if a.cfg.Chat {
		return agent.AskQuestion(msg, map[string]any{"conversation": true}), nil
	}
	return agent.Complete(msg, a2a.Artifact{ArtifactID: "answer", Name: "answer", Parts: []a2a.Part{a2a.TextPart(res.text)}}), nil
}

// budget bounds the upstream calls of a step: the step's deadline minus a
// margin to store the outcome, or the configured timeout. It returns the
// bounded context and the budget's length.
func (a *Agent) budget(ctx context.Context) (context.Context, time.Duration, context.CancelFunc) {
	length := a.cfg.Timeout
	if deadline, ok := ctx.Deadline(); ok {
		left := time.Until(deadline)
		length = min(left-min(2*time.Second, left/10), length)
	}
	bounded, cancel := context.WithTimeout(ctx, length)
	return bounded, length, cancel
}

// chooseModel returns the model of the step: a metadata.shared.model
// override (the message's, else the request's) or the default.
func (a *Agent) chooseModel(in agent.StepInput) (model, provider, problem string) {
	var md a2a.Metadata
	if in.Message != nil && a2a.ModelOf(in.Message.Metadata) != nil {
		md = in.Message.Metadata
	} else {
		md = in.Metadata
	}
	m := a2a.ModelOf(md)
	model, provider = strings.TrimSpace(m.String("modelID")), strings.TrimSpace(m.String("providerID"))
	if model == "" || model == a.cfg.Model {
		return a.cfg.Model, provider, ""
	}
	if len(model) > maxModelIDLen || strings.IndexFunc(model, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return "", "", "metadata.shared.model.modelID is not a valid model name."
	}
	switch {
	case slices.Contains(a.cfg.AllowedModels, AnyModel), slices.Contains(a.cfg.AllowedModels, model):
	case len(a.cfg.AllowedModels) == 0:
		return "", "", fmt.Sprintf("Model %q is not allowed here: this agent answers with %s only (%s lists the models a request may choose).", model, a.cfg.Model, EnvAllowedModels)
	default:
		return "", "", fmt.Sprintf("Model %q is not allowed here; choose one of: %s.", model, strings.Join(append([]string{a.cfg.Model}, a.cfg.AllowedModels...), ", "))
	}
	return model, provider, ""
}

// conversation turns the task's history into chat messages: the system
// prompt, then user and assistant turns, oldest dropped beyond the size
// bound.
func (a *Agent) conversation(in agent.StepInput) []chatMessage {
	var msgs []chatMessage
	for _, m := range agent.Conversation(in) {
		text := strings.TrimSpace(messageText(m))
		if text == "" {
			continue
		}
		role := "user"
		if m.Role == a2a.RoleAgent {
			role = "assistant"
		}
		msgs = append(msgs, chatMessage{Role: role, Content: text})
	}
	size := 0
	cut := len(msgs)
	for cut > 0 && size+len(msgs[cut-1].Content) <= a.cfg.MaxHistoryChars {
		size += len(msgs[cut-1].Content)
		cut--
	}
	if cut == len(msgs) && cut > 0 { // the last message alone is too long: send it anyway
		cut--
	}
	msgs = msgs[cut:]
	if a.cfg.SystemPrompt != "" {
		msgs = append([]chatMessage{{Role: "system", Content: a.cfg.SystemPrompt}}, msgs...)
	}
	return msgs
}

// messageText renders a message for the model: text as it is, data parts
// as JSON, files by reference.
func messageText(m a2a.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch p.Kind {
		case a2a.PartKindText:
			b.WriteString(p.Text)
		case a2a.PartKindData:
			b.Write(p.Data)
		case a2a.PartKindFile:
			if p.File != nil {
				fmt.Fprintf(&b, "[attached file %s %s %s]", p.File.Name, p.File.MimeType, p.File.URI)
			}
		}
	}
	return b.String()
}
