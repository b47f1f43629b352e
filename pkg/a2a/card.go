package a2a

// Transport protocol names used in agent cards.
const (
	TransportJSONRPC  = "JSONRPC"
	TransportHTTPJSON = "HTTP+JSON"
	TransportGRPC     = "GRPC"
)

// AgentCard describes an agent: who it is, where it listens, what it can do and
// how to authenticate.
type AgentCard struct {
	ProtocolVersion                   string                    `json:"protocolVersion"`
	Name                              string                    `json:"name"`
	Description                       string                    `json:"description"`
	URL                               string                    `json:"url"`
	PreferredTransport                string                    `json:"preferredTransport"`
	AdditionalInterfaces              []AgentInterface          `json:"additionalInterfaces,omitempty"`
	IconURL                           string                    `json:"iconUrl,omitempty"`
	Provider                          *AgentProvider            `json:"provider,omitempty"`
	Version                           string                    `json:"version"`
	DocumentationURL                  string                    `json:"documentationUrl,omitempty"`
	Capabilities                      AgentCapabilities         `json:"capabilities"`
	SecuritySchemes                   map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	Security                          []map[string][]string     `json:"security,omitempty"`
	DefaultInputModes                 []string                  `json:"defaultInputModes"`
	DefaultOutputModes                []string                  `json:"defaultOutputModes"`
	Skills                            []AgentSkill              `json:"skills"`
	SupportsAuthenticatedExtendedCard bool                      `json:"supportsAuthenticatedExtendedCard,omitempty"`
	Signatures                        []AgentCardSignature      `json:"signatures,omitempty"`
	// SupportedInterfaces is the A2A 1.0 list of endpoints, the preferred
	// first, each with its binding and protocol version. One card serves
	// both versions: 0.3 readers use url, preferredTransport and
	// additionalInterfaces, 1.0 readers this list.
	SupportedInterfaces []SupportedInterface `json:"supportedInterfaces,omitempty"`
}

// SupportedInterface is an A2A 1.0 agent interface: a URL, the binding it
// speaks (JSONRPC, HTTP+JSON) and the protocol version ("1.0", "0.3").
type SupportedInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
	Tenant          string `json:"tenant,omitempty"`
}

// AgentInterface is one URL and the transport it speaks.
type AgentInterface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

// AgentProvider names the organisation behind an agent.
type AgentProvider struct {
	Organization string `json:"organization"`
	URL          string `json:"url"`
}

// AgentCapabilities lists optional protocol features.
type AgentCapabilities struct {
	Streaming              bool             `json:"streaming"`
	PushNotifications      bool             `json:"pushNotifications"`
	StateTransitionHistory bool             `json:"stateTransitionHistory"`
	Extensions             []AgentExtension `json:"extensions,omitempty"`
	// ExtendedAgentCard is A2A 1.0's supportsAuthenticatedExtendedCard.
	ExtendedAgentCard bool `json:"extendedAgentCard,omitempty"`
}

// AgentExtension declares a protocol extension by URI.
type AgentExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// UnmarshalJSON reads the extension, its params' numbers exact.
func (e *AgentExtension) UnmarshalJSON(b []byte) error {
	type plain AgentExtension // without this method
	return unmarshalExact(b, (*plain)(e))
}

// AgentSkill is one thing the agent can do.
type AgentSkill struct {
	ID          string                `json:"id"`
	Name        string                `json:"name"`
	Description string                `json:"description"`
	Tags        []string              `json:"tags"`
	Examples    []string              `json:"examples,omitempty"`
	InputModes  []string              `json:"inputModes,omitempty"`
	OutputModes []string              `json:"outputModes,omitempty"`
	Security    []map[string][]string `json:"security,omitempty"`
}

// AgentCardSignature is a JWS over the card.
type AgentCardSignature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// UnmarshalJSON reads the signature, its header's numbers exact.
func (s *AgentCardSignature) UnmarshalJSON(b []byte) error {
	type plain AgentCardSignature // without this method
	return unmarshalExact(b, (*plain)(s))
}

// SecurityScheme is an OpenAPI-style security scheme. Its JSON is the union
// of both versions' shapes, so that one card serves both: the 0.3 form,
// discriminated by Type, and the A2A 1.0 form, one wrapper member named for
// the kind ({"httpAuthSecurityScheme": {...}}). 0.3 readers ignore the
// wrapper, 1.0 readers ignore the 0.3 members. Build it with
// HTTPSecurityScheme or APIKeySecurityScheme, which fill both.
type SecurityScheme struct {
	Type             string      `json:"type"`
	Description      string      `json:"description,omitempty"`
	Scheme           string      `json:"scheme,omitempty"`       // http
	BearerFormat     string      `json:"bearerFormat,omitempty"` // http
	In               string      `json:"in,omitempty"`           // apiKey
	Name             string      `json:"name,omitempty"`         // apiKey
	Flows            *OAuthFlows `json:"flows,omitempty"`        // oauth2
	OpenIDConnectURL string      `json:"openIdConnectUrl,omitempty"`

	// The A2A 1.0 wrappers; exactly one is set in a card.
	HTTPAuth      *HTTPAuthScheme      `json:"httpAuthSecurityScheme,omitempty"`
	APIKey        *APIKeyScheme        `json:"apiKeySecurityScheme,omitempty"`
	OAuth2        *OAuth2Scheme        `json:"oauth2SecurityScheme,omitempty"`
	OpenIDConnect *OpenIDConnectScheme `json:"openIdConnectSecurityScheme,omitempty"`
	MutualTLS     *MutualTLSScheme     `json:"mtlsSecurityScheme,omitempty"`
}

// OAuth2Scheme is A2A 1.0's OAuth2SecurityScheme.
type OAuth2Scheme struct {
	Description       string     `json:"description,omitempty"`
	Flows             OAuthFlows `json:"flows"`
	OAuth2MetadataURL string     `json:"oauth2MetadataUrl,omitempty"`
}

// OpenIDConnectScheme is A2A 1.0's OpenIdConnectSecurityScheme.
type OpenIDConnectScheme struct {
	Description      string `json:"description,omitempty"`
	OpenIDConnectURL string `json:"openIdConnectUrl"`
}

// MutualTLSScheme is A2A 1.0's MutualTlsSecurityScheme.
type MutualTLSScheme struct {
	Description string `json:"description,omitempty"`
}

// HTTPAuthScheme is A2A 1.0's HTTPAuthSecurityScheme.
type HTTPAuthScheme struct {
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
	Description  string `json:"description,omitempty"`
}

// APIKeyScheme is A2A 1.0's APIKeySecurityScheme.
type APIKeyScheme struct {
	Location    string `json:"location"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// HTTPSecurityScheme returns an HTTP authentication scheme (such as
// "Bearer") in both versions' shapes.
func HTTPSecurityScheme(scheme, bearerFormat, description string) SecurityScheme {
	return SecurityScheme{Type: "http", Scheme: scheme, BearerFormat: bearerFormat, Description: description,
		HTTPAuth: &HTTPAuthScheme{Scheme: scheme, BearerFormat: bearerFormat, Description: description}}
}

// APIKeySecurityScheme returns an API key scheme (in "header", "query" or
// "cookie") in both versions' shapes.
func APIKeySecurityScheme(in, name, description string) SecurityScheme {
	return SecurityScheme{Type: "apiKey", In: in, Name: name, Description: description,
		APIKey: &APIKeyScheme{Location: in, Name: name, Description: description}}
}

// OAuthFlows are the OAuth 2.0 flows of an oauth2 scheme (1.0 sets one;
// DeviceCode is 1.0's).
type OAuthFlows struct {
	AuthorizationCode *OAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *OAuthFlow `json:"clientCredentials,omitempty"`
	Implicit          *OAuthFlow `json:"implicit,omitempty"`
	Password          *OAuthFlow `json:"password,omitempty"`
	DeviceCode        *OAuthFlow `json:"deviceCode,omitempty"`
}

// OAuthFlow is one OAuth 2.0 flow. PKCERequired (authorization code) and
// DeviceAuthorizationURL (device code) are 1.0's.
type OAuthFlow struct {
	AuthorizationURL       string            `json:"authorizationUrl,omitempty"`
	DeviceAuthorizationURL string            `json:"deviceAuthorizationUrl,omitempty"`
	TokenURL               string            `json:"tokenUrl,omitempty"`
	RefreshURL             string            `json:"refreshUrl,omitempty"`
	Scopes                 map[string]string `json:"scopes"`
	PKCERequired           bool              `json:"pkceRequired,omitempty"`
}
