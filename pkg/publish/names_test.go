package publish

import "testing"

// Services whose names differ only by the letter the route name puts in front of a leading
// digit get different routes: the prefix is never ambiguous.
func TestRouteNamesOfLeadingDigitsNeverMeet(t *testing.T) {
	cases := []struct{ name, want string }{
		{"1abc", "a1abc-global"},
		{"a1abc", "aa1abc-global"},
		{"aa1abc", "aaa1abc-global"},
		{"9-x", "a9-x-global"},
		{"a9-x", "aa9-x-global"},
		{"model.v2", "model.v2-global"},
		{"a", "a-global"},
		{"ab1", "ab1-global"},
		{"a-1", "a-1-global"},
		{"aaa", "aaa-global"},
	}
	seen := map[string]string{}
	for _, c := range cases {
		got := RouteName("prod", c.name, "")
		if got != c.want {
			t.Errorf("RouteName(prod, %s) = %s, want %s", c.name, got, c.want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s both get the route %s", other, c.name, got)
		}
		seen[got] = c.name
	}
	// Every name of up to four characters from a small alphabet, the same way.
	const alphabet = "a1b-"
	all := map[string]string{}
	var walk func(prefix string)
	walk = func(prefix string) {
		if prefix != "" && prefix[0] != '-' && prefix[len(prefix)-1] != '-' {
			got := RouteName("prod", prefix, "")
			if other, dup := all[got]; dup {
				t.Fatalf("%q and %q both get the route %s", other, prefix, got)
			}
			all[got] = prefix
		}
		if len(prefix) < 4 {
			for _, c := range alphabet {
				walk(prefix + string(c))
			}
		}
	}
	walk("")
}
