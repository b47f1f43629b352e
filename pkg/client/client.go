package client

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/positive"
)

// Defaults.
const (
	// DefaultTimeout bounds one HTTP exchange when Options.HTTPClient is nil.
	DefaultTimeout = 2 * time.Minute
	// DefaultMaxResponseBytes bounds the body of one response.
	DefaultMaxResponseBytes = 32 << 20
	userAgent               = "a2a-lambda-client/1"
)

// Options configure a Client. The zero value discovers the interface from
// the agent card and talks without credentials.
type Options struct {
	// HTTPClient sends the requests; nil means a client with DefaultTimeout.
	HTTPClient *http.Client
	// Token is sent as "Authorization: Bearer <Token>" on every request
	// (the card fetch included). It is never logged.
	Token string
	// Version restricts the protocol version (a2a.V03 or a2a.V10; "1",
	// "1.0.1"... are read as a2a.NormalizeVersion reads them); empty lets
	// the card decide (1.0 when offered).
	Version a2a.Version
	// Binding restricts the binding ("JSONRPC" or "HTTP+JSON"; "jsonrpc"
	// and "rest" are accepted); empty follows the card's preference.
	Binding string
	// Endpoint, when set, is used as it is and the card is not fetched for
	// protocol calls.
	Endpoint *AgentInterface
	// MaxResponseBytes bounds a response body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Logger receives debug logs of each exchange (method, URL, status,
	// duration; never headers or bodies). nil discards them.
	Logger *slog.Logger
}

// Client talks to one A2A agent. It is safe for concurrent use.
type Client struct {
	target  string
	opts    Options
	http    *http.Client
	log     *slog.Logger
	maxBody int64
	ids     atomic.Int64

	mu   sync.Mutex
	card *Card
	ep   *AgentInterface
	sess *session
}

// session is how the client talks to the chosen interface: its version's
// wire and its binding's transport, chosen once.
type session struct {
	proto protocol
	tr    transport
}

// New returns a client of the agent at target: its base URL (the card is
// at target/.well-known/agent-card.json) or the URL of its card (ending in
// .json). New does no I/O: the card is fetched by the first call that needs
// it.
func New(target string, opts Options) *Client {
	c := &Client{target: strings.TrimRight(target, "/"), opts: opts, http: opts.HTTPClient, log: opts.Logger, maxBody: opts.MaxResponseBytes}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultTimeout}
	}
	c.log = cmp.Or(c.log, slog.New(slog.DiscardHandler))
	c.maxBody = positive.Or(c.maxBody, DefaultMaxResponseBytes)
	if opts.Endpoint != nil {
		ep := *opts.Endpoint
		ep.Version = a2a.NormalizeVersion(string(ep.Version))
		ep.Binding = canonicalBinding(ep.Binding)
		c.ep = &ep
	}
	return c
}

// session returns the session of the chosen interface, choosing it on
// first use.
func (c *Client) session(ctx context.Context) (*session, error) {
	c.mu.Lock()
	s := c.sess
	c.mu.Unlock()
	if s != nil {
		return s, nil
	}
	ep, err := c.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	if !usable(ep) {
		return nil, fmt.Errorf("this client speaks A2A 0.3 and 1.0 over JSONRPC and HTTP+JSON, not %s %s", ep.Binding, ep.Version)
	}
	s = &session{proto: newProtocol(ep.Version, ep.Tenant), tr: c.newTransport(ep)}
	c.mu.Lock()
	c.sess = s
	c.mu.Unlock()
	return s, nil
}

// Endpoint returns the interface the client talks to, fetching the card
// and choosing one on first use.
func (c *Client) Endpoint(ctx context.Context) (AgentInterface, error) {
	c.mu.Lock()
	ep := c.ep
	c.mu.Unlock()
	if ep != nil {
		return *ep, nil
	}
	card, err := c.Card(ctx)
	if err != nil {
		return AgentInterface{}, err
	}
	chosen, err := SelectInterface(card, c.opts.Version, c.opts.Binding)
	if err != nil {
		return AgentInterface{}, err
	}
	chosen.URL = c.resolve(chosen.URL)
	c.mu.Lock()
	c.ep = &chosen
	c.mu.Unlock()
	return chosen, nil
}

// jsonrpcEndpoint returns a JSON-RPC interface of the chosen version, for
// the extension methods that only exist over JSON-RPC.
func (c *Client) jsonrpcEndpoint(ctx context.Context) (AgentInterface, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil || ep.Binding == BindingJSONRPC {
		return ep, err
	}
	c.mu.Lock()
	card := c.card
	c.mu.Unlock()
	if card == nil {
		if card, err = c.Card(ctx); err != nil {
			return AgentInterface{}, err
		}
	}
	alt, err := SelectInterface(card, ep.Version, BindingJSONRPC)
	if err != nil {
		return AgentInterface{}, fmt.Errorf("this operation needs a JSON-RPC interface: %w", err)
	}
	alt.URL = c.resolve(alt.URL)
	return alt, nil
}

// resolve makes a card URL absolute against the card's own URL.
func (c *Client) resolve(ref string) string {
	u, err := url.Parse(ref)
	if err != nil || u.IsAbs() {
		return ref
	}
	base, err := url.Parse(cardURL(c.target))
	if err != nil {
		return ref
	}
	return base.ResolveReference(u).String()
}

func (c *Client) authorize(req *http.Request) {
	req.Header.Set("User-Agent", userAgent)
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
}

// roundTrip sends req and reads the whole (bounded) body.
func (c *Client) roundTrip(req *http.Request) (*http.Response, []byte, error) {
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read response: %w", err)
	}
	if int64(len(body)) > c.maxBody {
		return nil, nil, fmt.Errorf("response larger than %d bytes", c.maxBody)
	}
	c.log.DebugContext(req.Context(), "a2a exchange", "method", req.Method, "url", req.URL.Redacted(),
		"status", resp.StatusCode, "ms", time.Since(start).Milliseconds())
	return resp, body, nil
}

// prepare sets the headers every protocol request carries.
func (c *Client) prepare(req *http.Request, ep AgentInterface) {
	req.Header.Set("Accept", "application/json, application/a2a+json")
	if ep.Version == a2a.V10 {
		req.Header.Set(a2a.HeaderVersion, string(a2a.V10))
	}
	c.authorize(req)
}

// call sends one operation over the chosen interface: build makes the
// request from the version's wire, read decodes the answer with it.
func call[T any](ctx context.Context, c *Client, build func(protocol) (operation, json.RawMessage, error), read func(protocol, json.RawMessage) (T, error)) (T, error) {
	var zero T
	s, err := c.session(ctx)
	if err != nil {
		return zero, err
	}
	op, params, err := build(s.proto)
	if err != nil {
		return zero, err
	}
	raw, err := s.tr.do(ctx, op, params)
	if err != nil {
		return zero, err
	}
	if read == nil {
		return zero, nil
	}
	return read(s.proto, raw)
}

// CallJSONRPC calls an extension method over the agent's JSON-RPC interface
// (of the chosen protocol version) and decodes its result into out, which
// may be nil.
func (c *Client) CallJSONRPC(ctx context.Context, method string, params, out any) error {
	ep, err := c.jsonrpcEndpoint(ctx)
	if err != nil {
		return err
	}
	var body json.RawMessage
	if params != nil {
		if body, err = json.Marshal(params); err != nil {
			return fmt.Errorf("%s: encode request: %w", method, err)
		}
	}
	raw, err := c.newTransport(ep).do(ctx, operation{method: method}, body)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", method, err)
	}
	return nil
}
