package infra_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's layout table names every package of the repository with a
// line on what it provides: a package added without its line fails here.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "The layout, every package with what it provides:\n\n```\n")
	require.True(t, ok, "README.md has the layout table")
	table, _, _ = strings.Cut(table, "```")
	named := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			named[f[0]] = true
		}
	}

	packages := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !d.IsDir() {
			if strings.HasSuffix(rel, ".go") {
				packages[path.Dir(rel)] = true
			}
			return nil
		}
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
			// A module of its own (the interop tests): its one line names it.
			packages[rel] = true
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, packages)
	for p := range packages {
		assert.True(t, named[p] || named[path.Dir(p)+"/<name>"], "README.md's layout table has no line for %s", p)
	}
}
