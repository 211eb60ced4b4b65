package docs

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	// inlineLink is [text](target) or [text](target "title"); the text may hold brackets
	// only as code, which is removed first.
	inlineLink = regexp.MustCompile(`\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink is a reference definition: [name]: target.
	refLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	scheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// TestRelativeLinksResolve fails when a relative link in README.md, CHANGELOG.md or any page
// under docs/ points at a file that does not exist, or at a heading (#anchor) that the
// target page does not have. Links with a scheme (https:, mailto:) are not followed.
func TestRelativeLinksResolve(t *testing.T) {
	root := repoRoot(t)
	pages := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CHANGELOG.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		anchors[page] = headingAnchors(readFile(t, page))
		return anchors[page]
	}

	checked := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		for _, link := range links(readFile(t, page)) {
			target := link.target
			if scheme.MatchString(target) {
				continue
			}
			checked++
			pathPart, fragment, _ := strings.Cut(target, "#")
			if decoded, err := url.PathUnescape(pathPart); err == nil {
				pathPart = decoded
			}
			dest := page
			if pathPart != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(pathPart))
				info, err := os.Stat(dest)
				if err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", rel, link.line, target)
					continue
				}
				if info.IsDir() {
					if fragment != "" {
						t.Errorf("%s:%d links to a heading of a directory: %s", rel, link.line, target)
					}
					continue
				}
			}
			if fragment == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !anchorsOf(dest)[strings.ToLower(fragment)] {
				destRel, _ := filepath.Rel(root, dest)
				t.Errorf("%s:%d links to #%s, which is not a heading of %s", rel, link.line, fragment, destRel)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d relative links: the link pattern is broken", checked)
	}
}

type link struct {
	target string
	line   int
}

// links returns the targets of a page's inline links and reference definitions, outside
// code blocks and code spans.
func links(text string) []link {
	var out []link
	lines, numbers := proseLines(text)
	for i, line := range lines {
		prose := codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(prose, -1) {
			out = append(out, link{m[1], numbers[i]})
		}
		if m := refLink.FindStringSubmatch(prose); m != nil {
			out = append(out, link{m[1], numbers[i]})
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower case, spaces
// as hyphens, punctuation other than hyphens and underscores dropped, and -1, -2, ... after
// a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	lines, _ := proseLines(text)
	for _, line := range lines {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(m[1])
		if n := count[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		count[slug]++
	}
	return anchors
}

func slugify(title string) string {
	// A link in a heading anchors on its text.
	title = inlineLink.ReplaceAllStringFunc(title, func(s string) string {
		return s[1:strings.Index(s, "](")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// repoPath is a code span that names a path of the repository: `controllers/probing/poller.go`,
// `test/dataplane`. A pattern (`pkg/...`, `pkg/*`) is not a path.
var repoPath = regexp.MustCompile("`((?:api|cmd|controllers|pkg|test|hack|charts|config|docs)/[A-Za-z0-9_./-]*[A-Za-z0-9_-])`")

// TestNamedPathsExist fails when README.md or a page under docs/ names, in a code span, a
// file or directory of the repository that does not exist: a tour that points at a file
// which moved sends a reader nowhere.
func TestNamedPathsExist(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, page := range docPages(t, root) {
		lines, numbers := proseLines(readFile(t, filepath.Join(root, page)))
		for i, line := range lines {
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				if strings.Contains(m[1], "...") {
					continue
				}
				checked++
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil {
					t.Errorf("%s:%d names %s, which does not exist", page, numbers[i], m[1])
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked only %d paths: the path pattern is broken", checked)
	}
}
