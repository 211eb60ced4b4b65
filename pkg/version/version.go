package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the Makefile's build and image targets:
//
//	-ldflags "-X github.com/ome-routing/operator/pkg/version.version=v1.3.0
//	          -X github.com/ome-routing/operator/pkg/version.revision=<git commit>"
//
// They stay empty for a plain go build, which the build information stands in for.
var (
	version  string
	revision string
)

// Unknown is what a field reads when neither the linker flags nor the build information
// give it.
const Unknown = "unknown"

// Info is one binary's build.
type Info struct {
	// Version is the release, such as v1.3.0; for a build not stamped by the Makefile it is
	// the module version Go recorded (a tag, a pseudo-version, or "(devel)").
	Version string `json:"version"`
	// Revision is the VCS commit the binary was built from.
	Revision string `json:"revision"`
	// Modified is true when the working tree had uncommitted changes at build time, as far
	// as the build information says.
	Modified bool `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
}

// Get returns the running binary's build.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, revision, bi)
}

// resolve prefers what the linker flags set and falls back to the build information (bi
// may be nil: a binary built without module support has none).
func resolve(version, revision string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Revision: revision, GoVersion: runtime.Version()}
	if bi != nil {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		if info.Version == "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Revision == "" {
					info.Revision = s.Value
				}
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Version == "" {
		info.Version = Unknown
	}
	if info.Revision == "" {
		info.Revision = Unknown
	}
	// A -dirty suffix from the Makefile's `git describe` says the same as vcs.modified.
	if strings.HasSuffix(info.Revision, "-dirty") {
		info.Revision, info.Modified = strings.TrimSuffix(info.Revision, "-dirty"), true
	}
	return info
}

// String is the one line `--version` prints after the program's name: the version, then
// the revision (with "modified" when the tree was not clean) and the Go version.
func (i Info) String() string {
	rev := i.Revision
	if i.Modified {
		rev += ", modified"
	}
	return fmt.Sprintf("%s (revision %s, %s)", i.Version, rev, i.GoVersion)
}
