package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/scaffold"
)

// initProject writes a new project of the user's own agent into DIR (see package
// scaffold): a module that requires the version of a2a-lambda this command
// was built from, or, with --replace, a local checkout of it. A DIR that
// is not empty, or a module path that is not one, is a usage error; the
// files are written only once everything they need was read.
func (r *runner) initProject(args []string) int {
	fs := r.baseFlags()
	mod := fs.String("module", "", "the new module's path, such as example.com/myagent (required)")
	replace := fs.String("replace", "", "a local checkout of a2a-lambda to use instead of its released version (offline use and tests)")
	pos, code, ok := r.parse(fs, args, 1, 1)
	if !ok {
		return code
	}
	dir := pos[0]
	fail := func(err error) int {
		var usage *scaffold.UsageError
		if errors.As(err, &usage) {
			return r.report(ExitUsage, err, "")
		}
		return r.report(ExitError, err, "")
	}
	p, err := scaffold.New(scaffold.Options{Module: *mod, Version: buildinfo.Version(), Replace: *replace})
	if err != nil {
		return fail(err)
	}
	if err := scaffold.CheckDir(dir); err != nil {
		return fail(err)
	}
	var goCmd scaffold.Go
	source := p.Replace
	if source == "" {
		if source, err = goCmd.ModuleDir(r.ctx, p.Require); err != nil {
			return fail(fmt.Errorf("reading a2a-lambda %s's template from the module cache: %w (offline, give --replace PATH, a checkout of a2a-lambda)", p.Require, err))
		}
	}
	files, err := p.Files(source)
	if err != nil {
		return fail(err)
	}
	if err := scaffold.Write(dir, files); err != nil {
		return fail(err)
	}
	fmt.Fprintf(r.out, "a2a init: %s, agent %q, in %s:\n", p.Module, p.Name, dir)
	for _, line := range summary(files) {
		fmt.Fprintf(r.out, "  %s\n", line)
	}
	if !goCmd.Found() {
		fmt.Fprintf(r.out, "a2a init: the go command is not on PATH, so go.sum is not written yet: run go mod tidy in %s\n", dir)
	} else if err := goCmd.Tidy(r.ctx, dir); err != nil {
		return fail(fmt.Errorf("wrote %s in %s, but %w; run go mod tidy there again once the modules can be downloaded", p.Module, dir, err))
	} else {
		fmt.Fprintln(r.out, "  go.sum (go mod tidy)")
	}
	fmt.Fprintf(r.out, "\nNext:\n  cd %s\n  make test     # the agent's test\n  make run      # serves it on http://127.0.0.1:8000\nthen edit agent.go; README.md says how to deploy it.\n", dir)
	return ExitOK
}

// summary lists files by their first path element: a file at the top, or
// a directory with the number of files under it.
func summary(files []scaffold.File) []string {
	var lines []string
	count := map[string]int{}
	for _, f := range files {
		top, _, nested := strings.Cut(f.Path, "/")
		if !nested {
			lines = append(lines, top)
			continue
		}
		if count[top] == 0 {
			lines = append(lines, top+"/")
		}
		count[top]++
	}
	for i, l := range lines {
		if n := count[strings.TrimSuffix(l, "/")]; strings.HasSuffix(l, "/") {
			lines[i] = fmt.Sprintf("%s (%d %s)", l, n, map[bool]string{true: "file", false: "files"}[n == 1])
		}
	}
	return lines
}
