package trafficmap

import (
	"slices"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func withLoad(w *homeWrapper, mode omev1beta1.LoadBalancingMode, share int32) Home {
	h := w.obj()
	h.Load = &omev1beta1.TrafficMapLoad{Mode: mode, Signal: omev1beta1.TrafficSignalKnown, SharePercent: share}
	return h
}

// TestBuildAppliesAnEnforcingLoadShare: a share scales the home's weight as a ramp does,
// and the entry says so.
func TestBuildAppliesAnEnforcingLoadShare(t *testing.T) {
	in := Input{Candidates: 2, Homes: []Home{
		withLoad(makeHome("a").replicas(1, 1).passing(), omev1beta1.LoadBalancingEnforce, 100),
		withLoad(makeHome("b").replicas(1, 1).passing(), omev1beta1.LoadBalancingEnforce, 50),
	}}
	got := Explain(Build(in), "")
	if w := weightsOf(got.Entries); !slices.Equal(w, []int32{2, 1}) {
		t.Fatalf("weights %v, want [2 1]", w)
	}
	b := got.Entries[1]
	if b.WeightReason != omev1beta1.WeightLoadShifted ||
		b.WeightMessage != "takes traffic in proportion to min(allocated 1, ready 1), at 50% of it by its model servers' load (see load.message)" {
		t.Fatalf("b: %s %q", b.WeightReason, b.WeightMessage)
	}
	if got.Entries[0].WeightReason != omev1beta1.WeightRouted {
		t.Fatalf("a at a full share is Routed, got %s", got.Entries[0].WeightReason)
	}
}

// TestBuildRecordsAShadowLoadShareWithoutMovingTraffic: under Shadow the weights are as
// capacity sets them, and each entry records the weight its share would set.
func TestBuildRecordsAShadowLoadShareWithoutMovingTraffic(t *testing.T) {
	in := Input{Candidates: 2, Homes: []Home{
		withLoad(makeHome("a").replicas(1, 1).passing(), omev1beta1.LoadBalancingShadow, 100),
		withLoad(makeHome("b").replicas(1, 1).passing(), omev1beta1.LoadBalancingShadow, 50),
	}}
	got := Explain(Build(in), "")
	if w := weightsOf(got.Entries); !slices.Equal(w, []int32{1, 1}) {
		t.Fatalf("weights %v, want [1 1]: Shadow moves nothing", w)
	}
	if a, b := got.Entries[0].Load.ShadowWeight, got.Entries[1].Load.ShadowWeight; a == nil || b == nil || *a != 2 || *b != 1 {
		t.Fatalf("shadow weights %v %v, want 2 and 1", a, b)
	}
	b := got.Entries[1]
	if b.WeightReason != omev1beta1.WeightRouted || !strings.HasSuffix(b.WeightMessage, "; Shadow load balancing would give it 50% of that, weight 1, and moves nothing") {
		t.Fatalf("b: %s %q", b.WeightReason, b.WeightMessage)
	}
	if in.Homes[1].Load.ShadowWeight != nil {
		t.Fatal("Build wrote into its input's load record")
	}
}

// TestLoadShareOfASaturatedTierSpillsToTheNext: a share takes capacity out of its tier as
// a ramp does, so a saturated first tier spills part of its traffic, and a full share
// takes it back.
func TestLoadShareOfASaturatedTierSpillsToTheNext(t *testing.T) {
	build := func(share int32) []float64 {
		in := Input{Candidates: 2, Failover: twoRegions(), Homes: []Home{
			withLoad(makeHome("a1").replicas(1, 1).passing(), omev1beta1.LoadBalancingEnforce, share),
			withLoad(makeHome("b1").replicas(1, 1).passing(), omev1beta1.LoadBalancingEnforce, 100),
		}}
		return sharesOf(Build(in).Entries)
	}
	if got := build(100); got[1] != 0 {
		t.Fatalf("a full share keeps the first tier's traffic, got %v", got)
	}
	if got := build(75); got[1] != 0 {
		t.Fatalf("75%% of the tier is healthy under overprovisioning 140%%, got %v", got)
	}
	// 50% x 140% = 70: the first tier takes 70% of the traffic, the next the rest.
	if got := build(50); got[0] < 69.5 || got[0] > 70.5 {
		t.Fatalf("at a share of 50%% the first tier takes about 70%%, got %v", got)
	}
}
