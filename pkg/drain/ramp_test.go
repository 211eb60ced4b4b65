package drain

import (
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// Drains apply to a ramping table as to any other: after the ramp has scaled and reduced
// the weights, a drained entry goes to 0 (a ramping one included) and the others keep
// their ramped weights, not reduced again.
func TestApplyToARampingTable(t *testing.T) {
	home := func(cluster string, ramp int32) trafficmap.Home {
		return trafficmap.Home{Cluster: cluster, Endpoint: "https://" + cluster + ".example.com", Allocated: 1, Ready: 1,
			Probe: &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbePassing, RampPercent: ramp}}
	}
	built := trafficmap.Build(trafficmap.Input{Candidates: 3, Homes: []trafficmap.Home{home("a", 0), home("b", 40), home("c", 0)}})
	if got := weights(built.Entries); got != [3]int32{5, 2, 5} {
		t.Fatalf("ramped weights %v, want 5 2 5", got)
	}
	for _, tt := range []struct {
		cluster string
		want    [3]int32
	}{
		{"c", [3]int32{5, 2, 0}}, // a full home drained: the ramping one keeps 2, not 2:5 reduced
		{"b", [3]int32{5, 0, 5}}, // the ramping home drained
	} {
		out := Apply(built, []Override{{ID: "maintenance", Cluster: tt.cluster}})
		if got := weights(out.Entries); got != tt.want {
			t.Errorf("drain %s: weights %v, want %v", tt.cluster, got, tt.want)
		}
	}
}

func weights(entries []omev1beta1.TrafficMapEntry) [3]int32 {
	var out [3]int32
	for i, e := range entries {
		out[i] = e.Weight
	}
	return out
}
