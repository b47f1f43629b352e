package card

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/agent"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

func opts(bearer bool) Options {
	return Options{PublicURL: "https://agent.example.com", Agent: agent.Info{Name: "n", Description: "d"}, BearerAuth: bearer}
}

func TestPublicSlimExtendedDetailed(t *testing.T) {
	pub, ext := Public(opts(true)), Extended(opts(true))
	uris := []string{ExtSessionBinding, ExtModelSelection, ExtStreamHints, ExtInterrupt, ExtTaskFeedback, ExtContexts, ExtTaskList, ExtOAP, ExtImplementation}
	require.Len(t, pub.Capabilities.Extensions, len(uris))
	require.Len(t, ext.Capabilities.Extensions, len(uris))
	for i, uri := range uris {
		assert.Equal(t, a2a.AgentExtension{URI: uri}, pub.Capabilities.Extensions[i], "the public card declares by URI only")
		e := ext.Capabilities.Extensions[i]
		assert.Equal(t, uri, e.URI)
		assert.NotEmpty(t, e.Description, uri)
		assert.NotEmpty(t, e.Params, uri)
	}
	impl := ext.Capabilities.Extensions[len(uris)-1].Params
	assert.Equal(t, map[string]any{"name": "a2a-lambda", "module": "github.com/a2a-lambda/a2a-lambda", "version": buildinfo.Version()}, impl)
	assert.NotEqual(t, "(devel)", impl["version"])
	pb, _ := json.Marshal(pub)
	eb, _ := json.Marshal(ext)
	assert.Less(t, len(pb), len(eb))
}
