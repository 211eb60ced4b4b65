package layout

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module is the operator's module path.
const module = "github.com/ome-routing/operator"

// TestBinariesImportNoTestCode fails when a binary under cmd/ depends, directly or through
// any package, on a package under test/: what a binary needs from the harness belongs in
// internal/. go list -deps without -test follows the non-test files only, so a binary's own
// _test.go files may still use test/framework.
func TestBinariesImportNoTestCode(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./cmd/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/...: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list -deps ./cmd/... listed only %d packages: the check is broken", len(lines))
	}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(pkg, module+"/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp == module+"/test" || strings.HasPrefix(imp, module+"/test/") {
				t.Errorf("%s imports %s: a binary under cmd/ must not depend on test code (move what it needs into internal/)", pkg, imp)
			}
		}
	}
}
