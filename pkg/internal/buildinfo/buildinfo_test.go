package buildinfo_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/buildinfo"
)

func TestOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	main := func(v string, settings ...debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: buildinfo.Module, Version: v}, Settings: settings}
	}
	user := func(deps ...*debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/myagent", Version: "(devel)"}, Deps: deps}
	}
	for name, tc := range map[string]struct {
		bi   *debug.BuildInfo
		want string
	}{
		"release":               {main("v1.2.3"), "v1.2.3"},
		"pseudo-version":        {main("v0.0.0-20261126221500-0123456789ab+dirty"), "v0.0.0-20261126221500-0123456789ab+dirty"},
		"commit":                {main("(devel)", vcs("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-26T22:15:00Z", "vcs.modified", "false")...), "devel 0123456789ab 2026-11-26T22:15:00Z"},
		"modified commit":       {main("", vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")...), "devel 0123456789ab+dirty"},
		"nothing known":         {main("(devel)"), "devel"},
		"no build info":         {nil, "devel"},
		"a dependency":          {user(&debug.Module{Path: buildinfo.Module, Version: "v1.4.0"}), "v1.4.0"},
		"replaced":              {user(&debug.Module{Path: buildinfo.Module, Version: "v1.4.0", Replace: &debug.Module{Path: "../a2a-lambda"}}), "devel (replaced by ../a2a-lambda)"},
		"replaced by a version": {user(&debug.Module{Path: buildinfo.Module, Version: "v1.4.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.4.1"}}), "v1.4.1"},
		"not linked":            {user(), "devel"},
	} {
		t.Run(name, func(t *testing.T) {
			got := buildinfo.Of(tc.bi)
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, got, "(devel)")
		})
	}
}

// A binary built from a clone of this repository reports the commit it
// was built from, as Go stamps it (-buildvcs: this machine's go env turns
// it off), never "(devel)". Go stamps nothing in a git worktree (its .git
// is a file): there the binary says "devel", plainly.
func TestBuiltBinaryReportsItsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "a2a")
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-trimpath", "-o", bin, "../../../cmd/a2a").CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command(bin, "version").CombinedOutput()
	require.NoError(t, err, string(out))
	v := strings.TrimSpace(string(out))
	assert.NotContains(t, v, "(devel)")
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	rev := regexp.MustCompile(`vcs\.revision=([0-9a-f]{12})`).FindSubmatch(meta)
	if rev == nil {
		t.Logf("no version control information in the build (a worktree, or no git): %s", v)
		assert.Equal(t, "a2a-lambda devel", v)
		return
	}
	assert.Contains(t, v, string(rev[1]), "the commit (in the pseudo-version Go stamps, or the vcs.revision)")
}
