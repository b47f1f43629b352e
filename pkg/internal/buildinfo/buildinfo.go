// Package buildinfo tells which version of this module a binary holds, read
// from the build information Go records in every binary
// (runtime/debug.ReadBuildInfo). /health, the agent card and `a2a version`
// report it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Module is this module's path.
const Module = "github.com/a2a-lambda/a2a-lambda"

// Devel is the version of a build that says nothing about its origin (a
// test binary, or a build without version control information).
const Devel = "devel"

// Version is the version of this module in the running binary (see Of).
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi)
}

// Of is the version of this module that bi describes:
//   - built as the main module, its version: a release tag, or the
//     pseudo-version Go stamps from the commit (go build in a clone);
//   - required by another module (your agent's), the version required,
//     or "devel (replaced by PATH)" for a local replacement;
//   - else, built as the main module without a version, the commit
//     (vcs.revision, shortened, "+dirty" when modified, and vcs.time);
//   - else Devel. Never Go's "(devel)" placeholder.
func Of(bi *debug.BuildInfo) string {
	if bi == nil {
		return Devel
	}
	if bi.Main.Path != Module {
		for _, d := range bi.Deps {
			if d.Path != Module {
				continue
			}
			if d.Replace != nil {
				if d.Replace.Version != "" {
					return d.Replace.Version
				}
				return Devel + " (replaced by " + d.Replace.Path + ")"
			}
			return d.Version
		}
		return Devel
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Devel
	}
	v := Devel + " " + rev[:min(len(rev), 12)]
	if dirty {
		v += "+dirty"
	}
	if when != "" {
		v += " " + when
	}
	return strings.TrimSpace(v)
}
