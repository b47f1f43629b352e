package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	templatePath   = "../../template.yaml"
	definitionPath = "../../infra/statemachine.asl.json"
)

// fixture copies the project's template and state machine definition into
// a temporary directory, applying edit to each, and returns the template's
// path there.
func fixture(t *testing.T, editTemplate, editDefinition func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	for src, edit := range map[string]func(string) string{templatePath: editTemplate, definitionPath: editDefinition} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		text := string(b)
		if edit != nil {
			text = edit(text)
		}
		dst := filepath.Join(dir, strings.TrimPrefix(src, "../../"))
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, []byte(text), 0o644))
	}
	return filepath.Join(dir, "template.yaml")
}

// replace returns an edit replacing old by new, failing when old is absent
// (the mistake's anchor must exist, or the test proves nothing).
func replace(t *testing.T, old, new string) func(string) string {
	return func(s string) string {
		require.Contains(t, s, old)
		return strings.Replace(s, old, new, 1)
	}
}

func TestProjectTemplate(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{templatePath}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	assert.Equal(t, "asl-check: ../../template.yaml: 1 state machine definition(s) OK\n", out.String())
}

// Deliberate mistakes in the definition or its substitutions make the
// command fail, saying what is wrong and where.
func TestMistakes(t *testing.T) {
	where := "template.yaml: TaskStateMachine (infra/statemachine.asl.json): "
	for _, tc := range []struct {
		name          string
		template, asl func(string) string
		want          []string
	}{
		{"dangling state reference", nil, replace(t, `"Next": "Route"`, `"Next": "Rout"`),
			[]string{where + `state "Step": Next names "Rout", which is not a state`, where + `state "Route" cannot be reached from StartAt`}},
		{"dangling Catch", nil, replace(t, `"ResultPath": "$.error", "Next": "MarkFailed"}]`, `"ResultPath": "$.error", "Next": "MarkFail"}]`),
			[]string{where + `state "Step": Catch[0].Next names "MarkFail", which is not a state`}},
		{"substitution renamed", replace(t, "WorkerFunctionArn: !GetAtt", "WorkerArn: !GetAtt"), nil,
			[]string{where + "${WorkerFunctionArn} has no DefinitionSubstitutions entry", where + "DefinitionSubstitutions.WorkerArn is not used by the definition"}},
		{"definition missing", replace(t, "DefinitionUri: infra/statemachine.asl.json", "DefinitionUri: infra/machine.asl.json"), nil,
			[]string{"template.yaml: TaskStateMachine: DefinitionUri: open "}},
		{"not JSON", nil, func(s string) string { return s[:len(s)/2] },
			[]string{where + "not a valid definition"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixture(t, tc.template, tc.asl)
			var out, errs bytes.Buffer
			code := run([]string{path}, &out, &errs)
			assert.Equal(t, 1, code)
			assert.Empty(t, out.String())
			for _, w := range tc.want {
				assert.Contains(t, errs.String(), filepath.Dir(path)+"/"+w)
			}
		})
	}
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{filepath.Join(t.TempDir(), "none.yaml")}, &out, &errs))
	assert.Contains(t, errs.String(), "no such file")
}
