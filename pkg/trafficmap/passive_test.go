package trafficmap

import (
	"slices"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const heldMessage = "passive gate since 2026-12-03T10:00:00Z (33% of 90 requests failed); lifts at 2026-12-03T10:00:30Z at the earliest, once its probe passes"

func (w *homeWrapper) passive(rec omev1beta1.TrafficMapPassiveGate) *homeWrapper {
	w.PassiveGate = &rec
	return w
}

func buildExplained(in Input) Result {
	return Explain(Build(in), in.AllFailedPolicy)
}

// A passive gate holds a home out as a probe gate does: weight 0, not healthy, the reason
// PassiveGated with its message; a Shadow one and a capped one leave the weight and say so.
func TestPassiveGateWeights(t *testing.T) {
	r := buildExplained(Input{Candidates: 4, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic, Homes: homes(
		makeHome("a").replicas(2, 2).passing().passive(omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, Gated: true, Message: heldMessage}),
		makeHome("b").replicas(2, 2).passing().passive(omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, WouldGate: true, Message: "passive gate: 30 of 90 requests (33.3%) failed"}),
		makeHome("c").replicas(2, 2).passing().passive(omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, Capped: true,
			Message: "passive gate: 30 of 90 requests (33.3%) failed over 5s (threshold 10%), but passive gates already hold out 25% of the service's capacity and maxEjectionPercent is 25: left in traffic"}),
		makeHome("d").replicas(2, 2).passing().passive(omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalUnknown, Message: "requests: the query gave no sample"}),
	)})
	want := []struct {
		weight  int32
		healthy bool
		reason  omev1beta1.WeightReason
		message string
	}{
		{0, false, omev1beta1.WeightPassiveGated, heldMessage},
		{1, true, omev1beta1.WeightPassiveShadowGated, "takes traffic although a Shadow passive gate would hold it out (passive gate: 30 of 90 requests (33.3%) failed): Shadow mode moves no traffic"},
		{1, true, omev1beta1.WeightPassiveGateCapped, "maxEjectionPercent is 25: left in traffic; takes traffic in proportion to"},
		{1, true, omev1beta1.WeightRouted, "takes traffic in proportion to"},
	}
	for i, w := range want {
		e := r.Entries[i]
		if e.Weight != w.weight || e.Healthy != w.healthy || e.WeightReason != w.reason || !strings.Contains(e.WeightMessage, w.message) {
			t.Errorf("%s: got weight %d healthy %v %s %q; want %d %v %s containing %q", e.Cluster, e.Weight, e.Healthy, e.WeightReason, e.WeightMessage,
				w.weight, w.healthy, w.reason, w.message)
		}
		if e.PassiveGate == nil {
			t.Errorf("%s: the record is not carried into the entry", e.Cluster)
		}
	}
}

// The all-failed policy counts both gates: with one home gated by its probe and the other
// by its passive gate, PreserveTraffic sets both aside and Drain keeps both at 0.
func TestAllFailedCountsPassiveGates(t *testing.T) {
	in := func(policy omev1beta1.AllFailedPolicy) Input {
		return Input{Candidates: 2, AllFailedPolicy: policy, Homes: homes(
			makeHome("a").replicas(2, 2).gated(),
			makeHome("b").replicas(1, 1).passing().passive(omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, Gated: true, Message: heldMessage}),
		)}
	}
	preserved := buildExplained(in(omev1beta1.AllFailedPreserveTraffic))
	if got := weightsOf(preserved.Entries); !slices.Equal(got, []int32{2, 1}) {
		t.Fatalf("PreserveTraffic: weights %v, want [2 1]", got)
	}
	if preserved.Routable.Reason != omev1beta1.TrafficMapReasonAllHomesProbeFailed || preserved.Entries[1].WeightReason != omev1beta1.WeightPreservedTraffic {
		t.Fatalf("PreserveTraffic: %+v, %s", preserved.Routable, preserved.Entries[1].WeightReason)
	}
	drained := buildExplained(in(omev1beta1.AllFailedDrain))
	if got := weightsOf(drained.Entries); !slices.Equal(got, []int32{0, 0}) {
		t.Fatalf("Drain: weights %v, want [0 0]", got)
	}
	if m := drained.Entries[1].WeightMessage; drained.Entries[1].WeightReason != omev1beta1.WeightPassiveGated ||
		!strings.Contains(m, "allFailedPolicy Drain keeps them all at 0") {
		t.Fatalf("Drain: %s %q", drained.Entries[1].WeightReason, m)
	}
	// One probe gate alone is not every home gated.
	one := buildExplained(Input{Candidates: 2, AllFailedPolicy: omev1beta1.AllFailedDrain, Homes: homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(1, 1).passing())})
	if got := weightsOf(one.Entries); !slices.Equal(got, []int32{0, 1}) {
		t.Fatalf("one gate: weights %v", got)
	}
}

// A home ramping back up after its passive gate lifted says so, and names that gate; with
// both ramping, the entry names the one whose share it takes.
func TestPassiveRampExplained(t *testing.T) {
	ramp := func(pct int32) omev1beta1.TrafficMapPassiveGate {
		return omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, RampPercent: pct}
	}
	r := buildExplained(Input{Candidates: 3, Homes: homes(
		makeHome("a").replicas(1, 1).passing().passive(ramp(15)),
		makeHome("b").replicas(1, 1).ramping(40).passive(ramp(70)),
		makeHome("c").replicas(1, 1).ramping(40).passive(ramp(20)),
	)})
	want := []string{
		"ramping back up after its passive gate lifted: 15% of the weight of",
		"ramping back up after its gate lifted: 40% of the weight of",
		"ramping back up after its passive gate lifted: 20% of the weight of",
	}
	for i, w := range want {
		e := r.Entries[i]
		if e.WeightReason != omev1beta1.WeightRampingUp || !strings.HasPrefix(e.WeightMessage, w) {
			t.Errorf("%s: %s %q, want RampingUp starting %q", e.Cluster, e.WeightReason, e.WeightMessage, w)
		}
		if !Ramping(e) {
			t.Errorf("%s: not counted as ramping", e.Cluster)
		}
	}
}
