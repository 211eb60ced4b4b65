package chart

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDefaultImage: with no image values the manager runs the image make image builds,
// named from values.yaml's repository and tagged with Chart.yaml's appVersion.
func TestDefaultImage(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	readYAML(t, filepath.Join(chartDir(t), "Chart.yaml"), &chart)
	var values struct {
		Image struct {
			Repository string `json:"repository"`
		} `json:"image"`
	}
	readYAML(t, filepath.Join(chartDir(t), "values.yaml"), &values)
	const want = "ghcr.io/ome-routing/ome-manager"
	if values.Image.Repository != want {
		t.Errorf("values.yaml image.repository = %q, want this project's image %q", values.Image.Repository, want)
	}

	c := manager(t, render(t, "").deployment(t))
	if c.Image != want+":"+chart.AppVersion {
		t.Errorf("the manager's image is %q, want %s:%s", c.Image, want, chart.AppVersion)
	}
	if got := manager(t, render(t, "", "--set", "image.tag=dev").deployment(t)).Image; got != want+":dev" {
		t.Errorf("with image.tag=dev the manager's image is %q, want %s:dev", got, want)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
