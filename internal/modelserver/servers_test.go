package modelserver

import "testing"

func TestSplitMatches(t *testing.T) {
	w321 := map[string]int32{"a": 3, "b": 2, "c": 1}
	cases := []struct {
		name     string
		received map[string]int64
		weights  map[string]int32
		want     bool
	}{
		{"exact", map[string]int64{"a": 30, "b": 20, "c": 10}, w321, true},
		{"within a request", map[string]int64{"a": 31, "b": 19, "c": 10}, w321, true},
		{"the weights before (1:1:1)", map[string]int64{"a": 20, "b": 20, "c": 20}, w321, false},
		{"a request to weight 0", map[string]int64{"a": 39, "b": 20, "c": 1}, map[string]int32{"a": 2, "b": 1, "c": 0}, false},
		{"a request to a server without weight", map[string]int64{"a": 59, "d": 1}, map[string]int32{"a": 1}, false},
		{"every weight 0, nothing received", map[string]int64{"a": 0}, map[string]int32{"a": 0, "b": 0}, true},
		{"every weight 0, one received", map[string]int64{"a": 1}, map[string]int32{"a": 0, "b": 0}, false},
	}
	for _, c := range cases {
		if got := SplitMatches(c.received, c.weights, 60, 0.02); got != c.want {
			t.Errorf("%s: SplitMatches(%v, %v) = %t, want %t", c.name, c.received, c.weights, got, c.want)
		}
	}
}
