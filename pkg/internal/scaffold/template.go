package scaffold

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// Template returns a2a-lambda's template.yaml (src) as a project of its
// own deploys it: the AgentName parameter's default is agentName, and its
// description says so. Nothing else changes, byte for byte: the functions
// are built by the project's own Makefile (`make build-<LogicalId>`,
// CodeUri: .) and the state machine is read from the same relative path,
// which the project copies (see Project.Files).
func Template(src []byte, agentName string) ([]byte, error) {
	t, err := samtemplate.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("a2a-lambda's template.yaml: %w", err)
	}
	return generate(t, src, agentName)
}

// generate is Template of src, parsed as t.
func generate(t *samtemplate.Template, src []byte, agentName string) ([]byte, error) {
	param := samtemplate.Get(t.Root, "Parameters", "AgentName")
	if param == nil {
		return nil, fmt.Errorf("a2a-lambda's template.yaml has no AgentName parameter")
	}
	lines := strings.Split(string(src), "\n")
	for _, edit := range []struct{ key, value string }{
		{"Default", agentName},
		{"Description", fmt.Sprintf("The agent to serve (A2A_AGENT): %s (agent.go), or one of a2a-lambda's built-in agents: demo, echo, llm or a2a-proxy.", agentName)},
	} {
		if err := setScalar(lines, samtemplate.Get(param, edit.key), edit.value); err != nil {
			return nil, fmt.Errorf("a2a-lambda's template.yaml: Parameters.AgentName.%s: %w", edit.key, err)
		}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

// setScalar replaces the scalar n, written on one line from its column to
// the end of that line, by value (single-quoted), leaving every other byte
// alone.
func setScalar(lines []string, n *yaml.Node, value string) error {
	if n == nil || n.Kind != yaml.ScalarNode || n.Line < 1 || n.Line > len(lines) {
		return fmt.Errorf("not found, or not a scalar")
	}
	line := lines[n.Line-1]
	if n.Column < 1 || n.Column > len(line) {
		return fmt.Errorf("line %d: unexpected column %d", n.Line, n.Column)
	}
	var rest string
	if yaml.Unmarshal([]byte(line[n.Column-1:]), &rest) != nil || rest != n.Value || strings.Contains(line[n.Column-1:], " #") {
		return fmt.Errorf("line %d: the value is not a one-line scalar without a comment; the scaffold cannot rewrite it", n.Line)
	}
	lines[n.Line-1] = line[:n.Column-1] + "'" + strings.ReplaceAll(value, "'", "''") + "'"
	return nil
}
