package trafficsignal

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"
)

// Render fills a template with one cluster's Vars, escaped. A template that Validate
// accepted renders for any Vars.
func Render(t *template.Template, v Vars) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, v.escaped()); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}

// canary marks where a tenant's or a member's value lands in a rendered template; it
// escapes to itself, so compile finds it as written.
const canary = "omecanary"

// compile parses one template and checks that it renders a query in which every value from
// a tenant or a member sits inside a double-quoted string.
func compile(text *string, path string) (*template.Template, error) {
	if text == nil || strings.TrimSpace(*text) == "" {
		return nil, fmt.Errorf("%s is required", path)
	}
	if len(*text) > MaxQueryLength {
		return nil, fmt.Errorf("%s is %d characters long; at most %d", path, len(*text), MaxQueryLength)
	}
	t, err := template.New(path).Option("missingkey=error").Parse(*text)
	if err != nil {
		return nil, fmt.Errorf("%s is not a valid template: %w", path, err)
	}
	probe := Vars{
		Namespace: canary + "Namespace", Service: canary + "Service", Cluster: canary + "Cluster",
		Route: canary + "Route", RouteNamespace: canary + "RouteNamespace",
		Backends: []string{canary + "Backends"}, BackendPosition: 1, Window: "30s",
	}
	var b bytes.Buffer
	// Rendered unescaped: the canaries escape to themselves, and BackendsRegex is set here
	// as a name of its own so that its place is checked too.
	probe.BackendsRegex = canary + "BackendsRegex"
	if err := t.Execute(&b, probe); err != nil {
		return nil, fmt.Errorf("%s does not render: %w", path, err)
	}
	out := b.String()
	if strings.TrimSpace(out) == "" {
		return nil, fmt.Errorf("%s renders an empty query", path)
	}
	if field, ok := outsideString(out); ok {
		return nil, fmt.Errorf("%s uses {{.%s}} outside a double-quoted string: its value comes from a tenant or a workload cluster and is escaped for \"...\" only", path, field)
	}
	return t, nil
}

// outsideString returns the first canary found outside a PromQL double-quoted string (in
// a single-quoted or raw string, a comment, or the query itself), and the field it stands for.
func outsideString(q string) (string, bool) {
	var quote byte // 0 outside a string, else the quote that opened it
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote == 0 && strings.HasPrefix(q[i:], canary):
			return fieldAt(q[i+len(canary):]), true
		case quote == '"' && strings.HasPrefix(q[i:], canary):
			i += len(canary) - 1
		case quote != 0 && strings.HasPrefix(q[i:], canary):
			return fieldAt(q[i+len(canary):]), true
		case quote == 0 && (c == '"' || c == '\'' || c == '`'):
			quote = c
		case quote == 0 && c == '#':
			// A comment runs to the end of the line; a value there is harmless, but it
			// is no place for one either.
			end := strings.IndexByte(q[i:], '\n')
			if j := strings.Index(q[i:], canary); j >= 0 && (end < 0 || j < end) {
				return fieldAt(q[i+j+len(canary):]), true
			}
			if end < 0 {
				return "", false
			}
			i += end
		case quote != 0 && quote != '`' && c == '\\':
			i++ // the escaped character, whatever it is
		case c == quote:
			quote = 0
		}
	}
	return "", false
}

// fieldAt reads the field name that follows a canary.
func fieldAt(rest string) string {
	end := 0
	for end < len(rest) && (rest[end] >= 'A' && rest[end] <= 'Z' || rest[end] >= 'a' && rest[end] <= 'z') {
		end++
	}
	return rest[:end]
}
