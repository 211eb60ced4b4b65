package trafficmap

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestDeferrable(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	entry := func(cluster string, probed time.Time, edit func(*omev1beta1.TrafficMapEntry)) omev1beta1.TrafficMapEntry {
		e := omev1beta1.TrafficMapEntry{Cluster: cluster, Endpoint: "http://" + cluster + ".example.com", Weight: 1, Healthy: true,
			Probe: &omev1beta1.TrafficMapProbe{PolicyDigest: "d", Result: omev1beta1.ProbePassing, Message: "HTTP 200",
				LastProbeTime: &metav1.Time{Time: probed}}}
		if edit != nil {
			edit(&e)
		}
		return e
	}
	recorded := []omev1beta1.TrafficMapEntry{entry("a", t0, nil), entry("b", t0.Add(-time.Second), nil)}
	quiet := func(at time.Time) []omev1beta1.TrafficMapEntry {
		return []omev1beta1.TrafficMapEntry{entry("a", at, nil), entry("b", at, nil)}
	}
	now := t0.Add(10 * time.Second)
	cases := []struct {
		name     string
		next     []omev1beta1.TrafficMapEntry
		interval time.Duration
		now      time.Time
		want     bool
	}{
		{"quiet round within the interval", quiet(now), 20 * time.Second, now, true},
		{"quiet round once the interval has passed", quiet(t0.Add(20 * time.Second)), 20 * time.Second, t0.Add(20 * time.Second), false},
		{"no interval: every round is written", quiet(now), 0, now, false},
		{"a failure counted", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) {
			e.Probe.Result, e.Probe.Message, e.Probe.ConsecutiveFailures = omev1beta1.ProbeFailing, "HTTP 503", 1
		}), entry("b", now, nil)}, 20 * time.Second, now, false},
		{"a new message only", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) {
			e.Probe.Message = "HTTP 204"
		}), entry("b", now, nil)}, 20 * time.Second, now, false},
		{"a gate", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) {
			e.Probe.Gated, e.Weight, e.Healthy = true, 0, false
		}), entry("b", now, nil)}, 20 * time.Second, now, false},
		{"a weight", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) { e.Weight = 2 }), entry("b", now, nil)},
			20 * time.Second, now, false},
		{"an endpoint", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) { e.Endpoint = "http://x.example.com" }),
			entry("b", now, nil)}, 20 * time.Second, now, false},
		{"an entry less", quiet(now)[:1], 20 * time.Second, now, false},
		{"a probe block dropped", []omev1beta1.TrafficMapEntry{entry("a", now, func(e *omev1beta1.TrafficMapEntry) { e.Probe = nil }),
			entry("b", now, nil)}, 20 * time.Second, now, false},
	}
	for _, c := range cases {
		if got := Deferrable(recorded, c.next, c.interval, c.now); got != c.want {
			t.Errorf("%s: Deferrable = %v, want %v", c.name, got, c.want)
		}
	}
	// An entry never probed is not a quiet round.
	unprobed := []omev1beta1.TrafficMapEntry{entry("a", t0, func(e *omev1beta1.TrafficMapEntry) { e.Probe.LastProbeTime = nil })}
	if Deferrable(unprobed, quiet(now)[:1], time.Minute, now) {
		t.Errorf("an unprobed entry was deferred")
	}
}
