package trafficmap

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestBuildRoutable(t *testing.T) {
	const (
		preserve = omev1beta1.AllFailedPreserveTraffic
		drain    = omev1beta1.AllFailedDrain
		True     = metav1.ConditionTrue
		False    = metav1.ConditionFalse
	)
	tests := []struct {
		name       string
		candidates int
		homes      []Home
		policy     omev1beta1.AllFailedPolicy
		want       Condition
		healthy    []bool
	}{
		// One case per reason.
		{
			name:    "NotPlaced",
			want:    Condition{False, omev1beta1.TrafficMapReasonNotPlaced, "no workload cluster matches the placement"},
			healthy: []bool{},
		},
		{
			name:       "NoAddressableHome",
			candidates: 2,
			want:       Condition{False, omev1beta1.TrafficMapReasonNoAddressableHome, "2 placed cluster(s) report no endpoint"},
			healthy:    []bool{},
		},
		{
			name:       "Routable",
			candidates: 3,
			homes:      homes(makeHome("a").replicas(2, 2), makeHome("b").replicas(1, 1).passing(), makeHome("c").replicas(1, 1).gated()),
			policy:     drain,
			want:       Condition{True, omev1beta1.TrafficMapReasonRoutable, "2 of 3 home(s) take traffic"},
			healthy:    []bool{true, true, false},
		},
		{
			name:       "AllHomesProbeFailed True under PreserveTraffic",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(1, 0).gated()),
			policy:     preserve,
			want: Condition{True, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"2 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity"},
			healthy: []bool{false, false},
		},
		{
			name:       "AllHomesProbeFailed False under Drain",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(1, 1).gated()),
			policy:     drain,
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"2 home(s) have conclusive probe failures; all route weights are zero"},
			healthy: []bool{false, false},
		},
		{
			name:       "AllHomesUnready",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 0), makeHome("b").replicas(0, 0).passing()),
			policy:     drain,
			want:       Condition{False, omev1beta1.TrafficMapReasonAllHomesUnready, "none of 2 home(s) has a ready replica"},
			healthy:    []bool{false, false},
		},
		{
			name:       "NoRoutableCapacity",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(0, 2), makeHome("b").replicas(0, 1)),
			want:       Condition{False, omev1beta1.TrafficMapReasonNoRoutableCapacity, "no home open to traffic has both allocated and ready replicas"},
			healthy:    []bool{true, true},
		},
		// Precedence.
		{
			name:       "homes decide over a candidate count of zero",
			candidates: 0,
			homes:      homes(makeHome("a").replicas(1, 1)),
			want:       Condition{True, omev1beta1.TrafficMapReasonRoutable, "1 of 1 home(s) take traffic"},
			healthy:    []bool{true},
		},
		{
			name:       "Drain with every home gated and none ready is AllHomesUnready: lifting the gates would not help",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 0).gated(), makeHome("b").replicas(1, 0).gated()),
			policy:     drain,
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesUnready,
				"none of 2 home(s) has a ready replica (all 2 home(s) also fail the probe)"},
			healthy: []bool{false, false},
		},
		{
			name:       "Drain with every home gated, ready but nothing allocated, is NoRoutableCapacity",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(0, 2).gated(), makeHome("b").replicas(3, 0).gated()),
			policy:     drain,
			want: Condition{False, omev1beta1.TrafficMapReasonNoRoutableCapacity,
				"no home open to traffic has both allocated and ready replicas (all 2 home(s) also fail the probe)"},
			healthy: []bool{false, false},
		},
		{
			name:       "Drain with every home gated and one that could serve is AllHomesProbeFailed",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(0, 2).gated(), makeHome("b").replicas(1, 1).gated()),
			policy:     drain,
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"2 home(s) have conclusive probe failures; all route weights are zero"},
			healthy: []bool{false, false},
		},
		{
			name:       "every home gated with no policy reads as Drain",
			candidates: 1,
			homes:      homes(makeHome("a").replicas(2, 2).gated()),
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"1 home(s) have conclusive probe failures; all route weights are zero"},
			healthy: []bool{false},
		},
		{
			name:       "PreserveTraffic with every home gated and none ready is AllHomesUnready",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 0).gated(), makeHome("b").replicas(0, 0).gated()),
			policy:     preserve,
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesUnready,
				"none of 2 home(s) has a ready replica (all 2 home(s) also fail the probe; PreserveTraffic ignores the gates)"},
			healthy: []bool{false, false},
		},
		{
			name:       "PreserveTraffic with every home gated, ready but nothing allocated, is NoRoutableCapacity",
			candidates: 1,
			homes:      homes(makeHome("a").replicas(0, 2).gated()),
			policy:     preserve,
			want: Condition{False, omev1beta1.TrafficMapReasonNoRoutableCapacity,
				"no home open to traffic has both allocated and ready replicas (all 1 home(s) also fail the probe; PreserveTraffic ignores the gates)"},
			healthy: []bool{false},
		},
		{
			name:       "AllHomesUnready wins over NoRoutableCapacity",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(0, 0), makeHome("b").replicas(3, 0)),
			want:       Condition{False, omev1beta1.TrafficMapReasonAllHomesUnready, "none of 2 home(s) has a ready replica"},
			healthy:    []bool{false, false},
		},
		{
			name:       "a gated home with ready replicas makes it NoRoutableCapacity, not AllHomesUnready",
			candidates: 2,
			homes:      homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(2, 0).passing()),
			policy:     preserve,
			want:       Condition{False, omev1beta1.TrafficMapReasonNoRoutableCapacity, "no home open to traffic has both allocated and ready replicas"},
			healthy:    []bool{false, false},
		},
		{
			name:       "one open home with capacity is Routable whatever the gates on the others",
			candidates: 3,
			homes:      homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(1, 1).gated(), makeHome("c").replicas(1, 1)),
			policy:     drain,
			want:       Condition{True, omev1beta1.TrafficMapReasonRoutable, "1 of 3 home(s) take traffic"},
			healthy:    []bool{false, false, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(Input{Candidates: tt.candidates, Homes: tt.homes, AllFailedPolicy: tt.policy})
			if got.Routable != tt.want {
				t.Errorf("Routable:\n got %+v\nwant %+v", got.Routable, tt.want)
			}
			if h := healthyOf(got.Entries); !slices.Equal(h, tt.healthy) {
				t.Errorf("healthy = %v, want %v", h, tt.healthy)
			}
		})
	}
}
