package main

import "testing"

func TestParseTraffic(t *testing.T) {
	cases := []struct {
		word          string
		status, every int
		ok            bool
	}{
		{"503", 503, 1, true},
		{"503/3", 503, 3, true},
		{"404", 404, 1, true},
		{"502/1000", 502, 1000, true},
		{"200", 0, 0, true},
		{"200/3", 0, 0, true},
		{"500", 0, 0, false},
		{"503/0", 0, 0, false},
		{"503/x", 0, 0, false},
		{"503/1001", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, c := range cases {
		status, every, ok := parseTraffic(c.word)
		if status != c.status || every != c.every || ok != c.ok {
			t.Errorf("parseTraffic(%q) = %d, %d, %v; want %d, %d, %v", c.word, status, every, ok, c.status, c.every, c.ok)
		}
	}
}
