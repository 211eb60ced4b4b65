package trafficmap

import (
	"slices"
	"testing"
	"time"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// unobservedAt is when the unobserved homes of these tests were last observed.
var unobservedAt = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// unobserved marks the home as not observed since unobservedAt.
func (w *homeWrapper) unobserved() *homeWrapper {
	w.UnobservedSince = unobservedAt
	return w
}

func clusters(hs []Home) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Cluster)
	}
	return out
}

// An unobserved home stays for its grace; past it, it leaves only while an observed home
// takes traffic on its own: the last homes never leave for the control plane's blindness.
func TestRetainUnobserved(t *testing.T) {
	const grace = 5 * time.Minute
	within, past := unobservedAt.Add(grace-time.Second), unobservedAt.Add(grace)
	cases := []struct {
		name       string
		homes      []Home
		now        time.Time
		kept, gone []string
		nextExpiry time.Time
	}{
		{
			name:       "within the grace, every home stays",
			homes:      homes(makeHome("a").replicas(1, 1).unobserved(), makeHome("b").replicas(1, 1)),
			now:        within,
			kept:       []string{"a", "b"},
			nextExpiry: past,
		},
		{
			name:  "past the grace, beside an observed home that serves, it leaves",
			homes: homes(makeHome("a").replicas(1, 1).unobserved(), makeHome("b").replicas(1, 1)),
			now:   past,
			kept:  []string{"b"},
			gone:  []string{"a"},
		},
		{
			name:  "past the grace, every home unobserved: all stay",
			homes: homes(makeHome("a").replicas(1, 1).unobserved(), makeHome("b").replicas(1, 1).unobserved()),
			now:   past.Add(time.Hour),
			kept:  []string{"a", "b"},
		},
		{
			name: "past the grace, the observed homes cannot serve (no ready replica, refused): all stay",
			homes: homes(makeHome("a").replicas(1, 1).unobserved(), makeHome("b").replicas(1, 0),
				makeHome("c").replicas(1, 1).refused("outside")),
			now:  past,
			kept: []string{"a", "b", "c"},
		},
		{
			name:  "nothing unobserved",
			homes: homes(makeHome("a").replicas(1, 1)),
			now:   past,
			kept:  []string{"a"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kept, gone, next := RetainUnobserved(tc.homes, tc.now, grace)
			if !slices.Equal(clusters(kept), tc.kept) || !slices.Equal(clusters(gone), tc.gone) {
				t.Errorf("RetainUnobserved() kept %v, expired %v; want %v, %v", clusters(kept), clusters(gone), tc.kept, tc.gone)
			}
			if !next.Equal(tc.nextExpiry) {
				t.Errorf("nextExpiry = %v, want %v", next, tc.nextExpiry)
			}
		})
	}
}

// The entry of an unobserved home carries the time, and the count says how many there are.
func TestBuildRecordsUnobserved(t *testing.T) {
	r := Build(Input{Candidates: 2, Homes: homes(makeHome("a").replicas(1, 1).unobserved(), makeHome("b").replicas(1, 1))})
	if r.Entries[0].UnobservedSince == nil || !r.Entries[0].UnobservedSince.Time.Equal(unobservedAt) || r.Entries[1].UnobservedSince != nil {
		t.Fatalf("entries = %+v", r.Entries)
	}
	if r.Entries[0].Weight != r.Entries[1].Weight {
		t.Errorf("an unobserved home is weighed like any other: %d vs %d", r.Entries[0].Weight, r.Entries[1].Weight)
	}
	if n := UnobservedEntries(r.Entries); n != 1 {
		t.Errorf("UnobservedEntries() = %d, want 1", n)
	}
	if n := UnobservedEntries([]omev1beta1.TrafficMapEntry{{Cluster: "x"}}); n != 0 {
		t.Errorf("UnobservedEntries() = %d, want 0", n)
	}
}
