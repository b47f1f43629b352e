package infra_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transformTool returns the Python that runs infra/sam_transform.py, or
// skips the test when samtranslator or cfn-lint is missing (outside CI;
// under CI=true they are required).
func transformTool(t *testing.T) string {
	t.Helper()
	python := os.Getenv("PYTHON")
	if python == "" {
		python = "python3"
	}
	out, err := exec.Command(python, "-c", "import samtranslator, cfnlint").CombinedOutput()
	if err != nil {
		msg := "needs Python with aws-sam-translator and cfn-lint (pip install aws-sam-translator cfn-lint): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPED, " + msg)
	}
	return python
}

// transform runs the transform step on the template in dir.
func transform(t *testing.T, python, dir string) (string, error) {
	script, err := filepath.Abs("sam_transform.py")
	require.NoError(t, err)
	cmd := exec.Command(python, script, "template.yaml", "-o", filepath.Join(dir, "out", "template.json"))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyProject copies what the transform step reads into a new directory:
// the template, the Makefile and the state machine definition, each
// through its edit.
func copyProject(t *testing.T, edits map[string]func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"template.yaml", "Makefile", "infra/statemachine.asl.json"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		text := string(b)
		if edit := edits[name]; edit != nil {
			text = edit(text)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func replace(t *testing.T, old, new string) func(string) string {
	return func(s string) string {
		require.Contains(t, s, old, "the mistake's anchor must exist")
		return strings.Replace(s, old, new, 1)
	}
}

// Deliberate mistakes that sam build or sam deploy would fail on, late,
// make the transform step fail at once, each named. (`make validate` runs
// the step on the project's template, which must pass.)
func TestTransformStepCatchesMistakes(t *testing.T) {
	python := transformTool(t)
	dir := copyProject(t, map[string]func(string) string{
		// A function without its build target.
		"Makefile": func(s string) string {
			s = replace(t, "build-PushFunction:    FUNCTION := push\n", "")(s)
			return replace(t, " build-PushFunction ", " ")(s)
		},
		"template.yaml": func(s string) string {
			// A definition that is not there.
			s = replace(t, "DefinitionUri: infra/statemachine.asl.json", "DefinitionUri: infra/state-machine.asl.json")(s)
			// A provided.al2023 function SAM cannot build.
			s = replace(t, "  CardFunction:\n    Type: AWS::Serverless::Function\n    Metadata:\n      BuildMethod: makefile\n", "  CardFunction:\n    Type: AWS::Serverless::Function\n")(s)
			// What only the SAM transform rejects.
			return replace(t, "      Timeout: 900\n", "      Timeout: 900\n      DeploymentPreference: {Type: AllAtOnce}\n")(s)
		},
	})
	out, err := transform(t, python, dir)
	require.Error(t, err)
	assert.Equal(t, 1, err.(*exec.ExitError).ExitCode())
	for _, want := range []string{
		"template.yaml: PushFunction: Metadata.BuildMethod is makefile, but Makefile has no build-PushFunction target: sam build would fail",
		"template.yaml: TaskStateMachine: DefinitionUri 'infra/state-machine.asl.json' does not exist",
		"template.yaml: CardFunction: runtime provided.al2023 needs Metadata.BuildMethod: makefile (and a build-CardFunction target)",
		"template.yaml: Resource with id [WorkerFunction] is invalid. 'DeploymentPreference' requires AutoPublishAlias property to be specified.",
	} {
		assert.Contains(t, out, want)
	}
	for _, fn := range []string{"SendFunction", "TasksFunction", "DeliverFunction"} {
		assert.NotContains(t, out, fn+": Metadata", "only the broken function is named")
	}
}
