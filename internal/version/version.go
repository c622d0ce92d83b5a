// Package version says which poppy-browser this is, for `poppy-browser
// --version` and the MCP server's serverInfo.version alike.
//
// It owns only the reading of the binary's build information; it must not
// import any other package of the module.
package version

import (
	"runtime/debug"
	"sync"
)

// String is the module version the binary was built at ("v0.3.1"), else
// the VCS revision it was built from (with its time, and "+dirty" for a
// modified tree), else "dev".
var String = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(bi)
})

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel " + rev
	if dirty {
		v += "+dirty"
	}
	if at != "" {
		v += " " + at
	}
	return v
}
