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

// samLocalLoader returns SAM CLI's route loader (routes.py, in SAM_LOCAL, or
// in shared/tools/sam-local beside the repository or beside one of its
// parent directories), or skips the test, saying so, where it is missing:
// `make validate` skips the check there too. The loader is not part of this
// repository, so a clone without it cannot run these two tests.
func samLocalLoader(t *testing.T) (python, routes string) {
	t.Helper()
	python = transformTool(t)
	var dirs []string
	if dir := os.Getenv("SAM_LOCAL"); dir != "" {
		dirs = append(dirs, dir)
	} else {
		abs, err := filepath.Abs(root)
		require.NoError(t, err)
		for d := abs; ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(filepath.Dir(d), "shared", "tools", "sam-local"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, dir := range dirs {
		routes, err := filepath.Abs(filepath.Join(dir, "routes.py"))
		require.NoError(t, err)
		if _, err := os.Stat(routes); err == nil {
			return python, routes
		}
	}
	t.Skipf("SKIPPED: no SAM CLI route loader (routes.py) in %s; set SAM_LOCAL to its directory", strings.Join(dirs, ", "))
	return "", ""
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
// route of the template with the parameters of each of samconfig.toml's environments and with a JWT
// authorizer.
func TestSamLocalLoadsEveryRoute(t *testing.T) {
	python, routes := samLocalLoader(t)
	out, err := checkLocalRoutes(t, python, routes, localProject(t, nil))
	require.NoError(t, err, out)
	assert.Contains(t, out, "routes load with samconfig.toml's parameters (default, dev, prod) and with a JWT authorizer")
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
	for _, mode := range []string{"samconfig.toml's default parameters", "samconfig.toml's dev parameters", "samconfig.toml's prod parameters", "JwtIssuer and JwtAudience"} {
		assert.Contains(t, out, "template.yaml: sam local start-api cannot load the template with "+mode+": ROUTES: error TypeError: unhashable type: 'dict'")
	}
}
