package scaffold_test

import (
	"archive/zip"
	"context"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/scaffold"
)

// A project's names come from its module path's last element: the agent
// and stack name in lower case letters, digits and dashes, starting with
// a letter; the package the same without dashes, never a Go keyword or
// the name of a package its files import.
func TestNewDerivesNames(t *testing.T) {
	for _, tc := range []struct{ module, name, pkg string }{
		{"example.com/myagent", "myagent", "myagent"},
		{"example.com/my-agent", "my-agent", "myagent"},
		{"example.com/My_Agent.go", "my-agent-go", "myagentgo"},
		{"example.com/words/v2", "words", "words"},
		{"github.com/someone/42", "agent-42", "agent42"},
		{"example.com/func", "func", "funcagent"},
		{"example.com/agent", "agent", "agentagent"},
		{"myagent", "myagent", "myagent"},
	} {
		t.Run(tc.module, func(t *testing.T) {
			p, err := scaffold.New(scaffold.Options{Module: tc.module, Version: "v1.2.3"})
			require.NoError(t, err)
			assert.Equal(t, tc.name, p.Name)
			assert.Equal(t, tc.pkg, p.Package)
			assert.Equal(t, "v1.2.3", p.Require)
			assert.Empty(t, p.Replace)
		})
	}
}

// What the command line gets wrong is a usage error that says what to
// give instead.
func TestNewRefusesBadOptions(t *testing.T) {
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644))
	for _, tc := range []struct {
		name string
		o    scaffold.Options
		err  string
	}{
		{"no module", scaffold.Options{Version: "v1.0.0"}, "--module is required"},
		{"a space", scaffold.Options{Module: "example.com/my agent", Version: "v1.0.0"}, `--module "example.com/my agent" is not a module path: invalid char ' '`},
		{"a trailing slash", scaffold.Options{Module: "example.com/x/", Version: "v1.0.0"}, "is not a module path: trailing slash"},
		{"ours", scaffold.Options{Module: buildinfo.Module + "/mine", Version: "v1.0.0"}, "is a2a-lambda's own path"},
		{"a development build", scaffold.Options{Module: "example.com/x", Version: "devel 0123456789ab+dirty"}, "give --replace PATH"},
		{"a dirty pseudo-version", scaffold.Options{Module: "example.com/x", Version: "v0.1.1-0.20261120000000-0123456789ab+dirty"}, "give --replace PATH"},
		{"a replacement without go.mod", scaffold.Options{Module: "example.com/x", Replace: t.TempDir()}, "not a checkout of " + buildinfo.Module},
		{"another module", scaffold.Options{Module: "example.com/x", Replace: other}, `its go.mod is module "example.com/other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scaffold.New(tc.o)
			var usage *scaffold.UsageError
			require.ErrorAs(t, err, &usage)
			assert.ErrorContains(t, err, tc.err)
		})
	}
}

// With a local checkout, the project requires the version the command was
// built from when it is one, else the go command's placeholder, and
// replaces it by the checkout's absolute path.
func TestNewWithReplace(t *testing.T) {
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	for version, want := range map[string]string{"v1.2.3": "v1.2.3", "devel (replaced by ../x)": scaffold.NoVersion} {
		p, err := scaffold.New(scaffold.Options{Module: "example.com/x", Version: version, Replace: root})
		require.NoError(t, err)
		assert.Equal(t, abs, p.Replace)
		assert.Equal(t, want, p.Require)
	}
}

// The scaffold writes into a new or empty directory only.
func TestCheckDirAndWrite(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	full := filepath.Join(base, "full")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(full, "sub"), 0o755))

	assert.NoError(t, scaffold.CheckDir(filepath.Join(base, "new")))
	assert.NoError(t, scaffold.CheckDir(t.TempDir()))
	for dir, msg := range map[string]string{file: "exists and is not a directory", full: "exists and is not empty (1 entries)"} {
		err := scaffold.CheckDir(dir)
		var usage *scaffold.UsageError
		require.ErrorAs(t, err, &usage)
		assert.ErrorContains(t, err, dir+" "+msg)
		assert.ErrorAs(t, scaffold.Write(dir, []scaffold.File{{Path: "a.go", Data: []byte("x")}}), &usage)
	}
	_, err := os.Stat(filepath.Join(full, "a.go"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "nothing written into a directory that is not empty")

	escape := filepath.Join(base, "escape")
	assert.ErrorContains(t, scaffold.Write(escape, []scaffold.File{{Path: "../outside.txt", Data: []byte("x")}}), "../outside.txt: not a path inside the project")
	assert.NoFileExists(t, filepath.Join(base, "outside.txt"))
	assert.NoDirExists(t, escape)

	dir := filepath.Join(base, "new", "project")
	require.NoError(t, scaffold.Write(dir, []scaffold.File{{Path: "a/b/c.txt", Data: []byte("c")}, {Path: "d.txt", Data: []byte("d")}}))
	b, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.txt"))
	require.NoError(t, err)
	assert.Equal(t, "c", string(b))
}

// files returns a project's files by path.
func files(t *testing.T, p scaffold.Project, source string) map[string][]byte {
	t.Helper()
	list, err := p.Files(source)
	require.NoError(t, err)
	m := map[string][]byte{}
	for _, f := range list {
		m[f.Path] = f.Data
	}
	return m
}

// ourFiles returns the files under dir of this checkout, by path.
func ourFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	require.NoError(t, fs.WalkDir(os.DirFS(root), dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		m[name], err = os.ReadFile(filepath.Join(root, name))
		return err
	}))
	return m
}

// Everything the project takes from a2a-lambda is read from its source:
// the template (generated), the state machine and the events (as they
// are), and our functions' mains, with the project's registry where ours
// pass the built-in one.
func TestFilesComeFromTheSource(t *testing.T) {
	p, err := scaffold.New(scaffold.Options{Module: "example.com/my-agent", Version: "v1.2.3"})
	require.NoError(t, err)
	got := files(t, p, root)

	ourTemplate, err := os.ReadFile(root + "/template.yaml")
	require.NoError(t, err)
	wantTemplate, err := scaffold.Template(ourTemplate, "my-agent")
	require.NoError(t, err)
	assert.Equal(t, string(wantTemplate), string(got["template.yaml"]))
	for name, b := range ourFiles(t, "events") {
		assert.Equal(t, string(b), string(got[name]), name)
	}
	asl := ourFiles(t, "infra/statemachine.asl.json")
	assert.Equal(t, string(asl["infra/statemachine.asl.json"]), string(got["infra/statemachine.asl.json"]))

	mains := ourFiles(t, "functions")
	var fns []string
	for name, ours := range mains {
		fn, ok := strings.CutSuffix(strings.TrimPrefix(name, "functions/"), "/main.go")
		if !ok || strings.Contains(fn, "/") {
			continue
		}
		fns = append(fns, fn)
		mine := string(got[name])
		require.NotEmpty(t, mine, name)
		if !strings.Contains(string(ours), "builtin.Registry()") {
			assert.Equal(t, string(ours), mine, "%s never runs the agent: ours as it is", name)
			continue
		}
		assert.Equal(t, strings.Count(string(ours), "builtin.Registry()"), strings.Count(mine, "myagent.Registry()"), name)
		assert.NotContains(t, mine, "builtin", name)
		assert.Contains(t, mine, `myagent "example.com/my-agent"`, name)
		assert.Equal(t, strings.Count(string(ours), "\n"), strings.Count(mine, "\n"), "%s: ours, line for line", name)
	}
	assert.Len(t, fns, 7)

	var want []string
	for name := range got {
		want = append(want, name)
	}
	slices.Sort(want)
	var generated []string
	for _, name := range want {
		if !strings.HasPrefix(name, "events/") && !strings.HasPrefix(name, "functions/") {
			generated = append(generated, name)
		}
	}
	assert.Equal(t, []string{".gitignore", "Makefile", "README.md", "agent.go", "agent_test.go", "cmd/my-agent-local/main.go",
		"go.mod", "infra/statemachine.asl.json", "samconfig.toml", "template.yaml"}, generated)

	makefile := string(got["Makefile"])
	for _, fn := range fns {
		id := strings.ToUpper(fn[:1]) + fn[1:] + "Function"
		assert.Contains(t, makefile, "build-"+id+": FUNCTION := "+fn+"\n")
		assert.Contains(t, makefile, " build-"+id)
	}
	assert.Contains(t, makefile, "-trimpath -ldflags='-s -w' -tags lambda.norpc")
	samconfig := string(got["samconfig.toml"])
	assert.Contains(t, samconfig, `stack_name = "my-agent-dev"`)
	assert.Contains(t, samconfig, `stack_name = "my-agent-prod"`)
	assert.Contains(t, samconfig, "BearerToken=ssm:/my-agent-prod/bearer-token")
	assert.Contains(t, string(got["agent.go"]), `EnvGreeting = "MY_AGENT_GREETING"`)
	assert.Contains(t, string(got["README.md"]), "for a2a-lambda v1.2.3")
}

// go.mod requires a2a-lambda at the command's version, with a replace
// directive for a checkout, at ours's Go version.
func TestGoMod(t *testing.T) {
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	ours, err := os.ReadFile(root + "/go.mod")
	require.NoError(t, err)
	goLine := strings.SplitN(string(ours), "\ngo ", 2)[1]
	goLine = "go " + goLine[:strings.IndexByte(goLine, '\n')]

	p, err := scaffold.New(scaffold.Options{Module: "example.com/myagent", Version: "v1.2.3"})
	require.NoError(t, err)
	assert.Equal(t, "module example.com/myagent\n\n"+goLine+"\n\nrequire "+buildinfo.Module+" v1.2.3\n", string(files(t, p, root)["go.mod"]))

	p, err = scaffold.New(scaffold.Options{Module: "example.com/myagent", Version: "devel", Replace: root})
	require.NoError(t, err)
	assert.Equal(t, "module example.com/myagent\n\n"+goLine+"\n\nrequire "+buildinfo.Module+" "+scaffold.NoVersion+"\n\nreplace "+buildinfo.Module+" => "+abs+"\n",
		string(files(t, p, root)["go.mod"]))
}

// publicPackages are the packages of this module that a scaffolded
// project's code imports: they must stay importable (outside internal/).
var publicPackages = []string{
	"pkg/a2a", "pkg/agent", "pkg/agent/builtin", "pkg/app/deliverfn", "pkg/app/httpfn", "pkg/app/localmain",
	"pkg/app/pushfn", "pkg/app/sweepfn", "pkg/app/workerfn", "pkg/boot", "pkg/testkit/agenttest",
}

// The project's Go files import only the standard library, testify, the
// project itself and publicPackages.
func TestGeneratedCodeImportsOnlyPublicPackages(t *testing.T) {
	p, err := scaffold.New(scaffold.Options{Module: "example.com/myagent", Version: "v1.2.3"})
	require.NoError(t, err)
	used := map[string]bool{}
	for name, b := range files(t, p, root) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.ImportsOnly)
		require.NoError(t, err, name)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			switch {
			case path == p.Module, !strings.Contains(strings.Split(path, "/")[0], "."), strings.HasPrefix(path, "github.com/stretchr/testify/"):
			case strings.HasPrefix(path, buildinfo.Module+"/"):
				pkg := strings.TrimPrefix(path, buildinfo.Module+"/")
				assert.Contains(t, publicPackages, pkg, "%s imports %s", name, path)
				used[pkg] = true
			default:
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
	for _, pkg := range publicPackages {
		assert.True(t, used[pkg], "no generated file imports %s: drop it from publicPackages", pkg)
	}
}

// Without a checkout, a2a-lambda's source is the module's directory in the
// module cache, which the go command downloads: here from a module proxy
// in a folder, holding a version of this module made of this checkout's
// files, into a module cache of the test's own.
func TestFilesFromTheModuleCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("SKIPPED: no go command")
	}
	const version = "v0.9.9"
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(buildinfo.Module), "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	ours := map[string][]byte{}
	for _, dir := range []string{"go.mod", "template.yaml", "infra/statemachine.asl.json", "events", "functions"} {
		for name, b := range ourFiles(t, dir) {
			ours[name] = b
		}
	}
	write := func(name string, b []byte) { require.NoError(t, os.WriteFile(filepath.Join(at, name), b, 0o644)) }
	write("list", []byte(version+"\n"))
	write(version+".info", []byte(`{"Version":"`+version+`","Time":"2026-11-01T00:00:00Z"}`))
	write(version+".mod", ours["go.mod"])
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(zf)
	for name, b := range ours {
		w, err := zw.Create(buildinfo.Module + "@" + version + "/" + name)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, errors.Join(zw.Close(), zf.Close()))

	goCmd := scaffold.Go{Env: append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GOFLAGS=-modcacherw",
		"GOMODCACHE="+t.TempDir(), "GOTOOLCHAIN=local")}
	ctx := context.Background()
	dir, err := goCmd.ModuleDir(ctx, version)
	require.NoError(t, err)
	p, err := scaffold.New(scaffold.Options{Module: "example.com/myagent", Version: version})
	require.NoError(t, err)
	got := files(t, p, dir)
	assert.Equal(t, files(t, p, root), got, "the same project as from this checkout")
	assert.Contains(t, string(got["go.mod"]), "require "+buildinfo.Module+" "+version+"\n")
	assert.NotContains(t, string(got["go.mod"]), "replace")

	_, err = goCmd.ModuleDir(ctx, "v0.9.8")
	assert.ErrorContains(t, err, buildinfo.Module+"@v0.9.8")
}
