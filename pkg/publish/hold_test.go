package publish

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestHoldBecause(t *testing.T) {
	// The map as the routing reconciler wrote it, and the entries the publish guard lets
	// into the plan (by cluster).
	weighted := func(policy omev1beta1.AllFailedPolicy) *omev1beta1.TrafficMap {
		tm := makeMap().entry("worker-a", "http://a.example.com", 1).entry("worker-b", "http://b.example.com", 1).obj()
		tm.Spec.AllFailedPolicy = policy
		return tm
	}
	empty := func(policy omev1beta1.AllFailedPolicy) *omev1beta1.TrafficMap {
		tm := makeMap().obj()
		tm.Spec.AllFailedPolicy = policy
		return tm
	}
	zeroed := makeMap().entry("worker-a", "http://a.example.com", 0).entry("worker-b", "http://b.example.com", 0).obj()
	refused := makeMap().entry("worker-a", "http://a.example.com", 0).obj()
	refused.Spec.Entries[0].Refused = "outside allowedEndpointDomains"
	plan := func(weights map[string]int32) Plan {
		var p Plan
		for _, c := range []string{"worker-a", "worker-b"} {
			if w, ok := weights[c]; ok {
				p.Backends = append(p.Backends, Backend{Cluster: c, Weight: w})
			}
		}
		return p
	}
	cases := []struct {
		name     string
		tm       *omev1beta1.TrafficMap
		plan     Plan
		standing int
		refused  string
		want     string
	}{
		{"every weighted entry left out, PreserveTraffic", weighted(omev1beta1.AllFailedPreserveTraffic), plan(nil), 2, "",
			"the publish guard leaves every entry with weight out of the route (worker-a, worker-b; see the BackendRefused events)"},
		{"every weighted entry left out, no probe", weighted(""), plan(nil), 2, "",
			"the publish guard leaves every entry with weight out of the route (worker-a, worker-b; see the BackendRefused events)"},
		{"the weighted entry left out, a zero one kept", weighted(""), plan(map[string]int32{"worker-b": 0}), 1, "",
			"the publish guard leaves every entry with weight out of the route (worker-a; see the BackendRefused events)"},
		{"no entries, PreserveTraffic", empty(omev1beta1.AllFailedPreserveTraffic), plan(nil), 2, "", "the TrafficMap has no entries"},
		{"no entries, no probe", empty(""), plan(nil), 1, "", "the TrafficMap has no entries"},
		// Drain is the policy that takes traffic away: the plan is written.
		{"every weighted entry left out, Drain", weighted(omev1beta1.AllFailedDrain), plan(nil), 2, "", ""},
		{"no entries, Drain", empty(omev1beta1.AllFailedDrain), plan(nil), 2, "", ""},
		// The plan sends traffic somewhere: written.
		{"one entry left out", weighted(""), plan(map[string]int32{"worker-b": 1}), 2, "", ""},
		// Nothing stands that sends traffic: nothing to keep.
		{"no standing traffic", empty(""), plan(nil), 0, "", ""},
		// The map's own weights are 0 (drains, no ready replica, refusals): its decision.
		{"the map gives weight 0", zeroed, plan(map[string]int32{"worker-a": 0, "worker-b": 0}), 2, "", ""},
		{"the map refuses its only home", refused, plan(nil), 1, "", ""},
		// Never kept for a host the guard now refuses.
		{"a standing host refused", empty(""), plan(nil), 2, `host "a.example.com" resolves to 169.254.169.254`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := HoldBecause(HoldInput{Map: tc.tm, Plan: tc.plan, Standing: tc.standing, StandingRefused: tc.refused})
			if got != tc.want {
				t.Errorf("HoldBecause = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHoldMessage(t *testing.T) {
	tm := makeMap().obj()
	tm.Spec.AllFailedPolicy = omev1beta1.AllFailedPreserveTraffic
	got := HoldMessage(tm, 2, "the TrafficMap has no entries")
	want := `TrafficMap publisher "gatewayapi" keeps the route as last published, with 2 backend(s) that take traffic, instead of one that sends nothing: ` +
		`the TrafficMap has no entries; only allFailedPolicy Drain lets a route that sends traffic be replaced by one that sends none (the service's is PreserveTraffic)`
	if got != want {
		t.Errorf("HoldMessage =\n%s\nwant\n%s", got, want)
	}
	tm.Spec.AllFailedPolicy = ""
	if got := HoldMessage(tm, 1, "x"); !strings.HasSuffix(got, "(no probe applies to the service)") {
		t.Errorf("HoldMessage without a probe = %q", got)
	}
}

func TestHeldConditions(t *testing.T) {
	c := HeldConditions("why", 7)
	if len(c) != 2 {
		t.Fatalf("%d conditions, want 2", len(c))
	}
	published, fallback := c[0], c[1]
	if published.Type != omev1beta1.TrafficMapPublished || published.Status != metav1.ConditionFalse ||
		published.Reason != string(omev1beta1.TrafficMapReasonLastPositiveRetained) || published.Message != "why" || published.ObservedGeneration != 7 {
		t.Errorf("Published = %+v", published)
	}
	if fallback.Type != omev1beta1.TrafficMapPublicationFallback || fallback.Status != metav1.ConditionTrue ||
		fallback.Reason != string(omev1beta1.TrafficMapReasonLastPositiveRetained) || fallback.ObservedGeneration != 7 {
		t.Errorf("PublicationFallback = %+v", fallback)
	}
}
