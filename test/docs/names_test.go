package docs

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	eventsPage     = "docs/reference/events-and-metrics.md"
	conditionsPage = "docs/reference/conditions.md"
)

var (
	// camelName is what a reason looks like: Routed, HomeGated, ClusterUnreachable.
	camelName = regexp.MustCompile(`^[A-Z][A-Za-z0-9]+$`)
	// namedEvent is a reason in prose that says it is an event's: "a `HomeGated` event",
	// "`BackendRefused` Events".
	namedEvent = regexp.MustCompile("`([A-Z][A-Za-z0-9]+)`\\s+[Ee]vents?\\b")
	// metricName is an operator metric anywhere in a page, code blocks included, with the
	// labels or the selector that follow it: ome_routing_gated_homes{namespace,name},
	// ome_routing_probe_results_total{result="Failing"}.
	metricName = regexp.MustCompile(`\bome_[a-z0-9_]*[a-z0-9](\{[^{}]*\})?`)
	labelName  = regexp.MustCompile(`^\s*([a-zA-Z_][a-zA-Z0-9_]*)`)
	tableRule  = regexp.MustCompile(`^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$`)
)

// A page names a reason where a reader takes it for one, and the test reads it there:
//
//   - in a table whose first header cell ends in "reason" ("reason", "`Published` reason"),
//     every code span in a row's first cell, and in a column headed "reasons", every code
//     span of its cells;
//   - in prose, a code span followed by "event" or "events".
//
// In docs/reference the section says the kind: every reason in events-and-metrics.md is an
// event's, and in conditions.md a reason is a condition's, except under the "Weight
// reasons", "Exclusion reasons" and "Left-out reasons" headings. Elsewhere a reason must be of some kind.
// Other code spans that look like reasons (PreserveTraffic, an OME reason this operator
// does not use, such as limitations.md's PublisherChanged) are not claims, so no allow-list
// is needed.
type reasonClaim struct {
	name, kind, page string
	line             int
	// eventType is the events table's type column for this reason, "" elsewhere.
	eventType string
}

// metricClaim is a metric a page names, with the labels it gives; listed is true in the
// metrics table of the events reference, where the labels must be exactly the metric's.
type metricClaim struct {
	name, page string
	line       int
	labels     []string
	listed     bool
}

// TestPagesNameOnlyDefinedReasonsAndMetrics fails when a page under docs/ (or the README)
// names an event reason, condition reason, weight reason, exclusion reason, metric or
// metric label that the code does not define, or names an event with a type (Normal,
// Warning) it is never recorded with.
func TestPagesNameOnlyDefinedReasonsAndMetrics(t *testing.T) {
	root := repoRoot(t)
	src := newSourceTree(root)
	reasons := apiReasons(t, src)
	events := eventReasons(t, src)
	reasons[kindEvent] = map[string]bool{}
	for r := range events {
		reasons[kindEvent][r] = true
	}
	metrics := exportedMetrics(t, src)

	checkedReasons, checkedMetrics := 0, 0
	for _, page := range docPages(t, root) {
		text := readFile(t, filepath.Join(root, page))
		for _, c := range reasonClaims(page, text) {
			checkedReasons++
			if c.kind == "" {
				if !anyKind(reasons, c.name) {
					t.Errorf("%s:%d names the reason %s, which the code does not define as an event, condition, weight or exclusion reason", c.page, c.line, c.name)
				}
				continue
			}
			if !reasons[c.kind][c.name] {
				t.Errorf("%s:%d lists %s as an %s, which the code does not define (%s)", c.page, c.line, c.name, c.kind, strings.Join(sortedKeys(reasons[c.kind]), ", "))
				continue
			}
			if c.eventType != "" && (len(events[c.name]) != 1 || !events[c.name][c.eventType]) {
				t.Errorf("%s:%d says %s is a %s event; the code records it as %s", c.page, c.line, c.name, c.eventType, strings.Join(sortedKeys(events[c.name]), " and "))
			}
		}
		for _, c := range metricClaims(page, text) {
			checkedMetrics++
			name, m, extra, ok := lookupMetric(metrics, c.name)
			if !ok {
				t.Errorf("%s:%d names the metric %s, which the manager does not export", c.page, c.line, c.name)
				continue
			}
			for _, l := range c.labels {
				if !m.labels[l] && l != extra {
					t.Errorf("%s:%d gives %s the label %s; its labels are {%s}", c.page, c.line, c.name, l, sortedLabels(m.labels))
				}
			}
			if c.listed && (name != c.name || strings.Join(sortedStrings(c.labels), ",") != sortedLabels(m.labels)) {
				t.Errorf("%s:%d lists %s{%s}; the manager exports %s{%s}", c.page, c.line, c.name, strings.Join(c.labels, ","), name, sortedLabels(m.labels))
			}
		}
	}
	if checkedReasons < 80 || checkedMetrics < 25 {
		t.Fatalf("checked only %d reasons and %d metric names in the pages: the page patterns are broken", checkedReasons, checkedMetrics)
	}
}

// TestReferenceListsEveryReasonAndMetric fails when the code defines a reason that
// docs/reference does not list in its place (every event reason in the events table of
// events-and-metrics.md, every condition, weight and exclusion reason in its section of
// conditions.md), or a metric that the metrics table of events-and-metrics.md lacks.
func TestReferenceListsEveryReasonAndMetric(t *testing.T) {
	root := repoRoot(t)
	src := newSourceTree(root)
	defined := apiReasons(t, src)
	defined[kindEvent] = map[string]bool{}
	for r := range eventReasons(t, src) {
		defined[kindEvent][r] = true
	}

	listed := map[string]map[string]bool{}
	for _, page := range []string{eventsPage, conditionsPage} {
		for _, c := range reasonClaims(page, readFile(t, filepath.Join(root, page))) {
			if listed[c.kind] == nil {
				listed[c.kind] = map[string]bool{}
			}
			listed[c.kind][c.name] = true
		}
	}
	where := map[string]string{kindEvent: eventsPage + "'s events table", kindCondition: conditionsPage + "'s condition tables",
		kindWeight: conditionsPage + "'s Weight reasons table", kindExclusion: conditionsPage + "'s Exclusion reasons table",
		kindLeftOut: conditionsPage + "'s Left-out reasons table", kindServing: conditionsPage + "'s Serving states table"}
	for _, kind := range reasonKinds {
		for _, name := range sortedKeys(defined[kind]) {
			if !listed[kind][name] {
				t.Errorf("the code defines the %s %s, which %s does not list", kind, name, where[kind])
			}
		}
	}

	inTable := map[string]bool{}
	for _, c := range metricClaims(eventsPage, readFile(t, filepath.Join(root, eventsPage))) {
		if c.listed {
			inTable[c.name] = true
		}
	}
	metrics := exportedMetrics(t, src)
	for _, name := range sortedKeys(metrics) {
		if !inTable[name] {
			t.Errorf("the manager exports %s{%s}, which the metrics table of %s does not list", name, sortedLabels(metrics[name].labels), eventsPage)
		}
	}
}

// docPages are README.md and every page under docs/, relative to the root. CHANGELOG.md
// is left out: it records what each release changed, in the names of its day.
func docPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

func anyKind(reasons map[string]map[string]bool, name string) bool {
	for _, kind := range reasonKinds {
		if reasons[kind][name] {
			return true
		}
	}
	return false
}

// lookupMetric finds the metric a name in a page is a series of: the metric itself, or a
// histogram's _bucket (which adds the label le), _sum or _count, or a summary's _sum or
// _count.
func lookupMetric(metrics map[string]metric, name string) (string, metric, string, bool) {
	if m, ok := metrics[name]; ok {
		return name, m, "", true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		m, found := metrics[base]
		// A histogram has all three series, a summary no buckets.
		hasSeries := m.histogram || m.summary && suffix != "_bucket"
		if !ok || !found || !hasSeries {
			continue
		}
		if suffix == "_bucket" {
			return base, m, "le", true
		}
		return base, m, "", true
	}
	return "", metric{}, "", false
}

// reasonClaims are the reasons a page names (see reasonClaim).
func reasonClaims(page, text string) []reasonClaim {
	var out []reasonClaim
	lines, numbers := proseLines(text)
	section := ""
	kind := func() string {
		switch {
		case page == eventsPage:
			return kindEvent
		case page == conditionsPage && strings.HasPrefix(section, "Weight reasons"):
			return kindWeight
		case page == conditionsPage && strings.HasPrefix(section, "Exclusion reasons"):
			return kindExclusion
		case page == conditionsPage && strings.HasPrefix(section, "Left-out reasons"):
			return kindLeftOut
		case page == conditionsPage && strings.HasPrefix(section, "Serving states"):
			return kindServing
		case page == conditionsPage:
			return kindCondition
		}
		return ""
	}
	for i := 0; i < len(lines); i++ {
		if m := heading.FindStringSubmatch(lines[i]); m != nil {
			section = m[1]
			continue
		}
		for _, m := range namedEvent.FindAllStringSubmatch(lines[i], -1) {
			out = append(out, reasonClaim{name: m[1], kind: kindEvent, page: page, line: numbers[i]})
		}
		if i+1 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i]), "|") || !tableRule.MatchString(lines[i+1]) {
			continue
		}
		header := tableCells(lines[i])
		cols := map[int]bool{}
		typeCol := -1
		for c, h := range header {
			h = strings.ToLower(strings.TrimSpace(h))
			switch {
			case c == 0 && strings.HasSuffix(h, "reason"), h == "reasons", c == 0 && h == "state" && kind() == kindServing:
				cols[c] = true
			case h == "type":
				typeCol = c
			}
		}
		i += 2
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			for _, m := range namedEvent.FindAllStringSubmatch(lines[i], -1) {
				out = append(out, reasonClaim{name: m[1], kind: kindEvent, page: page, line: numbers[i]})
			}
			if len(cols) == 0 {
				continue
			}
			cells := tableCells(lines[i])
			for c := range cols {
				if c >= len(cells) {
					continue
				}
				names := codeNames(cells[c])
				types := []string(nil)
				if typeCol >= 0 && typeCol < len(cells) {
					types = strings.Split(cells[typeCol], "/")
				}
				for n, name := range names {
					rc := reasonClaim{name: name, kind: kind(), page: page, line: numbers[i]}
					switch {
					case rc.kind != kindEvent || len(types) == 0:
					case len(types) == 1:
						rc.eventType = strings.TrimSpace(types[0])
					case len(types) == len(names):
						rc.eventType = strings.TrimSpace(types[n])
					}
					out = append(out, rc)
				}
			}
		}
		i--
	}
	return out
}

// codeNames are the code spans of a cell that look like reasons.
func codeNames(cell string) []string {
	var out []string
	for _, span := range codeSpan.FindAllString(cell, -1) {
		if name := strings.Trim(span, "`"); camelName.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// tableCells splits a table row into its cells, leaving a | inside a code span or escaped
// as \| in its cell.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	var cells []string
	var cell strings.Builder
	inCode := false
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cell.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, cell.String())
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	if rest := strings.TrimSpace(cell.String()); rest != "" {
		cells = append(cells, cell.String())
	}
	return cells
}

// metricClaims are the metric names a page gives, code blocks included, with the label
// names in the braces that follow each.
func metricClaims(page, text string) []metricClaim {
	var out []metricClaim
	listing := -1
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			cells := tableCells(line)
			if len(cells) > 0 && strings.TrimSpace(cells[0]) == "metric" {
				listing = i
			}
		} else {
			listing = -1
		}
		first := ""
		if listing >= 0 && i > listing+1 {
			if cells := tableCells(line); len(cells) > 0 {
				first = strings.TrimSpace(cells[0])
			}
		}
		for _, loc := range metricName.FindAllStringSubmatchIndex(line, -1) {
			c := metricClaim{page: page, line: i + 1, name: line[loc[0]:loc[1]]}
			if loc[2] >= 0 {
				c.name = line[loc[0]:loc[2]]
				for _, item := range strings.Split(line[loc[2]+1:loc[3]-1], ",") {
					if m := labelName.FindStringSubmatch(item); m != nil {
						c.labels = append(c.labels, m[1])
					}
				}
			}
			c.listed = page == eventsPage && first == "`"+line[loc[0]:loc[1]]+"`"
			out = append(out, c)
		}
	}
	return out
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
