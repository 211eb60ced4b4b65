package trafficmap

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// TestAfterDrains checks where TrafficDrain sits among the reasons: it wins for a table that
// had weight and has none after the drains, and never overrides a reason that already
// explained an empty table.
func TestAfterDrains(t *testing.T) {
	drained := func(weights ...int32) []omev1beta1.TrafficMapEntry {
		out := make([]omev1beta1.TrafficMapEntry, len(weights))
		for i, w := range weights {
			out[i] = omev1beta1.TrafficMapEntry{Cluster: string(rune('a' + i)), Weight: w}
		}
		return out
	}
	tests := []struct {
		name    string
		homes   []Home
		policy  omev1beta1.AllFailedPolicy
		drained []int32
		want    Condition
	}{
		{
			name:    "traffic left: Routable with the new count",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1)),
			drained: []int32{0, 1},
			want:    Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable, "1 of 2 home(s) take traffic"},
		},
		{
			name:    "all drained",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(0, 0)),
			drained: []int32{0, 0},
			want:    Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain, "manual traffic-drain overrides set all 2 route arm(s) to zero"},
		},
		{
			name:    "all drained while every home is gated and preserved",
			homes:   homes(makeHome("a").replicas(1, 1).gated(), makeHome("b").replicas(1, 1).gated()),
			policy:  omev1beta1.AllFailedPreserveTraffic,
			drained: []int32{0, 0},
			want:    Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain, "manual traffic-drain overrides set all 2 route arm(s) to zero"},
		},
		{
			name:    "AllHomesUnready stands",
			homes:   homes(makeHome("a").replicas(1, 0), makeHome("b").replicas(1, 0)),
			drained: []int32{0, 0},
			want:    Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesUnready, "none of 2 home(s) has a ready replica"},
		},
		{
			name:    "NoRoutableCapacity stands",
			homes:   homes(makeHome("a").replicas(0, 1)),
			drained: []int32{0},
			want:    Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonNoRoutableCapacity, "no home open to traffic has both allocated and ready replicas"},
		},
		{
			name:    "AllHomesProbeFailed under Drain stands",
			homes:   homes(makeHome("a").replicas(1, 1).gated()),
			policy:  omev1beta1.AllFailedDrain,
			drained: []int32{0},
			want:    Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesProbeFailed, "1 home(s) have conclusive probe failures; all route weights are zero"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Build(Input{Candidates: len(tt.homes), Homes: tt.homes, AllFailedPolicy: tt.policy}).Routable
			if got := AfterDrains(before, drained(tt.drained...)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
