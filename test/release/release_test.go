package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// LICENSE is the Apache License 2.0 word for word, as the Kubernetes modules this project
// builds on ship it.
func TestLicenseIsApache2(t *testing.T) {
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/apimachinery")
	cmd.Dir = root
	dir, err := cmd.Output()
	if err != nil {
		t.Fatalf("find k8s.io/apimachinery in the module cache: %v", err)
	}
	want := read(t, filepath.Join(strings.TrimSpace(string(dir)), "LICENSE"))
	if !strings.Contains(want, "Apache License\n                           Version 2.0, January 2004") {
		t.Fatalf("k8s.io/apimachinery's LICENSE is not Apache 2.0; the reference moved")
	}
	if got := read(t, filepath.Join(root, "LICENSE")); got != want {
		t.Errorf("LICENSE is not the Apache License 2.0 text (%d bytes, want %d)", len(got), len(want))
	}
}

// CHANGELOG.md keeps a changelog (keepachangelog.com) whose newest version is the chart's
// appVersion, the version the binaries report, with a link for it.
func TestChangelogHasTheCurrentVersion(t *testing.T) {
	root := repoRoot(t)
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal([]byte(read(t, filepath.Join(root, "charts", "ome-resources", "Chart.yaml"))), &chart); err != nil {
		t.Fatal(err)
	}
	log := read(t, filepath.Join(root, "CHANGELOG.md"))
	if !strings.HasPrefix(log, "# Changelog\n") || !strings.Contains(log, "[Keep a Changelog](https://keepachangelog.com/") {
		t.Errorf("CHANGELOG.md does not start as a Keep a Changelog file")
	}
	versions := regexp.MustCompile(`(?m)^## \[([^\]]+)\](?: - (.+))?$`).FindAllStringSubmatch(log, -1)
	if len(versions) == 0 {
		t.Fatal("CHANGELOG.md has no version section (## [version] - date)")
	}
	if newest := versions[0][1]; newest != chart.AppVersion {
		t.Errorf("the newest CHANGELOG version is %s, want the chart's appVersion %s", newest, chart.AppVersion)
	}
	if !regexp.MustCompile(`(?m)^### (Added|Changed|Deprecated|Removed|Fixed|Security)$`).MatchString(log) {
		t.Error("CHANGELOG.md has no change type section (### Added, ### Fixed, ...)")
	}
	if !strings.Contains(log, "\n["+chart.AppVersion+"]: https://") {
		t.Errorf("CHANGELOG.md has no link for [%s]", chart.AppVersion)
	}
}
