package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module root: go test runs a package in its own directory, two below it.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: the package moved", root)
	}
	return root
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	tableFirst = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|")
)

// proseLines returns a markdown file's lines outside fenced code blocks, with their line
// numbers (1-based), so that an example in a code block is neither a link nor a heading.
func proseLines(text string) (lines []string, numbers []int) {
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inFence = !inFence
			continue
		}
		if !inFence {
			lines = append(lines, line)
			numbers = append(numbers, i+1)
		}
	}
	return lines, numbers
}

// tableKeys returns the first cell of every table row that is a single code span, such as
// "| `image.tag` | ..." or "| `--leader-elect` | ...": the settings and flags a page lists.
func tableKeys(text string) map[string]int {
	keys := map[string]int{}
	lines, numbers := proseLines(text)
	for i, line := range lines {
		if m := tableFirst.FindStringSubmatch(line); m != nil {
			keys[m[1]] = numbers[i]
		}
	}
	return keys
}
