// Package text holds the one rule for text the operator writes into the API from sources
// it does not trust (a remote server's error, a member's status, a tenant's name, a
// Prometheus answer): valid UTF-8, no control character a terminal would obey, and no
// longer than the field allows.
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Cap makes s inert (see Inert) and cuts it to at most limit bytes on a character
// boundary, never inside an escape it wrote.
func Cap(s string, limit int) string {
	s = Inert(s)
	if len(s) <= limit {
		return s
	}
	cut := max(limit, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	// An escape cut in two would leave a backslash that reads as the start of something
	// else; it is dropped whole.
	if i := strings.LastIndexByte(s[:cut], '\\'); i >= 0 && i+escapeLen(s[i:]) > cut {
		cut = i
	}
	return s[:cut]
}

// Inert makes s valid UTF-8 (an invalid byte becomes U+FFFD) and writes every control
// character as a Go escape: C0 (U+0000 to U+001F, tab and newline included), DEL and C1
// (U+0080 to U+009F). A terminal, a log viewer or kubectl then shows ESC [2J, BEL, an
// OSC title sequence or CSI (U+009B) as the characters \x1b[2J, \x07, \u009b, and never
// obeys them. The escapes are plain printable text, so Inert of Inert's result is the
// same string: text that passes through it twice is escaped once.
func Inert(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl says whether Inert escapes r.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) }

// escapeLen is the length of the escape Inert writes that s starts with, 0 if none.
func escapeLen(s string) int {
	switch {
	case strings.HasPrefix(s, `\x`):
		return 4
	case strings.HasPrefix(s, `\u00`):
		return 6
	}
	return 0
}
