// Package card builds the agent cards this server publishes: the public card
// at /.well-known/agent-card.json and the authenticated extended card.
package card

import (
	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
)

// RESTPath is where the HTTP+JSON binding is served, relative to the public
// URL. It differs from the JSON-RPC URL because clients ignore an HTTP+JSON
// interface whose URL equals the card's url.
const RESTPath = "/rest"

// BearerSchemeName names the bearer security scheme in cards.
const BearerSchemeName = "bearer"

// Options describe the deployment a card advertises.
type Options struct {
	// PublicURL is the base URL clients reach the server at, without a
	// trailing slash. JSON-RPC is served there, HTTP+JSON at PublicURL+RESTPath.
	PublicURL string
	// Agent describes the agent.
	Agent agent.Info
	// BearerAuth declares the bearer scheme; false declares no security
	// (a local server without tokens).
	BearerAuth bool
	// PushNotifications declares push notification support.
	PushNotifications bool
}

// Public returns the public agent card.
func Public(o Options) a2a.AgentCard {
	info := o.Agent
	c := a2a.AgentCard{
		ProtocolVersion:    a2a.ProtocolVersion,
		Name:               info.Name,
		Description:        info.Description,
		URL:                o.PublicURL,
		PreferredTransport: a2a.TransportJSONRPC,
		AdditionalInterfaces: []a2a.AgentInterface{
			{URL: o.PublicURL, Transport: a2a.TransportJSONRPC},
			{URL: o.PublicURL + RESTPath, Transport: a2a.TransportHTTPJSON},
		},
		Provider:                          info.Provider,
		Version:                           orDefault(info.Version, "1.0.0"),
		DocumentationURL:                  info.DocumentationURL,
		Capabilities:                      a2a.AgentCapabilities{Streaming: false, PushNotifications: o.PushNotifications},
		DefaultInputModes:                 modes(info.InputModes),
		DefaultOutputModes:                modes(info.OutputModes),
		Skills:                            info.Skills,
		SupportsAuthenticatedExtendedCard: true,
	}
	if c.Skills == nil {
		c.Skills = []a2a.AgentSkill{}
	}
	if o.BearerAuth {
		c.SecuritySchemes = map[string]a2a.SecurityScheme{
			BearerSchemeName: {Type: "http", Scheme: "bearer", Description: "Bearer token given to the caller by the operator of this agent."},
		}
		c.Security = []map[string][]string{{BearerSchemeName: {}}}
	}
	return c
}

// Extended returns the authenticated extended card: the public card, served
// only to authenticated callers.
func Extended(o Options) a2a.AgentCard { return Public(o) }

func modes(m []string) []string {
	if len(m) == 0 {
		return []string{"text/plain"}
	}
	return m
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
