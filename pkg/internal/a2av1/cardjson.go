package a2av1

import (
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
)

// The agent cards' JSON, written without reflection: what encoding/json
// writes for them (members in field order, map keys sorted, a nil slice
// or map that has no omitempty as null), except that <, > and & are not
// escaped, as the other encoders of the host. A process serves its card
// from its first request on, and encoding/json's first Marshal of the card
// types (reflection over every type a card holds) was the largest part of
// its start-up after the runtime's own. Free-form values (extension params,
// signature headers) go through jsonw.Value.

// AppendCard appends the card in the form one card serves both versions
// with (see a2a.AgentCard): the 0.3 members and the 1.0 ones. It fails
// only for a free-form value that JSON cannot hold.
func AppendCard(b []byte, c *a2a.AgentCard) ([]byte, error) {
	var err error
	b = append(b, '{')
	b = jsonw.StringField(b, "protocolVersion", c.ProtocolVersion)
	b = jsonw.StringField(b, "name", c.Name)
	b = jsonw.StringField(b, "description", c.Description)
	b = jsonw.StringField(b, "url", c.URL)
	b = jsonw.StringField(b, "preferredTransport", c.PreferredTransport)
	if len(c.AdditionalInterfaces) > 0 {
		b = jsonw.Key(b, "additionalInterfaces")
		b = appendEach(b, c.AdditionalInterfaces, func(b []byte, i *a2a.AgentInterface) []byte {
			b = jsonw.StringField(append(b, '{'), "url", i.URL)
			return append(jsonw.StringField(b, "transport", i.Transport), '}')
		})
	}
	b = jsonw.OptString(b, "iconUrl", c.IconURL)
	b = appendToPush(b, c.Provider, c.Version, c.DocumentationURL, c.Capabilities.Streaming, c.Capabilities.PushNotifications)
	b = appendBool(b, "stateTransitionHistory", c.Capabilities.StateTransitionHistory)
	if b, err = appendCapabilitiesEnd(b, c.Capabilities.Extensions, c.Capabilities.ExtendedAgentCard); err != nil {
		return b, err
	}
	if len(c.SecuritySchemes) > 0 {
		b = appendSorted(jsonw.Key(b, "securitySchemes"), c.SecuritySchemes, func(b []byte, s a2a.SecurityScheme) []byte { return appendScheme(b, &s) })
	}
	b = appendSecurity(b, c.Security)
	b = appendModes(b, c.DefaultInputModes, c.DefaultOutputModes)
	b = jsonw.Key(b, "skills")
	b = appendEach(b, c.Skills, func(b []byte, s *a2a.AgentSkill) []byte { return appendSkill(b, s, true) })
	if c.SupportsAuthenticatedExtendedCard {
		b = appendBool(b, "supportsAuthenticatedExtendedCard", true)
	}
	if b, err = appendSignatures(b, c.Signatures); err != nil {
		return b, err
	}
	if len(c.SupportedInterfaces) > 0 {
		b = appendInterfaces(b, c.SupportedInterfaces)
	}
	return append(b, '}'), nil
}

// AppendJSON appends the 1.0 card, as Card made it.
func (c *AgentCard) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, '{')
	b = jsonw.StringField(b, "name", c.Name)
	b = jsonw.StringField(b, "description", c.Description)
	b = appendInterfaces(b, c.SupportedInterfaces)
	b = appendToPush(b, c.Provider, c.Version, c.DocumentationURL, c.Capabilities.Streaming, c.Capabilities.PushNotifications)
	if b, err = appendCapabilitiesEnd(b, c.Capabilities.Extensions, c.Capabilities.ExtendedAgentCard); err != nil {
		return b, err
	}
	if len(c.SecuritySchemes) > 0 {
		b = appendSorted(jsonw.Key(b, "securitySchemes"), c.SecuritySchemes, func(b []byte, s SecurityScheme) []byte {
			return appendWrappers(append(b, '{'), s.HTTPAuth, s.APIKey, s.OAuth2, s.OpenIDConnect, s.MutualTLS)
		})
	}
	b = appendModes(b, c.DefaultInputModes, c.DefaultOutputModes)
	b = jsonw.Key(b, "skills")
	b = appendEach(b, c.Skills, func(b []byte, s *a2a.AgentSkill) []byte { return appendSkill(b, s, false) })
	if b, err = appendSignatures(b, c.Signatures); err != nil {
		return b, err
	}
	b = jsonw.OptString(b, "iconUrl", c.IconURL)
	return append(b, '}'), nil
}

// appendEach appends items as an array, null when items is nil
// (jsonw.Array, for items written without failing).
func appendEach[T any](b []byte, items []T, one func([]byte, *T) []byte) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b, _ = jsonw.Array(b, items, func(b []byte, t *T) ([]byte, error) { return one(b, t), nil })
	return b
}

// appendSorted appends m as an object, its keys sorted, null when m is
// nil (jsonw.Map, for values written without failing).
func appendSorted[V any](b []byte, m map[string]V, one func([]byte, V) []byte) []byte {
	b, _ = jsonw.Map(b, m, func(b []byte, v V) ([]byte, error) { return one(b, v), nil })
	return b
}

// appendStrings appends vs as an array, null when vs is nil.
func appendStrings(b []byte, vs []string) []byte {
	return appendEach(b, vs, func(b []byte, s *string) []byte { return jsonw.String(b, *s) })
}

func appendBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(jsonw.Key(b, key), v)
}

// appendToPush appends what both forms write from the provider to the
// capabilities' pushNotifications, leaving the capabilities open.
func appendToPush(b []byte, p *a2a.AgentProvider, version, docs string, streaming, push bool) []byte {
	if p != nil {
		b = jsonw.StringField(append(jsonw.Key(b, "provider"), '{'), "organization", p.Organization)
		b = append(jsonw.StringField(b, "url", p.URL), '}')
	}
	b = jsonw.StringField(b, "version", version)
	b = jsonw.OptString(b, "documentationUrl", docs)
	b = append(jsonw.Key(b, "capabilities"), '{')
	b = appendBool(b, "streaming", streaming)
	return appendBool(b, "pushNotifications", push)
}

func appendInterfaces(b []byte, is []a2a.SupportedInterface) []byte {
	return appendEach(jsonw.Key(b, "supportedInterfaces"), is, func(b []byte, i *a2a.SupportedInterface) []byte {
		b = jsonw.StringField(append(b, '{'), "url", i.URL)
		b = jsonw.StringField(b, "protocolBinding", i.ProtocolBinding)
		b = jsonw.StringField(b, "protocolVersion", i.ProtocolVersion)
		return append(jsonw.OptString(b, "tenant", i.Tenant), '}')
	})
}

// appendCapabilitiesEnd appends the capabilities both forms end with, and
// the closing brace.
func appendCapabilitiesEnd(b []byte, exts []a2a.AgentExtension, extended bool) ([]byte, error) {
	b, err := jsonw.OptArray(b, "extensions", exts, func(b []byte, e *a2a.AgentExtension) ([]byte, error) {
		b = jsonw.StringField(append(b, '{'), "uri", e.URI)
		b = jsonw.OptString(b, "description", e.Description)
		if e.Required {
			b = appendBool(b, "required", true)
		}
		b, err := jsonw.Object(b, "params", e.Params)
		return append(b, '}'), err
	})
	if err != nil {
		return b, err
	}
	if extended {
		b = appendBool(b, "extendedAgentCard", true)
	}
	return append(b, '}'), nil
}

func appendModes(b []byte, in, out []string) []byte {
	b = appendStrings(jsonw.Key(b, "defaultInputModes"), in)
	return appendStrings(jsonw.Key(b, "defaultOutputModes"), out)
}

// appendSkill appends a skill, with its security requirements when
// security (the 1.0 card leaves them out, see Card).
func appendSkill(b []byte, s *a2a.AgentSkill, security bool) []byte {
	b = jsonw.StringField(append(b, '{'), "id", s.ID)
	b = jsonw.StringField(b, "name", s.Name)
	b = jsonw.StringField(b, "description", s.Description)
	b = appendStrings(jsonw.Key(b, "tags"), s.Tags)
	b = jsonw.Strings(b, "examples", s.Examples)
	b = jsonw.Strings(b, "inputModes", s.InputModes)
	b = jsonw.Strings(b, "outputModes", s.OutputModes)
	if security {
		b = appendSecurity(b, s.Security)
	}
	return append(b, '}')
}

// appendSecurity appends 0.3 security requirements unless there are none:
// scheme names to their scopes.
func appendSecurity(b []byte, reqs []map[string][]string) []byte {
	if len(reqs) == 0 {
		return b
	}
	return appendEach(jsonw.Key(b, "security"), reqs, func(b []byte, req *map[string][]string) []byte {
		return appendSorted(b, *req, appendStrings)
	})
}

func appendSignatures(b []byte, sigs []a2a.AgentCardSignature) ([]byte, error) {
	return jsonw.OptArray(b, "signatures", sigs, func(b []byte, s *a2a.AgentCardSignature) ([]byte, error) {
		b = jsonw.StringField(append(b, '{'), "protected", s.Protected)
		b = jsonw.StringField(b, "signature", s.Signature)
		b, err := jsonw.Object(b, "header", s.Header)
		return append(b, '}'), err
	})
}

// appendScheme appends a security scheme in both versions' shapes (see
// a2a.SecurityScheme).
func appendScheme(b []byte, s *a2a.SecurityScheme) []byte {
	b = jsonw.StringField(append(b, '{'), "type", s.Type)
	b = jsonw.OptString(b, "description", s.Description)
	b = jsonw.OptString(b, "scheme", s.Scheme)
	b = jsonw.OptString(b, "bearerFormat", s.BearerFormat)
	b = jsonw.OptString(b, "in", s.In)
	b = jsonw.OptString(b, "name", s.Name)
	if s.Flows != nil {
		b = appendFlows(jsonw.Key(b, "flows"), s.Flows)
	}
	b = jsonw.OptString(b, "openIdConnectUrl", s.OpenIDConnectURL)
	return appendWrappers(b, s.HTTPAuth, s.APIKey, s.OAuth2, s.OpenIDConnect, s.MutualTLS)
}

// appendWrappers appends the 1.0 wrapper members of a scheme that are set,
// and the scheme's closing brace.
func appendWrappers(b []byte, h *a2a.HTTPAuthScheme, k *a2a.APIKeyScheme, o *a2a.OAuth2Scheme, oidc *a2a.OpenIDConnectScheme, m *a2a.MutualTLSScheme) []byte {
	if h != nil {
		b = jsonw.StringField(append(jsonw.Key(b, "httpAuthSecurityScheme"), '{'), "scheme", h.Scheme)
		b = jsonw.OptString(b, "bearerFormat", h.BearerFormat)
		b = append(jsonw.OptString(b, "description", h.Description), '}')
	}
	if k != nil {
		b = jsonw.StringField(append(jsonw.Key(b, "apiKeySecurityScheme"), '{'), "location", k.Location)
		b = jsonw.StringField(b, "name", k.Name)
		b = append(jsonw.OptString(b, "description", k.Description), '}')
	}
	if o != nil {
		b = jsonw.OptString(append(jsonw.Key(b, "oauth2SecurityScheme"), '{'), "description", o.Description)
		b = appendFlows(jsonw.Key(b, "flows"), &o.Flows)
		b = append(jsonw.OptString(b, "oauth2MetadataUrl", o.OAuth2MetadataURL), '}')
	}
	if oidc != nil {
		b = jsonw.OptString(append(jsonw.Key(b, "openIdConnectSecurityScheme"), '{'), "description", oidc.Description)
		b = append(jsonw.StringField(b, "openIdConnectUrl", oidc.OpenIDConnectURL), '}')
	}
	if m != nil {
		b = append(jsonw.OptString(append(jsonw.Key(b, "mtlsSecurityScheme"), '{'), "description", m.Description), '}')
	}
	return append(b, '}')
}

func appendFlows(b []byte, f *a2a.OAuthFlows) []byte {
	b = append(b, '{')
	for _, flow := range [...]struct {
		name string
		flow *a2a.OAuthFlow
	}{
		{"authorizationCode", f.AuthorizationCode}, {"clientCredentials", f.ClientCredentials},
		{"implicit", f.Implicit}, {"password", f.Password}, {"deviceCode", f.DeviceCode},
	} {
		if fl := flow.flow; fl != nil {
			b = append(jsonw.Key(b, flow.name), '{')
			b = jsonw.OptString(b, "authorizationUrl", fl.AuthorizationURL)
			b = jsonw.OptString(b, "deviceAuthorizationUrl", fl.DeviceAuthorizationURL)
			b = jsonw.OptString(b, "tokenUrl", fl.TokenURL)
			b = jsonw.OptString(b, "refreshUrl", fl.RefreshURL)
			b = appendSorted(jsonw.Key(b, "scopes"), fl.Scopes, jsonw.String)
			if fl.PKCERequired {
				b = appendBool(b, "pkceRequired", true)
			}
			b = append(b, '}')
		}
	}
	return append(b, '}')
}
