package trafficmap

import (
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestPlanIDFollowsThePlacementOnly(t *testing.T) {
	a := omev1beta1.TrafficMapEntry{Cluster: "worker-a", Endpoint: "http://a.example.test:8080", Weight: 3}
	b := omev1beta1.TrafficMapEntry{Cluster: "worker-b", Endpoint: "http://b.example.test:8080", Weight: 1}
	id := PlanID([]omev1beta1.TrafficMapEntry{a, b})
	if len(id) != len("sha256:")+64 {
		t.Fatalf("id = %q", id)
	}
	if PlanID([]omev1beta1.TrafficMapEntry{b, a}) != id {
		t.Error("the order of the entries changed the plan")
	}
	reweighted, gated := a, b
	reweighted.Weight = 0
	gated.Probe = &omev1beta1.TrafficMapProbe{Gated: true, ConsecutiveFailures: 3}
	if PlanID([]omev1beta1.TrafficMapEntry{reweighted, gated}) != id {
		t.Error("a weight or a probe record changed the plan")
	}
	moved := b
	moved.Endpoint = "http://b2.example.test:8080"
	for name, entries := range map[string][]omev1beta1.TrafficMapEntry{
		"a home left":   {a},
		"a home moved":  {a, moved},
		"a home joined": {a, b, {Cluster: "worker-c", Endpoint: "http://c.example.test"}},
		"no home":       nil,
	} {
		if PlanID(entries) == id {
			t.Errorf("%s: the plan did not change", name)
		}
	}
}
