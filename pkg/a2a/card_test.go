package a2a

import (
	"encoding/json"
	"testing"

	legacy "github.com/a2aproject/a2a-go/a2a"
	v2 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnionSecuritySchemes: a card whose schemes carry both versions'
// shapes is accepted by the a2a-go v0.3.15 reader, the v2.3.1 reader in 0.3
// mode and the v2.3.1 1.0 reader, which each see the scheme; the 0.3-only
// shape is refused by the 1.0 reader (why the union exists).
func TestUnionSecuritySchemes(t *testing.T) {
	card := AgentCard{
		ProtocolVersion: ProtocolVersion, Name: "n", Description: "d", URL: "http://x", PreferredTransport: TransportJSONRPC, Version: "1",
		Capabilities:      AgentCapabilities{ExtendedAgentCard: true},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}, Skills: []AgentSkill{},
		SecuritySchemes: map[string]SecurityScheme{
			"bearer": HTTPSecurityScheme("Bearer", "", "a token"),
			"key":    APIKeySecurityScheme("header", "X-Api-Key", ""),
		},
		Security: []map[string][]string{{"bearer": {}}},
		SupportedInterfaces: []SupportedInterface{
			{URL: "http://x", ProtocolBinding: TransportJSONRPC, ProtocolVersion: "1.0"},
			{URL: "http://x", ProtocolBinding: TransportJSONRPC, ProtocolVersion: "0.3"},
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
	only03.SecuritySchemes = map[string]SecurityScheme{"bearer": {Type: "http", Scheme: "Bearer"}}
	b, err = json.Marshal(only03)
	require.NoError(t, err)
	_, err = agentcard.DefaultCardParser(b)
	assert.Error(t, err, "the 1.0 reader refuses a 0.3-only scheme")
}
