package chart

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	releaseName      = "ome"
	releaseNamespace = "ome"
	managerName      = "ome-controller-manager"
	configMapName    = "inferenceservice-config"
	configKey        = "multicluster"
	// topologyError is the chart's own refusal, word for word as users' scripts match it.
	topologyError = "ome.multicluster.config.routing.enabled=true requires ome.multicluster.enabled=true and ome.multicluster.role=control-plane"
	// schemaErrorHeader starts every schema rejection that helm prints.
	schemaErrorHeader = "values don't meet the specifications of the schema(s) in the following chart(s):\nome-resources:\n"
)

// step1Values is the values file of Step 1 in the routing health probes guide.
const step1Values = `ome:
  multicluster:
    enabled: true
    role: control-plane
    config:
      routing:
        enabled: true
        probe:
          path: /v1/models
          method: GET
          acceptStatuses: [200]
          gateStatuses: [404, 500, 502, 503, 504]
          period: 10s
          timeout: 3s
          failureThreshold: 3
          successThreshold: 2
          allFailedPolicy: PreserveTraffic
`

// repoRoot is the module's root directory, two levels above this file.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("runtime.Caller: no file for this test")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func chartDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), "charts", "ome-resources")
}

// helmBin is the helm that make test passes in $HELM.
func helmBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("HELM")
	if bin == "" {
		t.Skip("HELM is not set: these tests run helm; make test sets HELM to the helm it builds into bin/")
	}
	chartRead.Do(func() { chartReadErr = readChart(chartDir(t)) })
	if chartReadErr != nil {
		t.Fatalf("read the chart: %v", chartReadErr)
	}
	return bin
}

var (
	chartRead    sync.Once
	chartReadErr error
)

// readChart reads every file of the chart. go test caches a package's result until a file
// that the test itself opened changes; it does not see the files that helm opens, so
// without this a changed template would leave a stale pass in the cache.
func readChart(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
}

// runHelm runs helm with args and returns its stdout, its stderr and how it exited.
func runHelm(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	// Keep helm away from the user's repositories, plugins and caches.
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		if _, exited := errors.AsType[*exec.ExitError](err); !exited {
			t.Fatalf("run helm %q: %v", args, err)
		}
	}
	return stdout.String(), stderr.String(), err
}

// templateArgs is helm template for the release, with values (a values file's content,
// if not empty) and any further flags.
func templateArgs(t *testing.T, values string, extra ...string) []string {
	t.Helper()
	args := []string{"template", releaseName, chartDir(t), "--namespace", releaseNamespace}
	if values != "" {
		args = append(args, "--values", valuesFile(t, values))
	}
	return append(args, extra...)
}

// valuesFile writes values to a file for helm's --values. Not in t.TempDir: helm splits
// --values at commas, which subtest names may hold.
func valuesFile(t *testing.T, values string) string {
	t.Helper()
	f, err := os.CreateTemp("", "ome-chart-values-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	if _, err := f.WriteString(values); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// render renders the chart and fails the test if helm refuses.
func render(t *testing.T, values string, extra ...string) rendered {
	t.Helper()
	stdout, stderr, err := runHelm(t, templateArgs(t, values, extra...)...)
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	return parseManifests(t, stdout)
}

// renderError renders the chart, expecting helm to refuse, and returns what it printed.
func renderError(t *testing.T, values string, extra ...string) string {
	t.Helper()
	stdout, stderr, err := runHelm(t, templateArgs(t, values, extra...)...)
	if err == nil {
		t.Fatalf("helm template succeeded, want an error; it rendered:\n%s", stdout)
	}
	return stderr
}

// rendered holds the documents of a helm template output, by kind and name.
type rendered map[string][]byte

func key(kind, name string) string { return kind + "/" + name }

func parseManifests(t *testing.T, out string) rendered {
	t.Helper()
	docs := rendered{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("read helm output: %v", err)
		}
		var head struct {
			metav1.TypeMeta   `json:",inline"`
			metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatalf("decode a rendered document: %v\n%s", err, doc)
		}
		if head.Kind == "" {
			continue // only comments
		}
		k := key(head.Kind, head.Name)
		if _, dup := docs[k]; dup {
			t.Fatalf("the chart renders %s twice", k)
		}
		docs[k] = doc
	}
}

// object decodes the rendered kind/name into obj, failing the test if it is missing.
func (r rendered) object(t *testing.T, kind, name string, obj any) {
	t.Helper()
	doc, ok := r[key(kind, name)]
	if !ok {
		t.Fatalf("the chart renders no %s %s; it renders %v", kind, name, r.names())
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatalf("decode %s %s: %v", kind, name, err)
	}
}

func (r rendered) names() []string {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	return names
}

func (r rendered) deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	r.object(t, "Deployment", managerName, &d)
	return &d
}

// multiclusterJSON is what the manager reads: the ConfigMap's multicluster key.
func (r rendered) multiclusterJSON(t *testing.T) string {
	t.Helper()
	var cm corev1.ConfigMap
	r.object(t, "ConfigMap", configMapName, &cm)
	data, ok := cm.Data[configKey]
	if !ok {
		t.Fatalf("ConfigMap %s has no %s key: %v", configMapName, configKey, cm.Data)
	}
	return data
}

// edit returns base with old replaced by new once, failing the test when old is absent, so
// that a case cannot silently test the unchanged values.
func edit(t *testing.T, base, old, new string) string {
	t.Helper()
	if !strings.Contains(base, old) {
		t.Fatalf("values to edit do not contain %q", old)
	}
	return strings.Replace(base, old, new, 1)
}
