package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCap(t *testing.T) {
	cases := []struct {
		s     string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"},             // é is two bytes: not split
		{"a\xffb", 10, "a\uFFFDb"}, // an invalid byte is replaced
		{"日本", 4, "日"},
		{"x", 0, ""},
		{"x", -1, ""},
	}
	for _, c := range cases {
		if got := Cap(c.s, c.limit); got != c.want {
			t.Errorf("Cap(%q, %d) = %q, want %q", c.s, c.limit, got, c.want)
		}
	}
}

// A condition's message is cut to what metav1.Condition allows, on a character boundary.
func TestConditionMessage(t *testing.T) {
	long := strings.Repeat("ü", MaxConditionMessageBytes)
	if got := ConditionMessage(long); len(got) > MaxConditionMessageBytes || !utf8.ValidString(got) || len(got) < MaxConditionMessageBytes-1 {
		t.Fatalf("a message of %d bytes became %d bytes", len(long), len(got))
	}
	if got := ConditionMessage("short"); got != "short" {
		t.Fatalf("got %q", got)
	}
}
