package client

import (
	"bytes"
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
	// Version restricts the protocol version ("0.3" or "1.0"); empty lets
	// the card decide (1.0 when offered).
	Version string
	// Binding restricts the binding ("JSONRPC" or "HTTP+JSON"; "jsonrpc"
	// and "rest" are accepted); empty follows the card's preference.
	Binding string
	// Endpoint, when set, is used as it is and the card is not fetched for
	// protocol calls.
	Endpoint *Interface
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
	ep   *Interface
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
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxResponseBytes
	}
	if opts.Endpoint != nil {
		ep := *opts.Endpoint
		ep.Version = normalizeVersion(ep.Version)
		ep.Binding = canonicalBinding(ep.Binding)
		c.ep = &ep
	}
	return c
}

// Endpoint returns the interface the client talks to, fetching the card
// and choosing one on first use.
func (c *Client) Endpoint(ctx context.Context) (Interface, error) {
	c.mu.Lock()
	ep := c.ep
	c.mu.Unlock()
	if ep != nil {
		return *ep, nil
	}
	card, err := c.Card(ctx)
	if err != nil {
		return Interface{}, err
	}
	chosen, err := SelectInterface(card, c.opts.Version, c.opts.Binding)
	if err != nil {
		return Interface{}, err
	}
	chosen.URL = c.resolve(chosen.URL)
	c.mu.Lock()
	c.ep = &chosen
	c.mu.Unlock()
	return chosen, nil
}

// jsonrpcEndpoint returns a JSON-RPC interface of the chosen version, for
// the extension methods that only exist over JSON-RPC.
func (c *Client) jsonrpcEndpoint(ctx context.Context) (Interface, error) {
	ep, err := c.Endpoint(ctx)
	if err != nil || ep.Binding == BindingJSONRPC {
		return ep, err
	}
	c.mu.Lock()
	card := c.card
	c.mu.Unlock()
	if card == nil {
		if card, err = c.Card(ctx); err != nil {
			return Interface{}, err
		}
	}
	alt, err := SelectInterface(card, ep.Version, BindingJSONRPC)
	if err != nil {
		return Interface{}, fmt.Errorf("this operation needs a JSON-RPC interface: %w", err)
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

func setProtocolHeaders(req *http.Request, ep Interface) {
	req.Header.Set("Accept", "application/json, application/a2a+json")
	if ep.Version == Version10 {
		req.Header.Set("A2A-Version", Version10)
	}
}

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcResponse is a JSON-RPC 2.0 response.
type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// callRPC calls method on ep with params and decodes the result into out
// (when out is not nil).
// restCall is an operation's HTTP+JSON request: verb, path (below the
// endpoint's URL and tenant), query and body.
type restCall struct {
	verb  string
	path  string
	query url.Values
	body  any
}

// call sends one operation over the endpoint's binding: the JSON-RPC
// method with params, or the REST request, decoding the result into out.
func (c *Client) call(ctx context.Context, ep Interface, method string, params any, rest restCall, out any) error {
	if ep.Binding == BindingJSONRPC {
		return c.callRPC(ctx, ep, method, params, out)
	}
	return c.callREST(ctx, ep, rest.verb, rest.path, rest.query, rest.body, out)
}

func (c *Client) callRPC(ctx context.Context, ep Interface, method string, params, out any) error {
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: c.ids.Add(1), Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	setProtocolHeaders(req, ep)
	c.authorize(req)
	resp, rb, err := c.roundTrip(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return httpError(method, resp.StatusCode, rb)
	}
	var r rpcResponse
	if err := json.Unmarshal(rb, &r); err != nil {
		return fmt.Errorf("%s: the answer is not a JSON-RPC response (%s): %w", method, snippet(rb), err)
	}
	if r.Error != nil {
		return r.Error.toError(method)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s: decode result: %w", method, err)
	}
	return nil
}

// CallJSONRPC calls an extension method over the agent's JSON-RPC interface
// (of the chosen protocol version) and decodes its result into out, which
// may be nil.
func (c *Client) CallJSONRPC(ctx context.Context, method string, params, out any) error {
	ep, err := c.jsonrpcEndpoint(ctx)
	if err != nil {
		return err
	}
	return c.callRPC(ctx, ep, method, params, out)
}

// callREST sends one REST request. path is relative to the interface URL,
// without the version prefix (added for 0.3) or the tenant.
func (c *Client) callREST(ctx context.Context, ep Interface, verb, path string, query url.Values, in, out any) error {
	base := strings.TrimRight(ep.URL, "/")
	if ep.Tenant != "" {
		base += "/" + url.PathEscape(ep.Tenant)
	}
	if ep.Version == Version03 {
		base += "/v1"
	}
	u := base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	op := verb + " " + path
	var rd io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s: encode request: %w", op, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, verb, u, rd)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	setProtocolHeaders(req, ep)
	c.authorize(req)
	resp, rb, err := c.roundTrip(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError(op, resp.StatusCode, rb)
	}
	if out == nil || len(bytes.TrimSpace(rb)) == 0 {
		return nil
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return fmt.Errorf("%s: decode response: %w", op, err)
	}
	return nil
}
