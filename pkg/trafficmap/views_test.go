package trafficmap

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func viewEntry(cluster string, weight int32, edit func(*omev1beta1.TrafficMapEntry)) omev1beta1.TrafficMapEntry {
	e := omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: "http://" + cluster + ".example.com", Weight: weight, Healthy: true,
		Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: "HTTP 200"}}
	if edit != nil {
		edit(&e)
	}
	return e
}

func TestRamping(t *testing.T) {
	cases := []struct {
		name string
		p    *omev1beta1.TrafficMapProbe
		pg   *omev1beta1.TrafficMapPassiveGate
		want bool
	}{
		{"no probe", nil, nil, false},
		{"no ramp", &omev1beta1.TrafficMapProbe{}, nil, false},
		{"ramping", &omev1beta1.TrafficMapProbe{RampPercent: 40}, nil, true},
		{"a gate ends the ramp", &omev1beta1.TrafficMapProbe{RampPercent: 40, Gated: true}, nil, false},
		{"at full weight", &omev1beta1.TrafficMapProbe{RampPercent: 100}, nil, false},
		{"ramping after a passive lift", &omev1beta1.TrafficMapProbe{}, &omev1beta1.TrafficMapPassiveGate{RampPercent: 30}, true},
		{"a passive gate ends its ramp", &omev1beta1.TrafficMapProbe{}, &omev1beta1.TrafficMapPassiveGate{RampPercent: 30, Gated: true}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Ramping(omev1beta1.TrafficMapEntry{Probe: c.p, PassiveGate: c.pg}); got != c.want {
				t.Fatalf("Ramping = %v, want %v", got, c.want)
			}
		})
	}
}

func TestNewestProbeTime(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) func(*omev1beta1.TrafficMapEntry) {
		return func(e *omev1beta1.TrafficMapEntry) { e.Probe.LastProbeTime = &metav1.Time{Time: t0.Add(d)} }
	}
	noProbe := func(e *omev1beta1.TrafficMapEntry) { e.Probe = nil }
	if got := NewestProbeTime([]omev1beta1.TrafficMapEntry{viewEntry("a", 1, noProbe), viewEntry("b", 1, nil)}); got != nil {
		t.Fatalf("no lastProbeTime recorded: got %v", got)
	}
	entries := []omev1beta1.TrafficMapEntry{viewEntry("a", 1, at(-time.Minute)), viewEntry("b", 1, at(0)), viewEntry("c", 1, noProbe)}
	got := NewestProbeTime(entries)
	if got == nil || !got.Time.Equal(t0) {
		t.Fatalf("NewestProbeTime = %v, want %v", got, t0)
	}
	got.Time = got.Add(time.Hour)
	if !entries[1].Probe.LastProbeTime.Time.Equal(t0) {
		t.Fatal("NewestProbeTime returned the entry's own time, not a copy")
	}
}

func TestRouteGeneration(t *testing.T) {
	probed := func(e *omev1beta1.TrafficMapEntry) {
		e.Probe.LastProbeTime = &metav1.Time{Time: time.Date(2026, 12, 1, 10, 0, 1, 0, time.UTC)}
		e.Probe.ConsecutiveFailures = 1
		e.Probe.Message = "HTTP 503"
	}
	mapAt := func(generation, routeGeneration int64, entries ...omev1beta1.TrafficMapEntry) *omev1beta1.TrafficMap {
		return &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Generation: generation},
			Spec:   omev1beta1.TrafficMapSpec{Entries: entries},
			Status: omev1beta1.TrafficMapStatus{RouteGeneration: routeGeneration}}
	}
	before := mapAt(7, 4, viewEntry("a", 1, nil), viewEntry("b", 1, nil))
	cases := []struct {
		name    string
		before  *omev1beta1.TrafficMap
		written *omev1beta1.TrafficMap
		want    int64
	}{
		{"a new map", nil, mapAt(1, 0, viewEntry("a", 1, nil)), 1},
		{"a map an earlier release wrote", mapAt(7, 0, viewEntry("a", 1, nil)), mapAt(8, 0, viewEntry("a", 1, probed)), 8},
		{"a probe round that moves only the records", before, mapAt(8, 4, viewEntry("a", 1, probed), viewEntry("b", 1, probed)), 4},
		{"nothing written", before, before, 4},
		{"a weight", before, mapAt(8, 4, viewEntry("a", 1, nil), viewEntry("b", 0, nil)), 8},
		{"an endpoint", before, mapAt(8, 4, viewEntry("a", 1, nil), viewEntry("b", 1, func(e *omev1beta1.TrafficMapEntry) {
			e.Endpoint = "http://b2.example.com"
		})), 8},
		{"a home leaves", before, mapAt(8, 4, viewEntry("a", 1, nil)), 8},
		{"a home in another's place", before, mapAt(8, 4, viewEntry("a", 1, nil), viewEntry("c", 1, nil)), 8},
		{"a recorded value past the generation", mapAt(7, 9, viewEntry("a", 1, nil)), mapAt(7, 9, viewEntry("a", 1, nil)), 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RouteGeneration(c.before, c.written); got != c.want {
				t.Fatalf("RouteGeneration = %d, want %d", got, c.want)
			}
		})
	}
}
