package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the operator's module: an import under it is read from the checkout.
const modulePath = "github.com/ome-routing/operator"

// goPackage is one directory's non-test Go files, parsed, with its string constants: what
// the reason and metric checks read names from, without building the package.
type goPackage struct {
	dir   string
	fset  *token.FileSet
	files []*ast.File
	// consts are the package's constants whose value is a string literal, by name; types
	// their declared type's name, where the declaration names one.
	consts map[string]string
	types  map[string]string
}

// sourceTree parses packages of the checkout on demand, once each.
type sourceTree struct {
	root string
	pkgs map[string]*goPackage
}

func newSourceTree(root string) *sourceTree {
	return &sourceTree{root: root, pkgs: map[string]*goPackage{}}
}

// dir parses the package in dir (relative to the module root).
func (s *sourceTree) dir(t *testing.T, rel string) *goPackage {
	t.Helper()
	if p, ok := s.pkgs[rel]; ok {
		return p
	}
	p := &goPackage{dir: rel, fset: token.NewFileSet(), consts: map[string]string{}, types: map[string]string{}}
	s.pkgs[rel] = p
	entries, err := os.ReadDir(filepath.Join(s.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, filepath.Join(s.root, rel, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		p.files = append(p.files, f)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if v, ok := stringLit(vs.Values[i]); ok {
						p.consts[n.Name] = v
						if id, ok := vs.Type.(*ast.Ident); ok {
							p.types[n.Name] = id.Name
						}
					}
				}
			}
		}
	}
	return p
}

// goDirs are the directories under the given ones (relative to the root) that hold
// non-test Go files.
func (s *sourceTree) goDirs(t *testing.T, under ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, u := range under {
		err := filepath.WalkDir(filepath.Join(s.root, u), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				rel, _ := filepath.Rel(s.root, filepath.Dir(path))
				seen[filepath.ToSlash(rel)] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return sortedKeys(seen)
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil
}

// importPath is the path file imports under name, "" when it imports none so.
func importPath(file *ast.File, name string) string {
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		local := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local == name {
			return path
		}
	}
	return ""
}

// constValue is the string an expression of file in p names: a literal, a constant of p
// or a constant of another package of the module. ok is false for anything else.
func (s *sourceTree) constValue(t *testing.T, p *goPackage, file *ast.File, e ast.Expr) (string, bool) {
	t.Helper()
	switch e := e.(type) {
	case *ast.BasicLit:
		return stringLit(e)
	case *ast.Ident:
		v, ok := p.consts[e.Name]
		return v, ok
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		rel, ok := strings.CutPrefix(importPath(file, x.Name), modulePath+"/")
		if !ok {
			return "", false
		}
		v, ok := s.dir(t, rel).consts[e.Sel.Name]
		return v, ok
	}
	return "", false
}

// position names a node's place for a failure message: file:line, relative to the root.
func (s *sourceTree) position(p *goPackage, n ast.Node) string {
	pos := p.fset.Position(n.Pos())
	rel, err := filepath.Rel(s.root, pos.Filename)
	if err != nil {
		rel = pos.Filename
	}
	return fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line)
}

// funcCalls calls fn with every call in p's files and the function declaration that holds
// it (nil for a call outside any, such as in a variable's initializer).
func funcCalls(p *goPackage, fn func(file *ast.File, holder *ast.FuncDecl, call *ast.CallExpr)) {
	for _, f := range p.files {
		for _, decl := range f.Decls {
			holder, _ := decl.(*ast.FuncDecl)
			ast.Inspect(decl, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					fn(f, holder, call)
				}
				return true
			})
		}
	}
}

// calledName is the name of the function or method a call calls, "" for anything else.
func calledName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// paramIndex is the position of the parameter name among fd's parameters, -1 if it has
// none of that name.
func paramIndex(fd *ast.FuncDecl, name string) int {
	if fd == nil {
		return -1
	}
	i := 0
	for _, field := range fd.Type.Params.List {
		if len(field.Names) == 0 {
			i++
			continue
		}
		for _, n := range field.Names {
			if n.Name == name {
				return i
			}
			i++
		}
	}
	return -1
}
