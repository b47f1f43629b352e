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
}

// AgentExtension declares a protocol extension by URI.
type AgentExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
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

// SecurityScheme is an OpenAPI-style security scheme, discriminated by Type.
type SecurityScheme struct {
	Type             string      `json:"type"`
	Description      string      `json:"description,omitempty"`
	Scheme           string      `json:"scheme,omitempty"`       // http
	BearerFormat     string      `json:"bearerFormat,omitempty"` // http
	In               string      `json:"in,omitempty"`           // apiKey
	Name             string      `json:"name,omitempty"`         // apiKey
	Flows            *OAuthFlows `json:"flows,omitempty"`        // oauth2
	OpenIDConnectURL string      `json:"openIdConnectUrl,omitempty"`
}

// OAuthFlows are the OAuth 2.0 flows of an oauth2 scheme.
type OAuthFlows struct {
	AuthorizationCode *OAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *OAuthFlow `json:"clientCredentials,omitempty"`
	Implicit          *OAuthFlow `json:"implicit,omitempty"`
	Password          *OAuthFlow `json:"password,omitempty"`
}

// OAuthFlow is one OAuth 2.0 flow.
type OAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl,omitempty"`
	TokenURL         string            `json:"tokenUrl,omitempty"`
	RefreshURL       string            `json:"refreshUrl,omitempty"`
	Scopes           map[string]string `json:"scopes"`
}
