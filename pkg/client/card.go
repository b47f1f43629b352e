package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Bindings the client speaks (the card's transport / protocolBinding names).
const (
	BindingJSONRPC = a2a.TransportJSONRPC
	BindingREST    = a2a.TransportHTTPJSON
)

// WellKnownCardPath is where an agent publishes its card, relative to its
// base URL.
const WellKnownCardPath = "/.well-known/agent-card.json"

// AgentInterface is one endpoint of an agent: where, which binding and which
// protocol version.
type AgentInterface struct {
	URL string `json:"url"`
	// Binding is JSONRPC or HTTP+JSON (GRPC and others are listed but not
	// used by this client).
	Binding string `json:"binding"`
	// Version is the protocol version, normalized to a2a.V03 or a2a.V10
	// (other versions are kept as the card wrote them).
	Version a2a.Version `json:"version"`
	// Tenant is the 1.0 routing value copied into every request.
	Tenant string `json:"tenant,omitempty"`
}

// Card is an agent card as fetched: the card in the model of pkg/a2a (the
// 0.3 fields, filled from the 1.0 fields for a 1.0-only card), the
// interfaces it declares, and the document as served.
type Card struct {
	a2a.AgentCard
	// Interfaces lists every declared endpoint: the 1.0 supportedInterfaces
	// in order, then the 0.3 url (preferredTransport) and
	// additionalInterfaces.
	Interfaces []AgentInterface
	// Raw is the card's JSON as served.
	Raw json.RawMessage
	// ETag is the validator the server sent with it.
	ETag string
	// Revalidated is true when the server answered 304 Not Modified and the
	// cached card was reused.
	Revalidated bool
}

// parseCard reads a card document of either version.
func parseCard(body []byte) (*Card, error) {
	c := &Card{Raw: json.RawMessage(body)}
	if err := json.Unmarshal(body, &c.AgentCard); err != nil {
		return nil, fmt.Errorf("decode agent card: %w", err)
	}
	seen := map[AgentInterface]bool{}
	add := func(i AgentInterface) {
		if i.URL == "" || seen[i] {
			return
		}
		seen[i] = true
		c.Interfaces = append(c.Interfaces, i)
	}
	for _, si := range c.SupportedInterfaces {
		add(AgentInterface{URL: si.URL, Binding: strings.ToUpper(si.ProtocolBinding), Version: a2a.NormalizeVersion(si.ProtocolVersion), Tenant: si.Tenant})
	}
	v03 := a2a.NormalizeVersion(c.ProtocolVersion)
	if c.URL != "" {
		t := c.PreferredTransport
		if t == "" {
			t = BindingJSONRPC
		}
		add(AgentInterface{URL: c.URL, Binding: strings.ToUpper(t), Version: v03})
	}
	for _, ai := range c.AdditionalInterfaces {
		add(AgentInterface{URL: ai.URL, Binding: strings.ToUpper(ai.Transport), Version: v03})
	}
	if c.Capabilities.ExtendedAgentCard {
		c.SupportsAuthenticatedExtendedCard = true
	}
	if c.URL == "" && len(c.Interfaces) > 0 {
		c.URL = c.Interfaces[0].URL
		c.PreferredTransport = c.Interfaces[0].Binding
	}
	return c, nil
}

// usable reports whether the client can speak i.
func usable(i AgentInterface) bool {
	return (i.Version == a2a.V03 || i.Version == a2a.V10) && (i.Binding == BindingJSONRPC || i.Binding == BindingREST)
}

// SelectInterface picks the interface to talk to. version and binding
// restrict the choice when not empty. Without restrictions the newest
// protocol version wins (1.0 before 0.3) and, within a version, the card's
// order (its preference).
func SelectInterface(c *Card, version a2a.Version, binding string) (AgentInterface, error) {
	if version != "" {
		version = a2a.NormalizeVersion(string(version))
	}
	binding = canonicalBinding(binding)
	for _, want := range []a2a.Version{a2a.V10, a2a.V03} {
		if version != "" && version != want {
			continue
		}
		for _, i := range c.Interfaces {
			if i.Version == want && usable(i) && (binding == "" || i.Binding == binding) {
				return i, nil
			}
		}
	}
	var offered []string
	for _, i := range c.Interfaces {
		offered = append(offered, fmt.Sprintf("%s %s at %s", i.Binding, i.Version, i.URL))
	}
	return AgentInterface{}, fmt.Errorf("the agent card offers no interface this client can use (wanted version %q, binding %q); it offers: %s",
		orAny(string(version)), orAny(binding), strings.Join(offered, "; "))
}

func orAny(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

// canonicalBinding accepts the card names and the friendly ones
// ("jsonrpc", "rest", "http+json").
func canonicalBinding(b string) string {
	switch strings.ToLower(strings.TrimSpace(b)) {
	case "":
		return ""
	case "jsonrpc", "json-rpc":
		return BindingJSONRPC
	case "rest", "http+json", "http", "httpjson":
		return BindingREST
	}
	return strings.ToUpper(b)
}

// cardURL is the URL of the card of target: target itself when it already
// names a JSON document, else the well-known path under it.
func cardURL(target string) string {
	t := strings.TrimRight(target, "/")
	if strings.HasSuffix(t, ".json") {
		return t
	}
	return t + WellKnownCardPath
}

// Card fetches the agent card, revalidating the cached copy with
// If-None-Match: on 304 Not Modified the cached card is reused (and marked
// Revalidated).
func (c *Client) Card(ctx context.Context) (*Card, error) {
	c.mu.Lock()
	cached := c.card
	c.mu.Unlock()

	url := cardURL(c.target)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("card: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if cached != nil && cached.ETag != "" {
		req.Header.Set("If-None-Match", cached.ETag)
	}
	c.authorize(req)
	resp, body, err := c.roundTrip(req)
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", url, err)
	}
	if resp.StatusCode == http.StatusNotModified && cached != nil {
		again := *cached
		again.Revalidated = true
		return &again, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, httpError("GET "+url, resp.StatusCode, body)
	}
	card, err := parseCard(body)
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", url, err)
	}
	card.ETag = resp.Header.Get("ETag")
	c.mu.Lock()
	c.card = card
	c.mu.Unlock()
	return card, nil
}
