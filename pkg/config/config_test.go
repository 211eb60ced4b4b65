package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ome-routing/operator/test/probecases"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	step1 := &Config{Routing: Routing{Enabled: true, Probe: step1Policy(), Observer: chartObserverConfig()}}

	tests := []struct {
		name    string
		path    string
		want    *Config
		wantErr string // a prefix of the error
	}{
		{name: "step 1", path: write("step1.json", enabled(step1Probe(), chartObserver())), want: step1},
		{name: "no file", path: filepath.Join(dir, "absent.json"), wantErr: "load multi-cluster configuration: open " + filepath.Join(dir, "absent.json") + ": no such file or directory"},
		{name: "empty file", path: write("empty.json", ""), want: routingOff()},
		{
			name:    "invalid file",
			path:    write("invalid.json", enabled(with(step1Probe(), "timeout", "10s"), chartObserver())),
			wantErr: "invalid multi-cluster configuration: routing.probe.timeout (10s) must be shorter than routing.probe.period (10s)",
		},
		{
			name:    "probe without path",
			path:    write("nopath.json", enabled(with(step1Probe(), "path", drop), chartObserver())),
			wantErr: "load multi-cluster configuration: unable to parse multicluster config json: routing.probe.path is required",
		},
		{name: "unreadable: a directory", path: dir, wantErr: "load multi-cluster configuration: read " + dir + ": "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(tc.path)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("Load() error = %v, want one starting with %q", err, tc.wantErr)
				}
				errorLines(t, err)
				return
			}
			if err != nil {
				t.Fatalf("Load() error:\n%v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Load() =\n%s\nwant\n%s", describe(got), describe(tc.want))
			}
		})
	}
}

// TestParseAgreesWithAPIServer runs the probe blocks that the API server and pkg/probe are
// both held to through the installation config: a block that the API server accepts loads,
// and one that it refuses does not. The exceptions: {} is this file's way of setting no
// probe, and disabled, which a service uses to turn the installation's probe off, is refused.
func TestParseAgreesWithAPIServer(t *testing.T) {
	for _, c := range probecases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			doc := `{"routing": {"probe": ` + c.JSON + `}}`
			_, err := Parse([]byte(doc))
			wantOK := c.CELMessage == "" && !strings.Contains(c.JSON, `"disabled"`)
			if c.JSON == "{}" {
				wantOK = true
			}
			switch {
			case wantOK && err != nil:
				t.Errorf("Parse() error:\n%v\nwant none: the API server accepts %s", err, c.JSON)
			case !wantOK && err == nil:
				t.Errorf("Parse() accepted %s, which the API server refuses (%q) or which sets disabled", c.JSON, c.CELMessage)
			case err != nil:
				errorLines(t, err)
			}
		})
	}
}
