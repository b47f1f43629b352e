package a2av1

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// stdJSON is what encoding/json writes for v, without its HTML escaping
// (the host's encoders write <, > and & as they are).
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// fullCard sets every member of a card, with text that needs escaping.
func fullCard() a2a.AgentCard {
	flow := &a2a.OAuthFlow{AuthorizationURL: "https://a/auth", DeviceAuthorizationURL: "https://a/device", TokenURL: "https://a/token",
		RefreshURL: "https://a/refresh", Scopes: map[string]string{"write": "Write <all>", "read": "Read & \"quote\""}, PKCERequired: true}
	return a2a.AgentCard{
		ProtocolVersion: "0.3.0", Name: "Agent \u2028 \"x\"", Description: "Q&A <b>\n\t\x01 \xff", URL: "https://h", PreferredTransport: a2a.TransportJSONRPC,
		AdditionalInterfaces: []a2a.AgentInterface{{URL: "https://h", Transport: a2a.TransportJSONRPC}, {URL: "https://h/rest", Transport: a2a.TransportHTTPJSON}},
		IconURL:              "https://h/icon.png", Provider: &a2a.AgentProvider{Organization: "Org", URL: "https://org"}, Version: "1.2.3",
		DocumentationURL: "https://h/docs",
		Capabilities: a2a.AgentCapabilities{Streaming: true, PushNotifications: true, StateTransitionHistory: true, ExtendedAgentCard: true,
			Extensions: []a2a.AgentExtension{
				{URI: "urn:a", Description: "d", Required: true, Params: map[string]any{"z": json.Number("1.50"), "a": []any{"x", true, nil, map[string]any{"k": "v"}}}},
				{URI: "urn:b"},
			}},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"bearer": a2a.HTTPSecurityScheme("Bearer", "JWT", "a token"),
			"key":    a2a.APIKeySecurityScheme("header", "X-Key", ""),
			"oauth": {Type: "oauth2", Description: "o", Flows: &a2a.OAuthFlows{AuthorizationCode: flow, ClientCredentials: flow, Implicit: flow, Password: flow, DeviceCode: flow},
				OAuth2: &a2a.OAuth2Scheme{Description: "o", Flows: a2a.OAuthFlows{DeviceCode: flow}, OAuth2MetadataURL: "https://a/.well-known"}},
			"oidc": {Type: "openIdConnect", OpenIDConnectURL: "https://a/oidc", OpenIDConnect: &a2a.OpenIDConnectScheme{Description: "x", OpenIDConnectURL: "https://a/oidc"}},
			"mtls": {Type: "mutualTLS", MutualTLS: &a2a.MutualTLSScheme{}},
			"0.3":  {Type: "http", Scheme: "Basic"},
		},
		Security:           []map[string][]string{{"bearer": {}, "oauth": {"read", "write"}}, {"key": nil}},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{},
		Skills: []a2a.AgentSkill{
			{ID: "s", Name: "S", Description: "d", Tags: []string{"t"}, Examples: []string{"e"}, InputModes: []string{"text/plain"},
				OutputModes: []string{"text/plain"}, Security: []map[string][]string{{"bearer": {}}}},
			{ID: "bare"},
		},
		SupportsAuthenticatedExtendedCard: true,
		Signatures:                        []a2a.AgentCardSignature{{Protected: "p", Signature: "s", Header: map[string]any{"kid": "k", "n": json.Number("2")}}, {Protected: "q", Signature: "t"}},
		SupportedInterfaces: []a2a.SupportedInterface{{URL: "https://h", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0", Tenant: "t"},
			{URL: "https://h/rest", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"}},
	}
}

// TestAppendCardWritesWhatEncodingJSONWrites: both forms of a card, every
// member set, none set (nil slices and maps that have no omitempty are
// null), and empty but not nil, are written byte for byte as
// encoding/json writes them.
func TestAppendCardWritesWhatEncodingJSONWrites(t *testing.T) {
	empty := a2a.AgentCard{DefaultInputModes: []string{}, DefaultOutputModes: []string{}, Skills: []a2a.AgentSkill{{Tags: []string{}}},
		SecuritySchemes: map[string]a2a.SecurityScheme{}, Security: []map[string][]string{nil, {}},
		Capabilities: a2a.AgentCapabilities{Extensions: []a2a.AgentExtension{{Params: map[string]any{}}}}}
	oauthNoFlows := a2a.AgentCard{SecuritySchemes: map[string]a2a.SecurityScheme{"o": {Type: "oauth2", Flows: &a2a.OAuthFlows{Implicit: &a2a.OAuthFlow{}},
		OAuth2: &a2a.OAuth2Scheme{}}}}
	for name, c := range map[string]a2a.AgentCard{"every member": fullCard(), "zero": {}, "empty": empty, "oauth flows bare": oauthNoFlows} {
		t.Run(name, func(t *testing.T) {
			got, err := AppendCard([]byte("prefix"), &c)
			require.NoError(t, err)
			assert.Equal(t, "prefix"+string(stdJSON(t, c)), string(got))

			v1 := Card(c)
			got, err = v1.AppendJSON(nil)
			require.NoError(t, err)
			assert.Equal(t, string(stdJSON(t, v1)), string(got))
		})
	}
}

// TestAppendCardRefusesWhatJSONCannotHold: a free-form value JSON has no
// form for fails the card, in either form, as encoding/json fails it.
func TestAppendCardRefusesWhatJSONCannotHold(t *testing.T) {
	for name, c := range map[string]a2a.AgentCard{
		"extension params": {Capabilities: a2a.AgentCapabilities{Extensions: []a2a.AgentExtension{{URI: "u", Params: map[string]any{"f": func() {}}}}}},
		"signature header": {Signatures: []a2a.AgentCardSignature{{Header: map[string]any{"c": make(chan int)}}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, stdErr := json.Marshal(c)
			require.Error(t, stdErr)
			_, err := AppendCard(nil, &c)
			assert.Error(t, err)
			v1 := Card(c)
			_, err = v1.AppendJSON(nil)
			assert.Error(t, err)
		})
	}
}

// FuzzAppendCard holds both card encoders to encoding/json for every card
// a JSON document decodes to.
func FuzzAppendCard(f *testing.F) {
	full, err := json.Marshal(fullCard())
	require.NoError(f, err)
	for _, s := range []string{string(full), `{}`, `{"skills":[{"tags":null,"security":[{"a":null}]}],"securitySchemes":{"x":{}}}`,
		`{"capabilities":{"extensions":[{"uri":"u","params":{"n":1e400,"s":"\u2029","o":{}}}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var c a2a.AgentCard
		if json.Unmarshal(doc, &c) != nil {
			return
		}
		got, err := AppendCard(nil, &c)
		require.NoError(t, err)
		require.Equal(t, string(stdJSON(t, c)), string(got))
		v1 := Card(c)
		got, err = v1.AppendJSON(nil)
		require.NoError(t, err)
		require.Equal(t, string(stdJSON(t, v1)), string(got))
	})
}
