// Package card builds the agent cards this server publishes: the public card
// at /.well-known/agent-card.json and the authenticated extended card.
//
// By default one card serves A2A 0.3 and 1.0 clients from the same URL
// (Options.Versions narrows it to one version's endpoints): it keeps the
// 0.3 fields (url, preferredTransport, additionalInterfaces,
// supportsAuthenticatedExtendedCard, security) and adds the 1.0 ones
// (supportedInterfaces, capabilities.extendedAgentCard), and its security
// schemes carry both versions' shapes (a2a.HTTPSecurityScheme). The 1.0
// supportedInterfaces list the endpoints twice, once per version, because
// a2a-go's 0.3 card parser uses supportedInterfaces, when present, instead
// of url and additionalInterfaces.
//
// The public card is slim: extensions are declared by URI only. The
// extended card, served to authenticated callers, describes each extension
// (params); the HTTP edge adds the wire contract of what it serves.
package card

import (
	"slices"
	"time"

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
	// BearerAuth declares the bearer scheme and the authenticated extended
	// card; false declares neither (a local server without tokens, where
	// every caller is the same anonymous identity and an "authenticated"
	// card would be served to anyone).
	BearerAuth bool
	// PushNotifications declares push notification support.
	PushNotifications bool
	// Versions are the A2A versions served; empty means both. The card
	// lists the endpoints and declares the extended card of those only.
	Versions []a2a.Version
	// Files, when set, declares the files extension: the server keeps
	// large parts as files and takes uploads (files/createUpload).
	Files *Files
}

// Files are the limits of the files extension.
type Files struct {
	// InlineLimitBytes: larger parts are kept as files.
	InlineLimitBytes int
	// MaxUploadBytes bounds a file.
	MaxUploadBytes int64
	// URLTTL is the lifetime of presigned URLs.
	URLTTL time.Duration
}

// serves reports whether the options' versions include v.
func (o Options) serves(v a2a.Version) bool {
	return len(o.Versions) == 0 || slices.Contains(o.Versions, v)
}

// Public returns the public agent card.
func Public(o Options) a2a.AgentCard {
	info := o.Agent
	rest := o.PublicURL + RESTPath
	c := a2a.AgentCard{
		ProtocolVersion:    a2a.ProtocolVersion,
		Name:               info.Name,
		Description:        info.Description,
		URL:                o.PublicURL,
		PreferredTransport: a2a.TransportJSONRPC,
		AdditionalInterfaces: []a2a.AgentInterface{
			{URL: o.PublicURL, Transport: a2a.TransportJSONRPC},
			{URL: rest, Transport: a2a.TransportHTTPJSON},
		},
		Provider:         info.Provider,
		Version:          orDefault(info.Version, "1.0.0"),
		DocumentationURL: info.DocumentationURL,
		Capabilities: a2a.AgentCapabilities{
			Streaming: false, PushNotifications: o.PushNotifications,
			Extensions: declarations(o), ExtendedAgentCard: o.BearerAuth && o.serves(a2a.V10),
		},
		DefaultInputModes:                 modes(info.InputModes),
		DefaultOutputModes:                modes(info.OutputModes),
		Skills:                            info.Skills,
		SupportsAuthenticatedExtendedCard: o.BearerAuth && o.serves(a2a.V03),
	}
	if o.serves(a2a.V10) {
		c.SupportedInterfaces = []a2a.SupportedInterface{
			{URL: o.PublicURL, ProtocolBinding: a2a.TransportJSONRPC, ProtocolVersion: string(a2a.V10)},
			{URL: rest, ProtocolBinding: a2a.TransportHTTPJSON, ProtocolVersion: string(a2a.V10)},
		}
		if o.serves(a2a.V03) {
			c.SupportedInterfaces = append(c.SupportedInterfaces,
				a2a.SupportedInterface{URL: o.PublicURL, ProtocolBinding: a2a.TransportJSONRPC, ProtocolVersion: string(a2a.V03)},
				a2a.SupportedInterface{URL: rest, ProtocolBinding: a2a.TransportHTTPJSON, ProtocolVersion: string(a2a.V03)})
		}
	}
	if c.Skills == nil {
		c.Skills = []a2a.AgentSkill{}
	}
	if o.BearerAuth {
		c.SecuritySchemes = map[string]a2a.SecurityScheme{
			BearerSchemeName: a2a.HTTPSecurityScheme("bearer", "", "Bearer token given to the caller by the operator of this agent."),
		}
		// The 0.3 requirement only. A2A 1.0's securityRequirements is
		// left out: ProtoJSON writes its scopes as {"list": [...]}, which
		// the a2a-go 1.0 reader refuses (it expects a bare array), and
		// the scheme alone tells 1.0 clients how to authenticate.
		c.Security = []map[string][]string{{BearerSchemeName: {}}}
	}
	return c
}

// Extended returns the authenticated extended card: the public card with
// every extension described (its params), and the skills' examples.
func Extended(o Options) a2a.AgentCard {
	c := Public(o)
	c.Capabilities.Extensions = descriptions(o)
	return c
}

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
