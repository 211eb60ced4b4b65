package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// benchRun is one `go test` of a make bench-* target: the -run and -bench patterns it
// passes and the packages it names.
type benchRun struct {
	target     string
	run, bench string
	pkgs       []string
}

var (
	targetLine = regexp.MustCompile(`^(bench-[a-z0-9-]+):`)
	runFlag    = regexp.MustCompile(`-run '([^']*)'`)
	benchFlag  = regexp.MustCompile(`-bench '([^']*)'`)
	pkgArg     = regexp.MustCompile(`\s(\./[A-Za-z0-9_/.-]*)`)
)

// benchRuns reads the Makefile's bench-* targets: each recipe's go test line (continued
// over backslashed lines) with its patterns, make's $$ read as $.
func benchRuns(t *testing.T, makefile string) []benchRun {
	t.Helper()
	data, err := os.ReadFile(makefile)
	if err != nil {
		t.Fatal(err)
	}
	var runs []benchRun
	target := ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := targetLine.FindStringSubmatch(line); m != nil {
			target = m[1]
			continue
		}
		if !strings.HasPrefix(line, "\t") {
			target = ""
			continue
		}
		if target == "" {
			continue
		}
		cmd := line
		for strings.HasSuffix(strings.TrimSpace(cmd), `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(strings.TrimSpace(cmd), `\`) + " " + lines[i]
		}
		if !strings.Contains(cmd, "$(GO) test") {
			continue
		}
		r := benchRun{target: target}
		if m := runFlag.FindStringSubmatch(cmd); m != nil {
			r.run = strings.ReplaceAll(m[1], "$$", "$")
		}
		if m := benchFlag.FindStringSubmatch(cmd); m != nil {
			r.bench = strings.ReplaceAll(m[1], "$$", "$")
		}
		goTest := strings.Index(cmd, "$(GO) test")
		if goTest < 0 {
			t.Fatalf("make %s runs no $(GO) test", target)
		}
		for _, m := range pkgArg.FindAllStringSubmatch(cmd[goTest:], -1) {
			r.pkgs = append(r.pkgs, strings.TrimSuffix(m[1], "/"))
		}
		runs = append(runs, r)
	}
	return runs
}

// testFuncs are the names of the Test and Benchmark functions in a folder's _test.go
// files, and whether one of them is a TestMain that calls framework.Main.
func testFuncs(t *testing.T, dir string) (tests, benchmarks []string, frameworkMain bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			name := fn.Name.Name
			switch {
			case name == "TestMain":
				frameworkMain = callsFrameworkMain(fn)
			case strings.HasPrefix(name, "Test"):
				tests = append(tests, name)
			case strings.HasPrefix(name, "Benchmark"):
				benchmarks = append(benchmarks, name)
			}
		}
	}
	return tests, benchmarks, frameworkMain
}

func callsFrameworkMain(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Main" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "framework" {
				found = true
			}
		}
		return !found
	})
	return found
}

// alternatives are the names a pattern of the form ^Name$ or ^(A|B)$ lists; nil for any
// other pattern.
func alternatives(pattern string) []string {
	p := strings.TrimSuffix(strings.TrimPrefix(pattern, "^"), "$")
	p = strings.TrimSuffix(strings.TrimPrefix(p, "("), ")")
	if !regexp.MustCompile(`^[A-Za-z0-9_|]+$`).MatchString(p) {
		return nil
	}
	return strings.Split(p, "|")
}

// TestBenchTargetsSelectTestsThatExist fails when a make bench-* target's -run or -bench
// pattern names a test or benchmark its package does not have, or selects none: a
// renamed test must not leave a target running nothing (or one test of two).
func TestBenchTargetsSelectTestsThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	runs := benchRuns(t, filepath.Join(root, "Makefile"))
	if len(runs) < 5 {
		t.Fatalf("found %d go test lines in the Makefile's bench-* targets: the check is broken", len(runs))
	}
	for _, r := range runs {
		if len(r.pkgs) == 0 {
			t.Errorf("make %s: no package named in its go test line", r.target)
			continue
		}
		var tests, benchmarks []string
		for _, pkg := range r.pkgs {
			ts, bs, _ := testFuncs(t, filepath.Join(root, pkg))
			tests, benchmarks = append(tests, ts...), append(benchmarks, bs...)
		}
		for _, sel := range []struct {
			flag, pattern string
			funcs         []string
		}{{"-run", r.run, tests}, {"-bench", r.bench, benchmarks}} {
			if sel.pattern == "" || sel.pattern == "^$" {
				continue
			}
			re, err := regexp.Compile(sel.pattern)
			if err != nil {
				t.Errorf("make %s: %s %q: %v", r.target, sel.flag, sel.pattern, err)
				continue
			}
			matched := 0
			for _, f := range sel.funcs {
				if re.MatchString(f) {
					matched++
				}
			}
			if matched == 0 {
				t.Errorf("make %s: %s %q selects no function in %s", r.target, sel.flag, sel.pattern, strings.Join(r.pkgs, " "))
			}
			for _, name := range alternatives(sel.pattern) {
				if !contains(sel.funcs, name) {
					t.Errorf("make %s: %s %q names %s, which %s does not have", r.target, sel.flag, sel.pattern, name, strings.Join(r.pkgs, " "))
				}
			}
		}
	}
}

// TestPackagesThatStartBinariesKeepThemForTheProcess fails when a package's tests ask for
// the manager's or the plugin's binary (or start the data plane, which runs both) without
// a TestMain that calls framework.Main: the binaries a test process builds must live until
// its last test, so that every bench target's tests, and every test of a package, can run
// in one process (make bench-failover runs two that start the data plane one after the
// other).
func TestPackagesThatStartBinariesKeepThemForTheProcess(t *testing.T) {
	root := filepath.Join("..", "..")
	uses := regexp.MustCompile(`framework\.(ManagerBinary|PluginBinary)\(|framework\.AsBinary\(|dataplane\.Start\(`)
	dirs := map[string]bool{}
	for _, top := range []string{"cmd", "test"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if uses.Match(data) {
				dirs[filepath.Dir(path)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(dirs) < 5 {
		t.Fatalf("found %d packages whose tests start the binaries: the check is broken", len(dirs))
	}
	var names []string
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if _, _, ok := testFuncs(t, d); !ok {
			rel, _ := filepath.Rel(root, d)
			t.Errorf("%s: its tests start the manager's or the plugin's binary, but no TestMain calls framework.Main", rel)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
