package card_test

import (
	"encoding/json"
	"testing"

	legacy "github.com/a2aproject/a2a-go/a2a"
	v2 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/card"
)

func opts(bearer bool) card.Options {
	return card.Options{PublicURL: "https://agent.example.com", Agent: agent.Info{Name: "n", Description: "d"}, BearerAuth: bearer}
}

// TestCardReadByEveryClient: the same public card, with and without the
// bearer scheme, is read by a2a-go v0.3.15, by v2.3.1 in 0.3 mode and by
// v2.3.1 in 1.0 mode, each finding its own endpoints and the scheme.
func TestCardReadByEveryClient(t *testing.T) {
	for _, bearer := range []bool{false, true} {
		for name, c := range map[string]a2a.AgentCard{"public": card.Public(opts(bearer)), "extended": card.Extended(opts(bearer))} {
			b, err := json.Marshal(c)
			require.NoError(t, err)

			var old legacy.AgentCard
			require.NoError(t, json.Unmarshal(b, &old), name)
			assert.Equal(t, "https://agent.example.com", old.URL)
			assert.Equal(t, legacy.TransportProtocolJSONRPC, old.PreferredTransport)
			// The extended card is declared only when callers authenticate.
			assert.Equal(t, bearer, old.SupportsAuthenticatedExtendedCard)

			compat, err := a2av0.NewAgentCardParser()(b)
			require.NoError(t, err, name)
			native, err := agentcard.DefaultCardParser(b)
			require.NoError(t, err, name)
			for _, parsed := range []*v2.AgentCard{compat, native} {
				assert.Equal(t, bearer, parsed.Capabilities.ExtendedAgentCard)
				require.Len(t, parsed.SupportedInterfaces, 4)
				want := []v2.AgentInterface{
					{URL: "https://agent.example.com", ProtocolBinding: v2.TransportProtocolJSONRPC, ProtocolVersion: "1.0"},
					{URL: "https://agent.example.com/rest", ProtocolBinding: v2.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"},
					{URL: "https://agent.example.com", ProtocolBinding: v2.TransportProtocolJSONRPC, ProtocolVersion: "0.3"},
					{URL: "https://agent.example.com/rest", ProtocolBinding: v2.TransportProtocolHTTPJSON, ProtocolVersion: "0.3"},
				}
				for i := range want {
					assert.Equal(t, want[i], *parsed.SupportedInterfaces[i])
				}
				if bearer {
					assert.Equal(t, v2.HTTPAuthSecurityScheme{Scheme: "bearer", Description: "Bearer token given to the caller by the operator of this agent."}, parsed.SecuritySchemes[card.BearerSchemeName])
				} else {
					assert.Empty(t, parsed.SecuritySchemes)
				}
			}
			if bearer {
				assert.Equal(t, legacy.HTTPAuthSecurityScheme{Scheme: "bearer", Description: "Bearer token given to the caller by the operator of this agent."}, old.SecuritySchemes[card.BearerSchemeName])
				assert.Equal(t, []legacy.SecurityRequirements{{card.BearerSchemeName: {}}}, old.Security)
			}
		}
	}
}

// TestUnionSecuritySchemes: a card whose schemes carry both versions'
// shapes is accepted by the a2a-go v0.3.15 reader, the v2.3.1 reader in 0.3
// mode and the v2.3.1 1.0 reader, which each see the scheme; the 0.3-only
// shape is refused by the 1.0 reader (why the union exists).
func TestUnionSecuritySchemes(t *testing.T) {
	card := a2a.AgentCard{
		ProtocolVersion: a2a.ProtocolVersion, Name: "n", Description: "d", URL: "http://x", PreferredTransport: a2a.TransportJSONRPC, Version: "1",
		Capabilities:      a2a.AgentCapabilities{ExtendedAgentCard: true},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Skills: []a2a.AgentSkill{},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"bearer": a2a.HTTPSecurityScheme("Bearer", "", "a token"),
			"key":    a2a.APIKeySecurityScheme("header", "X-Api-Key", ""),
		},
		Security: []map[string][]string{{"bearer": {}}},
		SupportedInterfaces: []a2a.SupportedInterface{
			{URL: "http://x", ProtocolBinding: a2a.TransportJSONRPC, ProtocolVersion: "1.0"},
			{URL: "http://x", ProtocolBinding: a2a.TransportJSONRPC, ProtocolVersion: "0.3"},
		},
	}
	b, err := json.Marshal(card)
	require.NoError(t, err)

	var old legacy.AgentCard
	require.NoError(t, json.Unmarshal(b, &old), "a2a-go v0.3.15")
	assert.Equal(t, legacy.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a token"}, old.SecuritySchemes["bearer"])
	assert.Equal(t, legacy.APIKeySecurityScheme{In: "header", Name: "X-Api-Key"}, old.SecuritySchemes["key"])

	compat, err := a2av0.NewAgentCardParser()(b)
	require.NoError(t, err, "a2a-go v2.3.1, 0.3 card parser")
	assert.Equal(t, v2.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a token"}, compat.SecuritySchemes["bearer"])

	native, err := agentcard.DefaultCardParser(b)
	require.NoError(t, err, "a2a-go v2.3.1, 1.0 card parser")
	assert.Equal(t, v2.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a token"}, native.SecuritySchemes["bearer"])
	assert.Equal(t, v2.APIKeySecurityScheme{Location: "header", Name: "X-Api-Key"}, native.SecuritySchemes["key"])
	assert.True(t, native.Capabilities.ExtendedAgentCard)
	require.Len(t, native.SupportedInterfaces, 2)
	assert.Equal(t, v2.ProtocolVersion("1.0"), native.SupportedInterfaces[0].ProtocolVersion)

	only03 := card
	only03.SecuritySchemes = map[string]a2a.SecurityScheme{"bearer": {Type: "http", Scheme: "Bearer"}}
	b, err = json.Marshal(only03)
	require.NoError(t, err)
	_, err = agentcard.DefaultCardParser(b)
	assert.Error(t, err, "the 1.0 reader refuses a 0.3-only scheme")
}
