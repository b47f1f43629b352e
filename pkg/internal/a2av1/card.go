package a2av1

import "github.com/a2a-lambda/a2a-lambda/pkg/a2a"

// AgentCard is the A2A 1.0 AgentCard: only the fields the 1.0 data model
// defines, so that it validates against the official JSON Schema, which
// refuses 0.3's url, preferredTransport, additionalInterfaces,
// protocolVersion, supportsAuthenticatedExtendedCard, security and
// capabilities.stateTransitionHistory. Build it with Card.
type AgentCard struct {
	Name                string                    `json:"name"`
	Description         string                    `json:"description"`
	SupportedInterfaces []a2a.SupportedInterface  `json:"supportedInterfaces"`
	Provider            *a2a.AgentProvider        `json:"provider,omitempty"`
	Version             string                    `json:"version"`
	DocumentationURL    string                    `json:"documentationUrl,omitempty"`
	Capabilities        AgentCapabilities         `json:"capabilities"`
	SecuritySchemes     map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	DefaultInputModes   []string                  `json:"defaultInputModes"`
	DefaultOutputModes  []string                  `json:"defaultOutputModes"`
	Skills              []a2a.AgentSkill          `json:"skills"` // without Security (see Card)
	Signatures          []a2a.AgentCardSignature  `json:"signatures,omitempty"`
	IconURL             string                    `json:"iconUrl,omitempty"`
}

// AgentCapabilities is the 1.0 AgentCapabilities.
type AgentCapabilities struct {
	Streaming         bool                 `json:"streaming"`
	PushNotifications bool                 `json:"pushNotifications"`
	Extensions        []a2a.AgentExtension `json:"extensions,omitempty"`
	ExtendedAgentCard bool                 `json:"extendedAgentCard,omitempty"`
}

// SecurityScheme is the 1.0 SecurityScheme: one wrapper member named for
// its kind.
type SecurityScheme struct {
	HTTPAuth      *a2a.HTTPAuthScheme      `json:"httpAuthSecurityScheme,omitempty"`
	APIKey        *a2a.APIKeyScheme        `json:"apiKeySecurityScheme,omitempty"`
	OAuth2        *a2a.OAuth2Scheme        `json:"oauth2SecurityScheme,omitempty"`
	OpenIDConnect *a2a.OpenIDConnectScheme `json:"openIdConnectSecurityScheme,omitempty"`
	MutualTLS     *a2a.MutualTLSScheme     `json:"mtlsSecurityScheme,omitempty"`
}

// Card returns the 1.0 form of a card: its 1.0 fields, without the 0.3
// ones. Security requirements are left out (the 0.3 security member, and
// skills' security): ProtoJSON writes their scopes as {"list": [...]},
// which the a2a-go 1.0 reader refuses, and the schemes alone tell clients
// how to authenticate. Security schemes without their 1.0 wrapper (a card
// configured with the 0.3 form only) are left out too.
func Card(c a2a.AgentCard) AgentCard {
	out := AgentCard{
		Name: c.Name, Description: c.Description, SupportedInterfaces: c.SupportedInterfaces,
		Provider: c.Provider, Version: c.Version, DocumentationURL: c.DocumentationURL,
		Capabilities: AgentCapabilities{
			Streaming: c.Capabilities.Streaming, PushNotifications: c.Capabilities.PushNotifications,
			Extensions: c.Capabilities.Extensions, ExtendedAgentCard: c.Capabilities.ExtendedAgentCard,
		},
		DefaultInputModes: c.DefaultInputModes, DefaultOutputModes: c.DefaultOutputModes,
		Skills: make([]a2a.AgentSkill, len(c.Skills)), Signatures: c.Signatures, IconURL: c.IconURL,
	}
	if out.SupportedInterfaces == nil {
		out.SupportedInterfaces = []a2a.SupportedInterface{}
	}
	for name, s := range c.SecuritySchemes {
		v1 := SecurityScheme{HTTPAuth: s.HTTPAuth, APIKey: s.APIKey, OAuth2: s.OAuth2, OpenIDConnect: s.OpenIDConnect, MutualTLS: s.MutualTLS}
		if v1 == (SecurityScheme{}) {
			continue
		}
		if out.SecuritySchemes == nil {
			out.SecuritySchemes = map[string]SecurityScheme{}
		}
		out.SecuritySchemes[name] = v1
	}
	for i, s := range c.Skills {
		s.Security = nil // left out, as said above
		out.Skills[i] = s
	}
	return out
}
