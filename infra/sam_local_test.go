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

// samLocalLoader returns SAM CLI's route loader (routes.py, in SAM_LOCAL
// or ../shared/tools/sam-local beside the repository), or skips the test
// where it is missing, as `make validate` then skips the check (under
// CI=true it is required).
func samLocalLoader(t *testing.T) (python, routes string) {
	t.Helper()
	python = transformTool(t)
	dir := os.Getenv("SAM_LOCAL")
	if dir == "" {
		dir = filepath.Join(root, "..", "shared", "tools", "sam-local")
	}
	routes, err := filepath.Abs(filepath.Join(dir, "routes.py"))
	require.NoError(t, err)
	if _, err := os.Stat(routes); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("SAM CLI's route loader is required: %v", err)
		}
		t.Skipf("SKIPPED, no SAM CLI route loader (set SAM_LOCAL): %v", err)
	}
	return python, routes
}

// checkLocalRoutes runs `make validate`'s sam local step on the template
// and samconfig.toml in dir.
func checkLocalRoutes(t *testing.T, python, routes, dir string) (string, error) {
	script, err := filepath.Abs("sam_local_routes.py")
	require.NoError(t, err)
	cmd := exec.Command(python, script, "template.yaml", "--routes", routes, "--samconfig", "samconfig.toml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// localProject copies the template (through edit) and samconfig.toml into a
// new directory.
func localProject(t *testing.T, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"template.yaml", "samconfig.toml"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		text := string(b)
		if name == "template.yaml" && edit != nil {
			text = edit(text)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

// SAM CLI's own loader, run as `sam local start-api` runs it, finds every
// route of the template with samconfig.toml's parameters and with a JWT
// authorizer.
func TestSamLocalLoadsEveryRoute(t *testing.T) {
	python, routes := samLocalLoader(t)
	out, err := checkLocalRoutes(t, python, routes, localProject(t, nil))
	require.NoError(t, err, out)
	assert.Contains(t, out, "routes load with samconfig.toml's parameters and with a JWT authorizer")
}

// The check fails on what made `sam local start-api` crash (an
// AuthorizerId chosen by !If with AWS::NoValue), in both modes.
func TestSamLocalCheckCatchesMistakes(t *testing.T) {
	python, routes := samLocalLoader(t)
	dir := localProject(t, func(s string) string {
		old := "      AuthorizationType: NONE\n  RouteJsonRpcJwt:"
		require.Contains(t, s, old, "the mistake's anchor must exist")
		return strings.Replace(s, old, "      AuthorizationType: !If [UseJwt, JWT, NONE]\n      AuthorizerId: !If [UseJwt, !Ref JwtAuthorizer, !Ref AWS::NoValue]\n  RouteJsonRpcJwt:", 1)
	})
	out, err := checkLocalRoutes(t, python, routes, dir)
	require.Error(t, err, out)
	assert.Equal(t, 1, err.(*exec.ExitError).ExitCode())
	for _, mode := range []string{"samconfig.toml's parameters", "JwtIssuer and JwtAudience"} {
		assert.Contains(t, out, "template.yaml: sam local start-api cannot load the template with "+mode+": ROUTES: error TypeError: unhashable type: 'dict'")
	}
}
