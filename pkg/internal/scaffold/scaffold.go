// Package scaffold writes a new project of its own agent: a Go module of
// the user's that depends on a2a-lambda, with an agent to edit and its
// test, the Lambda functions and the local server that serve it (one line
// each, calling a2a-lambda's entry points), a SAM template generated from
// a2a-lambda's own, samconfig.toml, a Makefile, the sample events and a
// README. `a2a init` runs it.
//
// What a2a-lambda maintains is read from its source at init time (a local
// checkout, or the module's directory in the module cache): template.yaml,
// the state machine it names, functions/*/main.go and events/. One
// template is maintained, not two.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// NoVersion is the version a project requires when a replace directive
// provides a2a-lambda and the scaffold knows no release of it: the one the
// go command writes for such a requirement.
const NoVersion = "v0.0.0-00010101000000-000000000000"

// Options describe a new project.
type Options struct {
	// Module is the new module's path, such as example.com/myagent.
	Module string
	// Version is the version of a2a-lambda to require: the one the
	// command was built from (buildinfo.Version). A development build has
	// none; it then needs Replace.
	Version string
	// Replace is a local checkout of a2a-lambda that the new module uses
	// instead (a replace directive): offline use and tests. Empty: none.
	Replace string
}

// Project is a new project, its names derived from its module path.
type Project struct {
	// Module is the module path; Package the Go package of agent.go.
	Module, Package string
	// Name is the agent's registry name (A2A_AGENT, the stack's
	// AgentName), the stem of the stack names and of cmd/<Name>-local.
	Name string
	// Require is the version of a2a-lambda go.mod requires.
	Require string
	// Replace is the absolute path of the replacing checkout, or "".
	Replace string
}

// UsageError is an error of New and CheckDir: what the user asked for
// cannot be done, and the command line must change.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageError returns a UsageError of the formatted message.
func usageError(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// New checks o and derives the project's names. Its errors are
// UsageErrors.
func New(o Options) (Project, error) {
	usage := func(format string, args ...any) (Project, error) {
		return Project{}, usageError(format, args...)
	}
	if o.Module == "" {
		return usage("--module is required: the new module's path, such as example.com/myagent")
	}
	if err := module.CheckImportPath(o.Module); err != nil {
		return usage("--module %q is not a module path: %v", o.Module, errors.Unwrap(err))
	}
	if o.Module == buildinfo.Module || strings.HasPrefix(o.Module, buildinfo.Module+"/") {
		return usage("--module %q is a2a-lambda's own path: the new project is a module of yours", o.Module)
	}
	p := Project{Module: o.Module}
	p.Name, p.Package = names(o.Module)
	switch {
	case o.Replace != "":
		abs, err := filepath.Abs(o.Replace)
		if err != nil {
			return usage("--replace %q: %v", o.Replace, err)
		}
		if err := checkout(abs); err != nil {
			return usage("--replace %q: %v", o.Replace, err)
		}
		p.Replace, p.Require = abs, NoVersion
		if moduleVersion(o.Version) {
			p.Require = o.Version
		}
	case moduleVersion(o.Version):
		p.Require = o.Version
	default:
		return usage("this a2a command was built from a development version of a2a-lambda (%s), which a module cannot require: "+
			"give --replace PATH, a local checkout of a2a-lambda, or use a released a2a (go install %s/cmd/a2a@latest)", o.Version, buildinfo.Module)
	}
	return p, nil
}

// moduleVersion reports whether v is a version a go.mod may require: a
// semantic version (a release or a pseudo-version) with no build suffix
// (a "+dirty" build is not one).
func moduleVersion(v string) bool {
	return semver.IsValid(v) && semver.Build(v) == "" && module.Check(buildinfo.Module, v) == nil
}

// checkout returns an error unless dir holds a2a-lambda's go.mod.
func checkout(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("not a checkout of %s: %w", buildinfo.Module, err)
	}
	if got := modfile.ModulePath(b); got != buildinfo.Module {
		return fmt.Errorf("not a checkout of %s: its go.mod is module %q", buildinfo.Module, got)
	}
	return nil
}

// reserved are the names a project's package may not take: Go's keywords
// and the packages its generated files import (the package and an import
// of the same name could not live in one file).
var reserved = []string{"main", "a2a", "agent", "agenttest", "assert", "boot", "builtin", "context", "deliverfn",
	"fmt", "httpfn", "localmain", "os", "pushfn", "require", "strings", "sweepfn", "testing", "workerfn"}

// names derives a project's name and package from its module path's last
// element (the one before a /vN suffix): the name in lower case letters,
// digits and dashes, starting with a letter (a stack name must); the
// package the name without dashes.
func names(modulePath string) (name, pkg string) {
	prefix, _, ok := module.SplitPathVersion(modulePath)
	if !ok {
		prefix = modulePath
	}
	var b strings.Builder
	for _, r := range strings.ToLower(path.Base(prefix)) {
		switch {
		case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name = strings.Trim(b.String(), "-")
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		name = strings.TrimSuffix("agent-"+name, "-")
	}
	pkg = strings.ReplaceAll(name, "-", "")
	if token.IsKeyword(pkg) || slices.Contains(reserved, pkg) {
		pkg += "agent"
	}
	return name, pkg
}

// File is one file of a project.
type File struct {
	Path string // slash-separated, relative to the project's directory
	Data []byte
}

// function is one Lambda function of the template: its logical id, and
// its directory under functions/.
type function struct{ LogicalID, Dir string }

//go:embed all:skeleton
var skeleton embed.FS

// Files returns the project's files, reading a2a-lambda's from source (the
// root of its module: a checkout, or the module cache's directory).
func (p Project) Files(source string) ([]File, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(source, filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("reading a2a-lambda's %s: %w", name, err)
		}
		return b, nil
	}
	src, err := read("template.yaml")
	if err != nil {
		return nil, err
	}
	tmpl, err := samtemplate.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("a2a-lambda's template.yaml: %w", err)
	}
	generated, err := generate(tmpl, src, p.Name)
	if err != nil {
		return nil, err
	}
	files := []File{{"template.yaml", generated}}

	modText, err := read("go.mod")
	if err != nil {
		return nil, err
	}
	gomod, err := p.goMod(modText)
	if err != nil {
		return nil, err
	}
	files = append(files, File{"go.mod", gomod})

	// The state machine (and any other local definition) at the path the
	// template names.
	for _, sm := range tmpl.OfType("AWS::Serverless::StateMachine") {
		uri, ok := samtemplate.Scalar(sm.Prop("DefinitionUri"))
		if !ok || strings.HasPrefix(uri, "s3://") {
			continue
		}
		b, err := read(uri)
		if err != nil {
			return nil, err
		}
		files = append(files, File{path.Clean(uri), b})
	}

	// One main per function the template builds with the Makefile, ours
	// with the project's registry.
	var fns []function
	for _, r := range tmpl.OfType("AWS::Serverless::Function") {
		if m, _ := samtemplate.Scalar(samtemplate.Get(r.Metadata, "BuildMethod")); m != "makefile" {
			continue
		}
		fn := function{r.Name, strings.ToLower(strings.TrimSuffix(r.Name, "Function"))}
		b, err := read("functions/" + fn.Dir + "/main.go")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		}
		main, err := p.functionMain(b)
		if err != nil {
			return nil, fmt.Errorf("functions/%s/main.go: %w", fn.Dir, err)
		}
		files = append(files, File{"functions/" + fn.Dir + "/main.go", main})
		fns = append(fns, fn)
	}
	if len(fns) == 0 {
		return nil, errors.New("a2a-lambda's template.yaml builds no function with its Makefile (Metadata: BuildMethod: makefile)")
	}

	events, err := copyTree(source, "events")
	if err != nil {
		return nil, err
	}
	files = append(files, events...)

	rendered, err := p.render(fns)
	if err != nil {
		return nil, err
	}
	files = append(files, rendered...)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// goMod returns the project's go.mod: the Go version of a2a-lambda's
// (ours), the requirement, and the replace directive if any. `go mod
// tidy` completes it.
func (p Project) goMod(ours []byte) ([]byte, error) {
	theirs, err := modfile.ParseLax("go.mod", ours, nil)
	if err != nil {
		return nil, fmt.Errorf("a2a-lambda's go.mod: %w", err)
	}
	f := &modfile.File{}
	steps := []error{f.AddModuleStmt(p.Module), f.AddRequire(buildinfo.Module, p.Require)}
	if theirs.Go != nil {
		steps = append(steps, f.AddGoStmt(theirs.Go.Version))
	}
	if p.Replace != "" {
		steps = append(steps, f.AddReplace(buildinfo.Module, "", p.Replace, ""))
	}
	if err := errors.Join(steps...); err != nil {
		return nil, fmt.Errorf("go.mod: %w", err)
	}
	f.Cleanup()
	return f.Format()
}

// builtinImport is how our functions import the built-in registry.
var builtinImport = strconv.Quote(buildinfo.Module + "/pkg/agent/builtin")

// functionMain returns our main of a function (src) for the project: where
// ours passes builtin.Registry(), the project passes its own Registry(),
// which holds the built-in agents and the project's. A function that
// never runs the agent (push, deliver) is ours as it is.
func (p Project) functionMain(src []byte) ([]byte, error) {
	s := string(src)
	if strings.Contains(s, builtinImport) {
		s = strings.Replace(s, builtinImport, p.importSpec(), 1)
		s = strings.ReplaceAll(s, "builtin.Registry()", p.Package+".Registry()")
	}
	return format.Source([]byte(s))
}

// importSpec is the import of the project's package, named when its name
// is not the path's last element.
func (p Project) importSpec() string {
	if path.Base(p.Module) == p.Package {
		return strconv.Quote(p.Module)
	}
	return p.Package + " " + strconv.Quote(p.Module)
}

// copyTree returns the files under dir of source.
func copyTree(source, dir string) ([]File, error) {
	var files []File
	root := os.DirFS(source)
	err := fs.WalkDir(root, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, name)
		files = append(files, File{name, b})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading a2a-lambda's %s: %w", dir, err)
	}
	return files, nil
}

// render returns the files of the skeleton: each skeleton/X.tmpl is the
// project's X (with NAME in X replaced by the project's name), a
// text/template with [[ ]] delimiters; Go files are gofmt'ed.
func (p Project) render(fns []function) ([]File, error) {
	data := map[string]any{
		"Module": p.Module, "Package": p.Package, "Name": p.Name, "Import": p.importSpec(),
		"EnvPrefix": strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_")),
		"A2AModule": buildinfo.Module, "A2AVersion": p.Require, "Replaced": p.Replace != "",
		"Functions": fns,
	}
	var files []File
	err := fs.WalkDir(skeleton, "skeleton", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(skeleton, name)
		if err != nil {
			return err
		}
		t, err := template.New(name).Delims("[[", "]]").Option("missingkey=error").Parse(string(b))
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := t.Execute(&out, data); err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "skeleton/"), ".tmpl")
		rel = strings.ReplaceAll(rel, "NAME", p.Name)
		text := out.Bytes()
		if strings.HasSuffix(rel, ".go") {
			if text, err = format.Source(text); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		files = append(files, File{rel, text})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	return files, nil
}

// CheckDir returns a UsageError unless dir is missing or
// an empty directory: the scaffold never writes over files.
func CheckDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return usageError("%s exists and is not a directory", dir)
		}
		return usageError("%s: %w", dir, err)
	case len(entries) > 0:
		return usageError("%s exists and is not empty (%d entries): give a new or empty directory", dir, len(entries))
	}
	return nil
}

// Write writes files into dir, which CheckDir must accept; it creates
// dir and the directories the files need. A file's path must stay inside
// dir.
func Write(dir string, files []File) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("%s: not a path inside the project", f.Path)
		}
	}
	for _, f := range files {
		name := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
