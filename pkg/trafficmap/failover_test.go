package trafficmap

import (
	"math"
	"slices"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/failover"
)

// twoRegions puts a1 and a2 in tier east and b1 and b2 in tier west; any other cluster is
// unlisted.
func twoRegions(clusters ...string) *failover.Assignment {
	a := &failover.Assignment{Names: []string{"east", "west"}, OverprovisioningPercent: omev1beta1.DefaultOverprovisioningPercent,
		TierOf: map[string]int{"a1": 0, "a2": 0, "b1": 1, "b2": 1}}
	for _, c := range clusters {
		a.TierOf[c] = 2
		if !slices.Contains(a.Names, omev1beta1.UnlistedTier) {
			a.Names = append(a.Names, omev1beta1.UnlistedTier)
		}
	}
	return a
}

// sharesOf is each entry's percent of the traffic.
func sharesOf(entries []omev1beta1.TrafficMapEntry) []float64 {
	var sum float64
	for _, e := range entries {
		sum += float64(e.Weight)
	}
	out := make([]float64, len(entries))
	for i, e := range entries {
		if sum > 0 {
			out[i] = 100 * float64(e.Weight) / sum
		}
	}
	return out
}

func reasonsOf(entries []omev1beta1.TrafficMapEntry) []omev1beta1.WeightReason {
	out := make([]omev1beta1.WeightReason, len(entries))
	for i, e := range entries {
		out[i] = e.WeightReason
	}
	return out
}

// TestFailoverSplitsOverTiers: two tiers of two one-replica clusters. The table is built,
// drained and explained as the reconciler does, and each home's share of the traffic is
// what Envoy's priority load gives, within the rounding of whole-number weights (exact
// here, as the weights carry exact shares).
func TestFailoverSplitsOverTiers(t *testing.T) {
	ramping := func(pct int32) *homeWrapper {
		w := makeHome("a1").replicas(1, 1).passing()
		w.Probe.RampPercent = pct
		return w
	}
	ceiling := func(v int32) *homeWrapper {
		w := makeHome("a1").replicas(4, 4).passing()
		w.Ceiling = &capacity.Ceiling{OK: true, Value: v}
		return w
	}
	cases := []struct {
		name    string
		a1      *homeWrapper
		drained []string
		policy  omev1beta1.AllFailedPolicy
		shares  []float64 // a1 a2 b1 b2
		reasons []omev1beta1.WeightReason
		summary string
	}{
		{name: "all healthy: west stands by", a1: makeHome("a1").replicas(1, 1).passing(),
			shares:  []float64{50, 50, 0, 0},
			reasons: []omev1beta1.WeightReason{omev1beta1.WeightRouted, omev1beta1.WeightRouted, omev1beta1.WeightStandby, omev1beta1.WeightStandby},
			summary: "east 100%, west 0%"},
		{name: "half of east gated: west takes 30%", a1: makeHome("a1").replicas(1, 1).gated(),
			shares:  []float64{0, 70, 15, 15},
			reasons: []omev1beta1.WeightReason{omev1beta1.WeightGated, omev1beta1.WeightRouted, omev1beta1.WeightSpilled, omev1beta1.WeightSpilled},
			summary: "east 70%, west 30%"},
		{name: "half of east drained: the drain counts as lost capacity", a1: makeHome("a1").replicas(1, 1).passing(), drained: []string{"a1"},
			shares:  []float64{0, 70, 15, 15},
			reasons: []omev1beta1.WeightReason{omev1beta1.WeightDrained, omev1beta1.WeightRouted, omev1beta1.WeightSpilled, omev1beta1.WeightSpilled},
			summary: "east 70%, west 30%"},
		{name: "a home ramping at 20% counts at its share", a1: ramping(20),
			// east is 60% healthy: 84 points; a1 takes 20/120 of them.
			shares:  []float64{14, 70, 8, 8},
			reasons: []omev1beta1.WeightReason{omev1beta1.WeightRampingUp, omev1beta1.WeightRouted, omev1beta1.WeightSpilled, omev1beta1.WeightSpilled},
			summary: "east 84%, west 16%"},
		{name: "a capacity report lowers a tier's health", a1: ceiling(1),
			// east serves 2 of its 5 replicas: 40% healthy, 56 points.
			shares:  []float64{28, 28, 22, 22},
			reasons: []omev1beta1.WeightReason{omev1beta1.WeightCapacityCapped, omev1beta1.WeightRouted, omev1beta1.WeightSpilled, omev1beta1.WeightSpilled},
			summary: "east 56%, west 44%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a2 := makeHome("a2").replicas(1, 1).passing()
			in := Input{Candidates: 4, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic, Failover: twoRegions(), Drained: c.drained,
				Homes: homes(c.a1, a2, makeHome("b1").replicas(1, 1).passing(), makeHome("b2").replicas(1, 1).passing())}
			got := Explain(applyDrains(Build(in), c.drained), in.AllFailedPolicy)
			for i, s := range sharesOf(got.Entries) {
				if math.Abs(s-c.shares[i]) > 0.5 {
					t.Errorf("shares = %v (weights %v), want %v", sharesOf(got.Entries), weightsOf(got.Entries), c.shares)
					break
				}
			}
			if r := reasonsOf(got.Entries); !slices.Equal(r, c.reasons) {
				t.Errorf("reasons = %v, want %v", r, c.reasons)
			}
			if got.Failover == nil || got.Failover.Summary != c.summary {
				t.Errorf("failover = %+v, want summary %q", got.Failover, c.summary)
			}
			for _, e := range got.Entries {
				if want := map[byte]string{'a': "east", 'b': "west"}[e.Cluster[0]]; e.Tier != want {
					t.Errorf("%s is in tier %q, want %q", e.Cluster, e.Tier, want)
				}
			}
		})
	}
}

// applyDrains holds the drained entries at 0, as drain.Apply does after Build (that
// package imports this one, so it cannot be called here).
func applyDrains(r Result, drained []string) Result {
	for i := range r.Entries {
		if slices.Contains(drained, r.Entries[i].Cluster) {
			r.Entries[i].Weight, r.Entries[i].DrainRefs = 0, []string{"maintenance"}
		}
	}
	return r
}

func TestFailoverGatingAllOfATierSendsEverythingOn(t *testing.T) {
	in := Input{Candidates: 4, AllFailedPolicy: omev1beta1.AllFailedDrain, Failover: twoRegions(),
		Homes: homes(makeHome("a1").replicas(1, 1).gated(), makeHome("a2").replicas(1, 1).gated(),
			makeHome("b1").replicas(1, 1).passing(), makeHome("b2").replicas(3, 3).passing())}
	got := Explain(Build(in), in.AllFailedPolicy)
	if w := weightsOf(got.Entries); !slices.Equal(w, []int32{0, 0, 1, 3}) {
		t.Fatalf("weights = %v, want [0 0 1 3]: west takes all, by capacity", w)
	}
	if got.Routable.Status != "True" {
		t.Errorf("Routable = %+v, want True: west serves", got.Routable)
	}
	msg := got.Entries[2].WeightMessage
	for _, want := range []string{"in tier west, which takes 100% of the traffic", "east at health 0 of 100", "min(allocated 1, ready 1)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("b1's message %q does not say %q", msg, want)
		}
	}
}

func TestFailoverAllGatedFollowsAllFailedPolicy(t *testing.T) {
	for policy, want := range map[omev1beta1.AllFailedPolicy][]int32{
		omev1beta1.AllFailedPreserveTraffic: {1, 1, 0, 0}, // the gates are set aside, so east is whole again
		omev1beta1.AllFailedDrain:           {0, 0, 0, 0},
	} {
		in := Input{Candidates: 4, AllFailedPolicy: policy, Failover: twoRegions(),
			Homes: homes(makeHome("a1").replicas(1, 1).gated(), makeHome("a2").replicas(1, 1).gated(),
				makeHome("b1").replicas(1, 1).gated(), makeHome("b2").replicas(1, 1).gated())}
		if w := weightsOf(Build(in).Entries); !slices.Equal(w, want) {
			t.Errorf("%s: weights = %v, want %v", policy, w, want)
		}
	}
}

// TestFailoverWithOneTierHasTodaysWeights: with every home in one tier, the tier takes all
// the traffic and the weights are exactly those without failover, factors and ramps
// included.
func TestFailoverWithOneTierHasTodaysWeights(t *testing.T) {
	ramp := makeHome("b1").replicas(3, 3).passing()
	ramp.Probe.RampPercent = 40
	hs := homes(makeHome("a1").replicas(2, 2).passing(), makeHome("a2").replicas(5, 4).passing(), ramp,
		makeHome("b2").replicas(1, 0), makeHome("c").replicas(7, 7).gated())
	plain := Input{Candidates: 5, Homes: hs, CapacityFactors: factors("a2", "1.5", "c", "0.25"), AllFailedPolicy: omev1beta1.AllFailedDrain}
	tiered := plain
	tiered.Failover = &failover.Assignment{Names: []string{"all"}, OverprovisioningPercent: 140,
		TierOf: map[string]int{"a1": 0, "a2": 0, "b1": 0, "b2": 0, "c": 0}}
	if w, want := weightsOf(Build(tiered).Entries), weightsOf(Build(plain).Entries); !slices.Equal(w, want) {
		t.Fatalf("one tier: weights = %v, want %v as without failover", w, want)
	}
	if got := Build(plain); got.Failover != nil || got.Entries[0].Tier != "" {
		t.Errorf("without failover the map records no split (%+v) and no tier (%q)", got.Failover, got.Entries[0].Tier)
	}
}

// TestFailoverUnlistedTierComesLast: a home no tier names waits behind every named tier.
func TestFailoverUnlistedTierComesLast(t *testing.T) {
	in := Input{Candidates: 3, Failover: twoRegions("c"),
		Homes: homes(makeHome("a1").replicas(1, 1).gated(), makeHome("b1").replicas(1, 1).gated(), makeHome("c").replicas(1, 1))}
	got := Explain(Build(in), "")
	if w := weightsOf(got.Entries); !slices.Equal(w, []int32{0, 0, 1}) {
		t.Fatalf("weights = %v, want [0 0 1]", w)
	}
	if got.Entries[2].Tier != omev1beta1.UnlistedTier || got.Failover.Summary != "east 0%, west 0%, unlisted 100%" {
		t.Errorf("tier %q, summary %q", got.Entries[2].Tier, got.Failover.Summary)
	}
}

// TestFailoverTooLittleHealthToScoreFollowsCapacity: when no tier scores above 0, the
// tiers are skipped rather than the service drained.
func TestFailoverTooLittleHealthToScoreFollowsCapacity(t *testing.T) {
	in := Input{Candidates: 2, Failover: twoRegions(),
		Homes: homes(makeHome("a1").replicas(200, 1), makeHome("b1").replicas(200, 1))}
	if w := weightsOf(Build(in).Entries); !slices.Equal(w, []int32{1, 1}) {
		t.Fatalf("weights = %v, want [1 1]", w)
	}
}
