package httpapi

import "github.com/a2a-lambda/a2a-lambda/pkg/a2a"

// Profile is the deployment profile GET /health answers with: what a
// client or an operator may rely on in this deployment. It is declared
// configuration, not a live check of each dependency.
type Profile struct {
	Status string `json:"status"`
	// Version is this server's build version.
	Version string `json:"version"`
	// Agent names the agent served and its own version.
	Agent struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"agent"`
	DefaultProtocolVersion    string   `json:"default_protocol_version"`
	SupportedProtocolVersions []string `json:"supported_protocol_versions"`
	// StoreBackend is memory or dynamodb.
	StoreBackend string `json:"store_backend"`
	// ExecutionMode is where task steps run: local, inline, auto or
	// stepfunctions.
	ExecutionMode     string `json:"execution_mode"`
	PushNotifications bool   `json:"push_notifications"`
	Streaming         bool   `json:"streaming"`
}

// NewProfile returns a profile with the protocol versions this edge
// serves filled in.
func NewProfile(version, agentName, agentVersion, storeBackend, executionMode string, push bool) *Profile {
	p := &Profile{Status: "ok", Version: version, StoreBackend: storeBackend, ExecutionMode: executionMode, PushNotifications: push,
		DefaultProtocolVersion: string(a2a.V03)}
	p.Agent.Name, p.Agent.Version = agentName, agentVersion
	for _, v := range a2a.Versions {
		p.SupportedProtocolVersions = append(p.SupportedProtocolVersions, string(v))
	}
	return p
}
