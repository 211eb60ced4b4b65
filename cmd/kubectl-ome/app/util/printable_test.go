package util

import (
	"strings"
	"testing"
)

// Every table the plugin prints writes a value's control characters as escapes, whichever
// printer lays it out.
func TestPrintersEscapeControlCharacters(t *testing.T) {
	const hostile = "\x1b[2J\x1b[HPassing\a\x1b]0;owned\a\u009b2J\nworker-a   Passing"
	rows := []Row{{Field: "Probe\x1b[2J", Value: hostile}, {Field: "Wrapped", Value: hostile, Wrap: true}, {Field: "Whole", Value: hostile, Whole: true}}
	for name, print := range map[string]func(*strings.Builder) error{
		"PrintRows":      func(b *strings.Builder) error { return PrintRows(b, rows) },
		"PrintUncutRows": func(b *strings.Builder) error { return PrintUncutRows(b, rows) },
		"PrintFixedRows": func(b *strings.Builder) error { return PrintFixedRows(b, rows) },
	} {
		var b strings.Builder
		if err := print(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if i := strings.IndexFunc(out, func(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) }); i >= 0 {
			t.Errorf("%s printed a control character at %d: %q", name, i, out)
		}
		if strings.Contains(out, "\nworker-a") {
			t.Errorf("%s printed a value's newline as a line of its own: %q", name, out)
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("%s does not show the escape: %q", name, out)
		}
	}
	if got := PrintableCell("a\x07b"); got != `a\x07b` {
		t.Errorf("PrintableCell = %q", got)
	}
	if got := PrintableCell(int64(3)); got != int64(3) {
		t.Errorf("PrintableCell(3) = %v", got)
	}
}
