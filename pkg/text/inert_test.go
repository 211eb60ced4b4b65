package text

import "testing"

// What a hostile certificate name, member status or Prometheus label could carry reaches
// the API as printable escapes, whichever control character it uses.
func TestInertEscapesEveryControlCharacter(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, é and 日本", "plain text, é and 日本"},
		{"\x1b[2J\x1b[HPassing", `\x1b[2J\x1b[HPassing`},   // clear the screen, fake a line
		{"ring\a", `ring\x07`},                             // BEL
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`}, // OSC: retitle the window
		{"\u009b2J", `\u009b2J`},                           // C1 CSI
		{"\u0085next\u009c", `\u0085next\u009c`},           // C1 NEL, ST
		{"line\nnext\ttab\rback\x00nul\x7fdel", `line\x0anext\x09tab\x0dback\x00nul\x7fdel`},
		{"a\xffb", "a\uFFFDb"}, // an invalid byte is replaced, not escaped
		{"\u00a0nbsp stays", "\u00a0nbsp stays"},
	}
	for _, c := range cases {
		got := Inert(c.in)
		if got != c.want {
			t.Errorf("Inert(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Inert(got); again != got {
			t.Errorf("Inert is not idempotent on %q: %q", got, again)
		}
		if capped := Cap(c.in, 1<<20); capped != c.want {
			t.Errorf("Cap(%q) = %q, want the inert %q", c.in, capped, c.want)
		}
	}
}

// Cap cuts after escaping, and never inside an escape: half of one would read as a
// backslash followed by text.
func TestCapNeverSplitsAnEscape(t *testing.T) {
	cases := []struct {
		s     string
		limit int
		want  string
	}{
		{"ab\x1bcd", 2, "ab"},
		{"ab\x1bcd", 4, "ab"},
		{"ab\x1bcd", 5, "ab"},
		{"ab\x1bcd", 6, `ab\x1b`},
		{"ab\u009bcd", 7, "ab"},
		{"ab\u009bcd", 8, `ab\u009b`},
	}
	for _, c := range cases {
		if got := Cap(c.s, c.limit); got != c.want {
			t.Errorf("Cap(%q, %d) = %q, want %q", c.s, c.limit, got, c.want)
		}
	}
}
