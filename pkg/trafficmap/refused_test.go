package trafficmap

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// A home the operator refuses takes no traffic, whatever its capacity and whatever the
// all-failed policy does with gated homes, and every Routable message names it and why.
func TestBuildRefusedHomes(t *testing.T) {
	const (
		preserve = omev1beta1.AllFailedPreserveTraffic
		drain    = omev1beta1.AllFailedDrain
		True     = metav1.ConditionTrue
		False    = metav1.ConditionFalse
		private  = "probe not sent: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)"
		outside  = `host "llm.evil.test" is outside the WorkloadCluster's spec.allowedEndpointDomains [worker-c.example.com]`
	)
	tests := []struct {
		name    string
		homes   []Home
		policy  omev1beta1.AllFailedPolicy
		weights []int32
		healthy []bool
		want    Condition
	}{
		{
			name:    "one refused beside a healthy home",
			homes:   homes(makeHome("a").replicas(2, 2).passing(), makeHome("b").replicas(4, 4).refused(private)),
			policy:  preserve,
			weights: []int32{1, 0},
			healthy: []bool{true, false},
			want: Condition{True, omev1beta1.TrafficMapReasonRoutable,
				"1 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: b: " + private},
		},
		{
			name:    "every home refused",
			homes:   homes(makeHome("a").replicas(2, 2).refused(private), makeHome("b").replicas(1, 1).refused(outside)),
			policy:  preserve,
			weights: []int32{0, 0},
			healthy: []bool{false, false},
			want: Condition{False, omev1beta1.TrafficMapReasonEndpointRefused,
				"no home takes traffic; 2 home(s) refused by the operator, with weight 0: a: " + private + "; b: " + outside},
		},
		{
			// PreserveTraffic applies to the gated home alone: the refused one is not the
			// probe's, so it neither blocks the policy nor is preserved by it.
			name:    "PreserveTraffic lifts the gate but not the refusal",
			homes:   homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(2, 2).refused(private)),
			policy:  preserve,
			weights: []int32{1, 0},
			healthy: []bool{false, false},
			want: Condition{True, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"1 home(s) have conclusive probe failures; preserving traffic among homes with ready capacity; 1 home(s) refused by the operator, with weight 0: b: " + private},
		},
		{
			name:    "Drain with the rest gated",
			homes:   homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(2, 2).refused(private)),
			policy:  drain,
			weights: []int32{0, 0},
			healthy: []bool{false, false},
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				"1 home(s) have conclusive probe failures; all route weights are zero; 1 home(s) refused by the operator, with weight 0: b: " + private},
		},
		{
			// The refusal is not what keeps traffic away when the refused home could not
			// serve anyway: the capacity reason stays, with the refusal named.
			name:    "refused and unready",
			homes:   homes(makeHome("a").replicas(1, 0).refused(outside), makeHome("b").replicas(1, 0)),
			weights: []int32{0, 0},
			healthy: []bool{false, false},
			want: Condition{False, omev1beta1.TrafficMapReasonAllHomesUnready,
				"none of 2 home(s) has a ready replica; 1 home(s) refused by the operator, with weight 0: a: " + outside},
		},
		{
			name:    "refused with a ready home that has no capacity",
			homes:   homes(makeHome("a").replicas(2, 2).refused(outside), makeHome("b").replicas(0, 1)),
			weights: []int32{0, 0},
			healthy: []bool{false, true},
			want: Condition{False, omev1beta1.TrafficMapReasonEndpointRefused,
				"no home takes traffic; 1 home(s) refused by the operator, with weight 0: a: " + outside},
		},
		{
			name: "more refusals than are named",
			homes: homes(makeHome("a").replicas(1, 1).refused(outside), makeHome("b").replicas(1, 1).refused(outside),
				makeHome("c").replicas(1, 1).refused(outside), makeHome("d").replicas(1, 1).refused(outside), makeHome("e").replicas(1, 1)),
			weights: []int32{0, 0, 0, 0, 1},
			healthy: []bool{false, false, false, false, true},
			want: Condition{True, omev1beta1.TrafficMapReasonRoutable,
				"1 of 5 home(s) take traffic; 4 home(s) refused by the operator, with weight 0: a: " + outside + "; b: " + outside + "; c: " + outside + "; and 1 more"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Build(Input{Candidates: len(tc.homes), Homes: tc.homes, AllFailedPolicy: tc.policy})
			if got := weightsOf(res.Entries); !slices.Equal(got, tc.weights) {
				t.Errorf("weights %v, want %v", got, tc.weights)
			}
			if got := healthyOf(res.Entries); !slices.Equal(got, tc.healthy) {
				t.Errorf("healthy %v, want %v", got, tc.healthy)
			}
			for i, e := range res.Entries {
				if e.Refused != tc.homes[i].Refused {
					t.Errorf("entry %s refused %q, want %q", e.Cluster, e.Refused, tc.homes[i].Refused)
				}
			}
			if res.Routable != tc.want {
				t.Errorf("Routable\n got %+v\nwant %+v", res.Routable, tc.want)
			}
			// A drain of another home keeps the refusal in the message.
			if res.Routable.Reason == omev1beta1.TrafficMapReasonRoutable {
				if after := AfterDrains(res.Routable, res.Entries); after != res.Routable {
					t.Errorf("AfterDrains changed an undrained message: %+v", after)
				}
			}
		})
	}
}

// A refusal longer than the CRD allows is cut on a character boundary, so the map can
// still be written.
func TestBuildCapsARefusal(t *testing.T) {
	long := strings.Repeat("é", MaxRefusedBytes)
	res := Build(Input{Candidates: 1, Homes: homes(makeHome("a").replicas(1, 1).refused(long))})
	got := res.Entries[0].Refused
	if len(got) > MaxRefusedBytes || !utf8.ValidString(got) || !strings.HasPrefix(long, got) || len(got) < MaxRefusedBytes-1 {
		t.Fatalf("refused is %d bytes (valid UTF-8 %v), want at most %d, cut on a character", len(got), utf8.ValidString(got), MaxRefusedBytes)
	}
}
