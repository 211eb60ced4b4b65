package version

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261201-abcdef"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	cases := []struct {
		name              string
		version, revision string
		bi                *debug.BuildInfo
		want              Info
	}{{
		name:    "linker flags win over the build information",
		version: "v1.3.0", revision: "1234567",
		bi:   stamped,
		want: Info{Version: "v1.3.0", Revision: "1234567", Modified: true, GoVersion: "go1.26.8"},
	}, {
		name: "build information alone",
		bi:   stamped,
		want: Info{Version: "v0.0.0-20261201-abcdef", Revision: "abcdef0123", Modified: true, GoVersion: "go1.26.8"},
	}, {
		name:    "a dirty revision from the Makefile",
		version: "v1.3.0", revision: "1234567-dirty",
		bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
		want: Info{Version: "v1.3.0", Revision: "1234567", Modified: true, GoVersion: "go1.26.8"},
	}, {
		name: "nothing known",
		want: Info{Version: Unknown, Revision: Unknown, GoVersion: runtime.Version()},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.version, tc.revision, tc.bi); got != tc.want {
				t.Errorf("resolve = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v1.3.0", Revision: "1234567", GoVersion: "go1.26.8"}
	if got, want := i.String(), "v1.3.0 (revision 1234567, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	i.Modified = true
	if got, want := i.String(), "v1.3.0 (revision 1234567, modified, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	var zero Info
	_ = zero.String() // a zero Info must not panic
}
