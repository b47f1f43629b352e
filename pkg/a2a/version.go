package a2a

import "strings"

// Version is an A2A protocol version, the one type for it on both sides
// of the wire. The server decides it once per request, at the edge, from
// the A2A-Version header or query parameter (see ParseVersion), and passes
// it down explicitly. Below the edge only one thing keeps it: a push
// notification config remembers the version it was registered under, so
// that its notifications are sent in that version's shape. The client
// reads it from the agent card's interfaces (NormalizeVersion).
type Version string

// The protocol versions served side by side.
const (
	// V03 is A2A 0.3, the default: slash-separated JSON-RPC methods, "kind"
	// discriminators, lowercase states.
	V03 Version = "0.3"
	// V10 is A2A 1.0: PascalCase JSON-RPC methods, one Part object,
	// TASK_STATE_* and ROLE_* enums, errors with google.rpc.ErrorInfo.
	V10 Version = "1.0"
)

// Versions lists the served versions, the default first.
var Versions = []Version{V03, V10}

// HeaderVersion is the header (and query parameter) that names the
// protocol version of a request.
const HeaderVersion = "A2A-Version"

// ParseVersion reads the value of A2A-Version. Empty, "0.3" and any "0.3.x"
// mean 0.3 (the specification makes an empty value 0.3, and the a2a-go
// client in its 0.3 compatibility mode sends "0.3"); "1", "1.0" and any
// "1.0.x" mean 1.0. Anything else is a VersionNotSupported error that names
// the supported versions.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if v := NormalizeVersion(s); v == V03 || v == V10 {
		return v, nil
	}
	e := Errorf(CodeVersionNotSupported, "A2A-Version %q is not supported; this agent speaks 0.3 and 1.0", truncateValue(s))
	return "", e.WithData(map[string]any{"requested_version": truncateValue(s), "supported_versions": "0.3,1.0"})
}

// NormalizeVersion maps "", "0.3" and any "0.3.x" to V03, and "1", "1.0"
// and any "1.0.x" to V10; any other version is returned as written (an
// agent card may list versions neither side speaks).
func NormalizeVersion(s string) Version {
	s = strings.TrimSpace(s)
	switch {
	case s == "", s == "0.3", strings.HasPrefix(s, "0.3."):
		return V03
	case s == "1", s == "1.0", strings.HasPrefix(s, "1.0."):
		return V10
	}
	return Version(s)
}

func truncateValue(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
