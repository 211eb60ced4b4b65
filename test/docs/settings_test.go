package docs

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	ctrlconfig "sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"
)

const settingsPage = "docs/reference/settings.md"

// TestEverySettingHasALine fails when a chart value has no line in the settings reference,
// or the reference lists one the chart does not have. The values are every leaf of
// values.yaml (a key whose value is not a map with keys, such as probe: []) and every leaf
// property of values.schema.json, which also names the keys values.yaml leaves out, such as
// the probe's fields.
func TestEverySettingHasALine(t *testing.T) {
	root := repoRoot(t)
	chart := filepath.Join(root, "charts", "ome-resources")
	settings := map[string]string{}
	for _, p := range valuesLeaves(t, readFile(t, filepath.Join(chart, "values.yaml"))) {
		settings[p] = "values.yaml"
	}
	for _, p := range schemaLeaves(t, readFile(t, filepath.Join(chart, "values.schema.json"))) {
		if _, ok := settings[p]; !ok {
			settings[p] = "values.schema.json"
		}
	}
	if len(settings) < 50 {
		t.Fatalf("found only %d settings in the chart: the walk is broken", len(settings))
	}

	documented := tableKeys(readFile(t, filepath.Join(root, settingsPage)))
	for _, p := range sortedKeys(settings) {
		if _, ok := documented[p]; !ok {
			t.Errorf("charts/ome-resources/%s has %s, which has no line (| `%s` | default | rule |) in %s", settings[p], p, p, settingsPage)
		}
	}
	for _, key := range sortedKeys(documented) {
		if strings.HasPrefix(key, "--") {
			continue
		}
		if _, ok := settings[key]; !ok {
			t.Errorf("%s:%d lists %s, which is neither a leaf of values.yaml nor of values.schema.json", settingsPage, documented[key], key)
		}
	}
}

// TestEveryManagerFlagHasALine fails when a flag of the manager has no line in the settings
// reference, or the reference lists a flag the manager does not take. The manager's own
// flags are read from cmd/manager's source (the fs.XxxVar calls), since a main package
// cannot be imported; the logger's and --kubeconfig are registered by controller-runtime.
func TestEveryManagerFlagHasALine(t *testing.T) {
	root := repoRoot(t)
	flags := managerFlags(t, filepath.Join(root, "cmd", "manager"))
	if len(flags) < 5 {
		t.Fatalf("found only %d flags in cmd/manager: the source pattern is broken", len(flags))
	}
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	(&zap.Options{}).BindFlags(fs)
	ctrlconfig.RegisterFlags(fs)
	fs.VisitAll(func(f *flag.Flag) { flags[f.Name] = true })

	documented := tableKeys(readFile(t, filepath.Join(root, settingsPage)))
	for _, name := range sortedKeys(flags) {
		if _, ok := documented["--"+name]; !ok {
			t.Errorf("the manager takes --%s, which has no line (| `--%s` | default | rule |) in %s", name, name, settingsPage)
		}
	}
	for _, key := range sortedKeys(documented) {
		if name, ok := strings.CutPrefix(key, "--"); ok && !flags[name] {
			t.Errorf("%s:%d lists %s, which the manager does not take", settingsPage, documented[key], key)
		}
	}
}

// valuesLeaves returns the dotted path of every leaf of a values file.
func valuesLeaves(t *testing.T, text string) []string {
	t.Helper()
	var values map[string]any
	if err := yaml.Unmarshal([]byte(text), &values); err != nil {
		t.Fatalf("values.yaml: %v", err)
	}
	var leaves []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		m, ok := v.(map[string]any)
		if !ok || len(m) == 0 {
			leaves = append(leaves, prefix)
			return
		}
		for k, child := range m {
			walk(join(prefix, k), child)
		}
	}
	for k, v := range values {
		walk(k, v)
	}
	return leaves
}

// schemaLeaves returns the dotted path of every property of a JSON schema that has no
// properties of its own, following $ref into $defs and every branch of oneOf, anyOf and
// allOf.
func schemaLeaves(t *testing.T, text string) []string {
	t.Helper()
	var schema map[string]any
	if err := json.Unmarshal([]byte(text), &schema); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	defs, _ := schema["$defs"].(map[string]any)
	seen := map[string]bool{}
	var walk func(path string, node map[string]any, depth int)
	walk = func(path string, node map[string]any, depth int) {
		if depth > 32 {
			t.Fatalf("values.schema.json: $ref loop under %q", path)
		}
		props := properties(t, node, defs, depth)
		if len(props) == 0 {
			if path != "" {
				seen[path] = true
			}
			return
		}
		for name, child := range props {
			walk(join(path, name), child, depth+1)
		}
	}
	walk("", schema, 0)
	return sortedKeys(seen)
}

// properties gathers a schema node's properties with those of its $ref and its branches.
func properties(t *testing.T, node, defs map[string]any, depth int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	if ref, ok := node["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		def, isMap := defs[name].(map[string]any)
		if !found || !isMap {
			t.Fatalf("values.schema.json: $ref %q is not a definition in $defs", ref)
		}
		for k, v := range properties(t, def, defs, depth+1) {
			out[k] = v
		}
	}
	for _, key := range []string{"oneOf", "anyOf", "allOf"} {
		branches, _ := node[key].([]any)
		for _, b := range branches {
			if branch, ok := b.(map[string]any); ok {
				for k, v := range properties(t, branch, defs, depth+1) {
					out[k] = v
				}
			}
		}
	}
	props, _ := node["properties"].(map[string]any)
	for k, v := range props {
		if child, ok := v.(map[string]any); ok {
			out[k] = child
		}
	}
	return out
}

// managerFlags returns the names the manager's source registers with fs.XxxVar(&x, "name",
// ...), in every non-test file of dir.
func managerFlags(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasSuffix(sel.Sel.Name, "Var") {
				return true
			}
			if recv, ok := sel.X.(*ast.Ident); !ok || recv.Name != "fs" {
				return true
			}
			if lit, ok := call.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if name, err := strconv.Unquote(lit.Value); err == nil {
					flags[name] = true
				}
			}
			return true
		})
	}
	return flags
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
