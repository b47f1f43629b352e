package scaffold_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/scaffold"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// root is this repository's checkout.
const root = "../../.."

// The generated template is ours but for two lines: AgentName's default
// (the project's agent) and its description. Every other byte, comments
// and all, is ours.
func TestTemplateDiffersFromOursOnlyInTheAgentName(t *testing.T) {
	ours, err := os.ReadFile(root + "/template.yaml")
	require.NoError(t, err)
	got, err := scaffold.Template(ours, "myagent")
	require.NoError(t, err)

	tmpl, err := samtemplate.Parse(ours)
	require.NoError(t, err)
	param := samtemplate.Get(tmpl.Root, "Parameters", "AgentName")
	wantChanged := map[int]bool{
		samtemplate.Get(param, "Default").Line:     true,
		samtemplate.Get(param, "Description").Line: true,
	}
	oursLines, gotLines := strings.Split(string(ours), "\n"), strings.Split(string(got), "\n")
	require.Len(t, gotLines, len(oursLines))
	changed := map[int]bool{}
	for i := range oursLines {
		if oursLines[i] != gotLines[i] {
			changed[i+1] = true
		}
	}
	assert.Equal(t, wantChanged, changed, "the lines the transform changed")

	gen, err := samtemplate.Parse(got)
	require.NoError(t, err)
	p := samtemplate.Get(gen.Root, "Parameters", "AgentName")
	def, _ := samtemplate.Scalar(samtemplate.Get(p, "Default"))
	assert.Equal(t, "myagent", def)
	desc, _ := samtemplate.Scalar(samtemplate.Get(p, "Description"))
	assert.Equal(t, "The agent to serve (A2A_AGENT): myagent (agent.go), or one of a2a-lambda's built-in agents: demo, echo, llm or a2a-proxy.", desc)
}

// A template the transform cannot rewrite in place is an error that says
// what it needs, never a template edited in the wrong place.
func TestTemplateRefusesWhatItCannotRewrite(t *testing.T) {
	const resources = "Resources:\n  Topic:\n    Type: AWS::SNS::Topic\n"
	for _, tc := range []struct{ name, src, err string }{
		{"no AgentName", "Parameters:\n  Other:\n    Type: String\n" + resources, "no AgentName parameter"},
		{"a folded default", "Parameters:\n  AgentName:\n    Type: String\n    Default: >-\n      demo\n    Description: x\n" + resources,
			"Parameters.AgentName.Default: line 4: the value is not a one-line scalar"},
		{"a comment", "Parameters:\n  AgentName:\n    Type: String\n    Default: demo # the demo\n    Description: x\n" + resources,
			"Parameters.AgentName.Default: line 4: the value is not a one-line scalar without a comment"},
		{"no description", "Parameters:\n  AgentName:\n    Type: String\n    Default: demo\n" + resources,
			"Parameters.AgentName.Description: not found"},
		{"not a template", "- a list\n", "not a template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scaffold.Template([]byte(tc.src), "myagent")
			assert.ErrorContains(t, err, tc.err)
		})
	}
}
