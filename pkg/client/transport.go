package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
)

// operation is one A2A operation as the bindings name it: a JSON-RPC
// method, or a REST verb, path and query.
type operation struct {
	// method is the JSON-RPC method of the protocol version.
	method string
	// verb, path and query are the REST request; path is below the
	// interface URL, the tenant and the version prefix. POST sends the
	// params as the body; GET and DELETE send none.
	verb  string
	path  string
	query url.Values
}

// transport sends operations over one binding of one interface. The
// client chooses one, with the protocol, once from the card.
type transport interface {
	do(ctx context.Context, op operation, params json.RawMessage) (json.RawMessage, error)
}

// newTransport returns the transport of ep's binding.
func (c *Client) newTransport(ep AgentInterface) transport {
	if ep.Binding == BindingREST {
		return &restTransport{c: c, ep: ep}
	}
	return &rpcTransport{c: c, ep: ep}
}

// rpcTransport is JSON-RPC 2.0 over HTTP POST.
type rpcTransport struct {
	c  *Client
	ep AgentInterface
}

func (t *rpcTransport) do(ctx context.Context, op operation, params json.RawMessage) (json.RawMessage, error) {
	body, err := jsonrpc.EncodeRequest(t.c.ids.Add(1), op.method, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.ep.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	t.c.prepare(req, t.ep)
	resp, rb, err := t.c.roundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, httpError(op.method, resp.StatusCode, rb)
	}
	r, err := jsonrpc.DecodeResponse(rb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", op.method, err, snippet(rb))
	}
	if r.Error != nil {
		return nil, rpcError(op.method, http.StatusOK, r.Error)
	}
	return r.Result, nil
}

// restTransport is the HTTP+JSON binding; under 0.3 its paths start with
// /v1.
type restTransport struct {
	c  *Client
	ep AgentInterface
}

func (t *restTransport) do(ctx context.Context, op operation, params json.RawMessage) (json.RawMessage, error) {
	u := strings.TrimRight(t.ep.URL, "/")
	if t.ep.Tenant != "" {
		u += "/" + url.PathEscape(t.ep.Tenant)
	}
	if t.ep.Version == a2a.V03 {
		u += "/v1"
	}
	u += op.path
	if len(op.query) > 0 {
		u += "?" + op.query.Encode()
	}
	name := op.verb + " " + op.path
	var body io.Reader
	if op.verb == http.MethodPost && params != nil {
		body = bytes.NewReader(params)
	}
	req, err := http.NewRequestWithContext(ctx, op.verb, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t.c.prepare(req, t.ep)
	resp, rb, err := t.c.roundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, httpError(name, resp.StatusCode, rb)
	}
	return rb, nil
}
