package infra_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// settingName is an A2A_* setting as the code spells it. It ends with a
// letter or digit, so a prefix the code matches ("A2A_") is not a setting.
var settingName = regexp.MustCompile(`A2A_[A-Z0-9_]*[A-Z0-9]`)

// testOnlySettings are the A2A_* names the scanned code holds that are not
// settings of anyone who runs or deploys the host, and so have no row in
// docs/configuration.md. Each says why.
var testOnlySettings = map[string]string{
	// awstest.Main sets it for the test binary it runs, to tell that binary's
	// tests why there is no moto to use (they skip, saying so); nobody sets it.
	"A2A_TEST_AWS_UNAVAILABLE": "set by pkg/testkit/awstest.Main for its own test binary",
}

// scriptsReadingSettings are the files other than Go that read A2A_*
// settings: the local AWS launcher, the load test and the Makefile.
var scriptsReadingSettings = []string{
	"Makefile",
	"infra/localaws/moto_server_launcher.py",
	"infra/localaws/with-local-aws",
	"infra/load/load.lua",
	"infra/load/run.sh",
}

// settingsInCode finds every A2A_* name in the string literals of the
// repository's non-test Go files (settings read with getenv or an
// agent.Settings, and the names messages quote), and in the scripts above.
// It maps each name to where it was first seen.
func settingsInCode(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	see := func(text, where string) {
		for _, name := range settingName.FindAllString(text, -1) {
			if _, ok := found[name]; !ok {
				found[name] = where
			}
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			pos := fset.Position(lit.Pos())
			rel, _ := filepath.Rel(root, pos.Filename)
			see(s, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line))
			return true
		})
		return nil
	})
	require.NoError(t, err)
	for _, script := range scriptsReadingSettings {
		b, err := os.ReadFile(filepath.Join(root, script))
		require.NoError(t, err)
		see(string(b), script)
	}
	return found
}

// documentedSettings reads the tables of docs/configuration.md: every A2A_*
// name in a row's first cell, with the row's second cell, its default.
func documentedSettings(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "configuration.md"))
	require.NoError(t, err)
	documented := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := tableCells(line)
		require.Len(t, cells, 3, "docs/configuration.md: a row of three cells (variable, default, meaning): %s", line)
		def := cells[1]
		for _, name := range settingName.FindAllString(cells[0], -1) {
			_, twice := documented[name]
			assert.False(t, twice, "docs/configuration.md has two rows for %s", name)
			documented[name] = def
		}
	}
	return documented
}

// tableCells splits a Markdown table row into its trimmed cells; a pipe
// escaped as \| stays in its cell.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteString(`\|`)
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// Every A2A_* setting the code reads has a row in docs/configuration.md with
// its default, and every row there names a setting the code still reads.
func TestEverySettingIsDocumented(t *testing.T) {
	inCode := settingsInCode(t)
	documented := documentedSettings(t)
	require.NotEmpty(t, inCode)
	require.NotEmpty(t, documented)

	names := make([]string, 0, len(inCode))
	for name := range inCode {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := testOnlySettings[name]; ok {
			continue
		}
		def, ok := documented[name]
		if !assert.True(t, ok, "%s is read by the code (%s) but docs/configuration.md has no row for it", name, inCode[name]) {
			continue
		}
		assert.NotEmpty(t, def, "docs/configuration.md's row for %s gives no default", name)
	}
	for name := range documented {
		_, read := inCode[name]
		assert.True(t, read, "docs/configuration.md documents %s, which no code reads any more", name)
	}
	for name, why := range testOnlySettings {
		_, read := inCode[name]
		assert.True(t, read, "%s is listed as test-only (%s) but no code reads it: drop it from the list", name, why)
		_, doc := documented[name]
		assert.False(t, doc, "%s is test-only (%s) yet documented as a setting", name, why)
	}
}

// markdownLink is an inline link or image: [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// atxHeading is a Markdown heading line: one to six #, then a space.
var atxHeading = regexp.MustCompile(`^#{1,6} `)

// htmlAnchor is an anchor placed by hand: <a id="name"></a>.
var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// githubAnchor is the fragment GitHub gives a heading: lower case, inline
// code and link syntax reduced to their text, punctuation dropped, spaces
// as hyphens.
func githubAnchor(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchorsOf lists the fragments a Markdown file offers: its headings' (the
// second of two equal headings gets -1, as on GitHub) and its hand-placed
// anchors. Lines in code blocks are not headings.
func anchorsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	anchors := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		if !atxHeading.MatchString(line) {
			continue
		}
		a := githubAnchor(strings.TrimSpace(strings.TrimLeft(line, "#")))
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	require.NoError(t, sc.Err())
	return anchors
}

// guideFiles are the README and every file of docs/.
func guideFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	return append(files, docs...)
}

// Every relative link of the README and docs/ reaches a file of the
// repository, and its fragment a heading (or anchor) of that file.
func TestDocsLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	for _, file := range guideFiles(t) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		inCode := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			line = regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "")
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				where := fmt.Sprintf("%s:%d", filepath.ToSlash(strings.TrimPrefix(file, root+"/")), i+1)
				path, fragment, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				if _, err := os.Stat(dest); !assert.NoError(t, err, "%s links to %s, which does not exist", where, target) {
					continue
				}
				if fragment == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s links to a fragment of %s, which is not Markdown", where, target)
					continue
				}
				if anchors[dest] == nil {
					anchors[dest] = anchorsOf(t, dest)
				}
				assert.True(t, anchors[dest][fragment], "%s links to %s: no heading or anchor #%s there", where, target, fragment)
			}
		}
	}
}

// The README is a guide a newcomer reads in an hour: at most 700 lines,
// with a table of contents that links every section.
func TestReadmeIsAGuide(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	text := string(b)
	lines := strings.Count(text, "\n")
	assert.LessOrEqual(t, lines, 700, "README.md has %d lines: move reference text to docs/", lines)
	_, contents, ok := strings.Cut(text, "\n## Contents\n")
	require.True(t, ok, "README.md has a Contents section")
	contents, _, _ = strings.Cut(contents, "\n## ")
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "## ") || line == "## Contents" {
			continue
		}
		anchor := "(#" + githubAnchor(strings.TrimPrefix(line, "## ")) + ")"
		assert.Contains(t, contents, anchor, "README.md's contents do not link the section %q", line)
	}
}

// Every parameter of the template has a row in docs/deploy.md's table of
// parameters, and every parameter the table names is the template's.
func TestEveryParameterIsDocumented(t *testing.T) {
	tpl, err := samtemplate.Load(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	params := samtemplate.Keys(samtemplate.Get(tpl.Root, "Parameters"))
	require.NotEmpty(t, params)

	b, err := os.ReadFile(filepath.Join(root, "docs", "deploy.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "| Parameter | Default | Sets |\n")
	require.True(t, ok, "docs/deploy.md has the table of parameters")
	table, _, _ = strings.Cut(table, "\n\n")
	documented := map[string]bool{}
	for _, row := range strings.Split(table, "\n")[1:] {
		for _, m := range regexp.MustCompile("`([A-Z][A-Za-z0-9]+)`").FindAllStringSubmatch(tableCells(row)[0], -1) {
			documented[m[1]] = true
		}
	}
	inTemplate := map[string]bool{}
	for _, p := range params {
		inTemplate[p] = true
		assert.True(t, documented[p], "the template's parameter %s has no row in docs/deploy.md's table of parameters", p)
	}
	for p := range documented {
		assert.True(t, inTemplate[p], "docs/deploy.md's table of parameters names %s, which the template does not have", p)
	}
}

// goTestCommand is a `go test ...` command the docs give, in backticks;
// testFuncName a test, benchmark or fuzzer its -run, -bench or -fuzz names.
var (
	goTestCommand = regexp.MustCompile("`go test [^`]*`")
	testFuncName  = regexp.MustCompile(`^(Test|Benchmark|Fuzz)[A-Za-z0-9_]+$`)
)

// Every `go test` command the README and docs/ give names packages that
// exist, and the tests, benchmarks or fuzzers its -run, -bench or -fuzz
// names (a plain name or names joined by |) are in them: a package moved
// by a restructuring leaves no command behind that fails for the reader.
// The history of docs/measured.md keeps the commands as they were run.
func TestDocsCommandsNameRealPackages(t *testing.T) {
	commands := 0
	for _, file := range guideFiles(t) {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		text, _, _ := strings.Cut(string(b), "\n## History")
		// A command may wrap over lines; the flags and paths are words.
		for _, m := range goTestCommand.FindAllString(strings.ReplaceAll(text, "\n", " "), -1) {
			var dirs, names []string
			words := strings.Fields(strings.Trim(m, "`"))
			for i, w := range words {
				switch {
				case strings.HasPrefix(w, "./"):
					dirs = append(dirs, strings.TrimSuffix(strings.TrimSuffix(w, "/..."), "/"))
				case (w == "-run" || w == "-bench" || w == "-fuzz") && i+1 < len(words):
					for _, n := range strings.Split(strings.Trim(words[i+1], `'"^$`), "|") {
						if testFuncName.MatchString(n) {
							names = append(names, n)
						}
					}
				}
			}
			if len(dirs) == 0 {
				continue // prose about go test, not a command
			}
			commands++
			where := fmt.Sprintf("%s: %s", filepath.Base(file), m)
			var source strings.Builder
			for _, d := range dirs {
				tests, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(d), "*_test.go"))
				require.NoError(t, err)
				if !assert.NotEmpty(t, tests, "%s: no tests in %s", where, d) {
					continue
				}
				for _, f := range tests {
					b, err := os.ReadFile(f)
					require.NoError(t, err)
					source.Write(b)
				}
			}
			for _, n := range names {
				assert.Regexp(t, `func `+n, source.String(), "%s: no %s in %s", where, n, dirs)
			}
		}
	}
	assert.GreaterOrEqual(t, commands, 3, "the docs give go test commands")
}

// `make fuzz` runs every fuzzer of the module, each in its own package
// (the target named packages that had moved under pkg/internal, and so
// failed at its first line).
func TestMakeFuzzRunsEveryFuzzer(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	inMake := map[string]bool{}
	for _, m := range regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$\$' -fuzztime \$\(FUZZTIME\) \./(\S+)`).FindAllStringSubmatch(string(b), -1) {
		inMake[m[2]+" "+m[1]] = true
	}
	found := map[string]bool{}
	fuzzer := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzer.FindAllStringSubmatch(string(src), -1) {
			found[filepath.ToSlash(dir)+" "+m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, found)
	for f := range found {
		assert.True(t, inMake[f], "make fuzz does not run %s", f)
	}
	for f := range inMake {
		assert.True(t, found[f], "make fuzz runs %s, which is not a fuzzer of that package", f)
	}
}
