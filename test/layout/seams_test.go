package layout

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// root is the repository, from this package's directory.
var root = filepath.Join("..", "..")

// seamsSection is the part of docs/development/layout.md about the seams: the table and
// the walkthroughs.
func seamsSection(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "development", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, "## Seams")
	if start < 0 {
		t.Fatal("docs/development/layout.md has no Seams section")
	}
	rest := doc[start+len("## Seams"):]
	if end := regexp.MustCompile(`(?m)^## `).FindStringIndex(rest); end != nil {
		rest = rest[:end[0]]
	}
	return rest
}

// pathLike is a code span that names a file of the tree: a folder and a file name with an
// extension; <name> stands for a file the walkthrough adds.
var pathLike = regexp.MustCompile("`((?:[a-z0-9_.-]+/)+[a-zA-Z0-9_<>.-]+\\.(?:go|json|yaml|md|tpl))`")

// Every file the seams table and the walkthroughs name exists (a <name> pattern matches
// at least one file), so a rename that leaves the page behind fails here.
func TestSeamFilesExist(t *testing.T) {
	named := pathLike.FindAllStringSubmatch(seamsSection(t), -1)
	if len(named) < 10 {
		t.Fatalf("the Seams section names only %d files: the check is broken", len(named))
	}
	for _, m := range named {
		pattern := strings.ReplaceAll(m[1], "<name>", "*")
		found, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(found) == 0 {
			t.Errorf("docs/development/layout.md names %s, which does not exist", m[1])
		}
	}
}

// Each walkthrough's steps touch at most four files outside tests and docs: that is what
// the seams are for.
func TestWalkthroughsTouchFewFiles(t *testing.T) {
	section := seamsSection(t)
	step := regexp.MustCompile("(?m)^[0-9]+\\. `([^`]+)`")
	for _, title := range []string{"### Walkthrough: adding a backend kind", "### Walkthrough: adding a signal source"} {
		i := strings.Index(section, title)
		if i < 0 {
			t.Errorf("docs/development/layout.md has no %q", title)
			continue
		}
		body := section[i+len(title):]
		if j := strings.Index(body, "### "); j >= 0 {
			body = body[:j]
		}
		var files []string
		for _, m := range step.FindAllStringSubmatch(body, -1) {
			if !strings.HasSuffix(m[1], "_test.go") && !strings.HasPrefix(m[1], "docs/") && !slices.Contains(files, m[1]) {
				files = append(files, m[1])
			}
		}
		if len(files) == 0 || len(files) > 4 {
			t.Errorf("%s: its steps touch %d files outside tests and docs (%v), want 1 to 4", title, len(files), files)
		}
	}
}

// The backend kinds the publisher writes, the values the settings accept and the chart's
// enum are one list; and only a Service kind takes the EndpointSlice fallback, which the
// settings and the chart refuse for every other kind.
func TestBackendKindsAgree(t *testing.T) {
	var table []string
	for _, k := range publish.BackendKinds {
		table = append(table, string(k.Setting))
		if k.EndpointSlices != (k.Setting == config.BackendExternalNameService) {
			t.Errorf("backend kind %s: EndpointSlices %t, but the settings accept slices with %s alone", k.Setting, k.EndpointSlices, config.BackendExternalNameService)
		}
		if got, ok := publish.BackendKindByGroupKind(k.GVK.GroupKind()); !ok || got.Setting != k.Setting {
			t.Errorf("backend kind %s: its group and kind %s find %q", k.Setting, k.GVK.GroupKind(), got.Setting)
		}
	}
	var settings []string
	for _, k := range config.BackendKinds {
		settings = append(settings, string(k))
	}
	raw, err := os.ReadFile(filepath.Join(root, "charts", "ome-resources", "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs struct {
			PublishEndpoint struct {
				Properties struct {
					GatewayBackend struct {
						Properties struct {
							Kind struct {
								Enum []string `json:"enum"`
							} `json:"kind"`
						} `json:"properties"`
					} `json:"gatewayBackend"`
				} `json:"properties"`
			} `json:"publishEndpoint"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	chart := schema.Defs.PublishEndpoint.Properties.GatewayBackend.Properties.Kind.Enum
	if len(table) == 0 || !slices.Equal(table, settings) || !slices.Equal(table, chart) {
		t.Errorf("backend kinds differ: publisher %v, settings %v, chart %v", table, settings, chart)
	}
	if def := (config.Endpoint{}).Backend(); publish.BackendKindOf("").Setting != def {
		t.Errorf("the default backend kind is %s in the publisher, %s in the settings", publish.BackendKindOf("").Setting, def)
	}
}
