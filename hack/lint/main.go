// Command golangci-lint is golangci-lint with kube-api-linter (KAL) compiled in as the
// module plugin "kubeapilinter", so that `make lint` checks the API types with the same
// binary and run as the rest of the code. One binary instead of golangci-lint plus KAL's
// own build of it: CI compiles golangci-lint's dependencies once, and KAL adds only its
// own packages. This is KAL's cmd/golangci-lint-kube-api-linter, with the version line of
// golangci-lint's cmd/golangci-lint.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// Registers the "kubeapilinter" module plugin that .golangci.yml enables.
	_ "sigs.k8s.io/kube-api-linter"
)

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo reports the versions of the two modules this binary is made of, read from
// the build, since this module has no version of its own: `golangci-lint-... version`
// prints "2.15.0 with kube-api-linter v0.0.0-...".
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "?", Date: "(unknown)", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	versions := map[string]string{}
	for _, dep := range bi.Deps {
		versions[dep.Path] = dep.Version
	}
	info.Version = fmt.Sprintf("%s with kube-api-linter %s",
		strings.TrimPrefix(versions["github.com/golangci/golangci-lint/v2"], "v"),
		versions["sigs.k8s.io/kube-api-linter"])
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			info.Commit = s.Value
		}
	}
	return info
}
