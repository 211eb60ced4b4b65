package chart

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNamedMakeTargetsExist fails when a message, comment or document tells the reader to
// run a make target that the Makefile does not define, as a message naming a chart-manifests target once
// did.
func TestNamedMakeTargetsExist(t *testing.T) {
	root := repoRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-zA-Z0-9_-]+)(?:\s+[a-zA-Z0-9_-]+)*\s*:`).FindAllStringSubmatch(string(makefile), -1) {
		defined[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^\.PHONY:(.*)$`).FindAllStringSubmatch(string(makefile), -1) {
		for _, name := range strings.Fields(m[1]) {
			defined[name] = true
		}
	}
	// "run make X", "`make X" and "make X`" name a target; plain prose ("make sure") does not.
	named := regexp.MustCompile("(?:\\brun |`)make ([a-z][a-z0-9-]*)")
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "_out":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".yaml", ".tpl", ".json":
		default:
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range named.FindAllStringSubmatch(string(text), -1) {
			checked++
			if !defined[m[1]] {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s names `make %s`, which the Makefile does not define", rel, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("found no make target named anywhere: the pattern is broken")
	}
}
