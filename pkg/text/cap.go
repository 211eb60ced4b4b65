// Package text holds the one rule for text the operator writes into the API from sources
// it does not trust (a remote server's error, a member's status): valid UTF-8, and no
// longer than the field allows.
package text

import (
	"strings"
	"unicode/utf8"
)

// Cap makes s valid UTF-8 (an invalid byte becomes U+FFFD) and cuts it to at most limit
// bytes on a character boundary.
func Cap(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= limit {
		return s
	}
	cut := max(limit, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
