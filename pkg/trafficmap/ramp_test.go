package trafficmap

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

// ramping records a probe that passes, with the home ramping up at pct percent.
func (w *homeWrapper) ramping(pct int32) *homeWrapper {
	return w.passing().rampPercent(pct)
}

// rampPercent sets the rampPercent of the home's record, whatever else it says.
func (w *homeWrapper) rampPercent(pct int32) *homeWrapper {
	w.Probe.RampPercent = pct
	return w
}

// wouldGate records a Shadow probe that would gate the home.
func (w *homeWrapper) wouldGate() *homeWrapper {
	w.Probe = &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbeFailing,
		Message: "HTTP 503", WouldGate: true, ConsecutiveFailures: 3}
	return w
}

func TestBuildWeightsRamp(t *testing.T) {
	tests := []struct {
		name    string
		homes   []Home
		factors map[string]resource.Quantity
		policy  omev1beta1.AllFailedPolicy
		want    []int32
	}{
		{name: "a ramping home gets its share of its weight, before the reduction",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(15)),
			want:  []int32{20, 3}},
		{name: "the share rises over the rounds",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(58)),
			want:  []int32{50, 29}},
		{name: "the share applies to the servable capacity and its factor",
			homes:   homes(makeHome("a").replicas(2, 2).passing(), makeHome("b").replicas(4, 3).ramping(50)),
			factors: factors("b", "2"),
			want:    []int32{2, 3}},
		{name: "every home ramping at one share: the ratio is as without a ramp",
			homes: homes(makeHome("a").replicas(2, 2).ramping(40), makeHome("b").replicas(1, 1).ramping(40)),
			want:  []int32{2, 1}},
		{name: "the only open home ramping takes all the traffic",
			homes:  homes(makeHome("a").replicas(1, 1).ramping(15), makeHome("b").replicas(1, 1).gated()),
			policy: omev1beta1.AllFailedDrain,
			want:   []int32{1, 0}},
		{name: "a ramping home with no servable replica stays at 0",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(0, 1).ramping(50)),
			want:  []int32{1, 0}},
		{name: "a gated record's ramp is ignored",
			homes:  homes(makeHome("a").replicas(1, 1).gated().rampPercent(10), makeHome("b").replicas(1, 1).gated().rampPercent(20)),
			policy: omev1beta1.AllFailedPreserveTraffic,
			want:   []int32{1, 1}},
		{name: "a passive gate's lift ramps the home as a probe lift does",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).passing().passive(
				omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, RampPercent: 15})),
			want: []int32{20, 3}},
		{name: "with both ramping, the lower share wins",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(58).passive(
				omev1beta1.TrafficMapPassiveGate{Signal: omev1beta1.TrafficSignalKnown, RampPercent: 15})),
			want: []int32{20, 3}},
		{name: "a share out of range counts as the full weight",
			homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(250)),
			want:  []int32{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(Input{Candidates: len(tt.homes), Homes: tt.homes, CapacityFactors: tt.factors, AllFailedPolicy: tt.policy})
			if w := weightsOf(got.Entries); !reflect.DeepEqual(w, tt.want) {
				t.Fatalf("weights %v, want %v", w, tt.want)
			}
			for i, e := range got.Entries {
				if !reflect.DeepEqual(e.Probe, tt.homes[i].Probe) {
					t.Fatalf("entry %s probe %+v, want the home's record %+v", e.Cluster, e.Probe, tt.homes[i].Probe)
				}
			}
		})
	}
}

// A ramp moves weight without moving health or the Routable condition.
func TestBuildRampKeepsHealthAndRoutable(t *testing.T) {
	plain := Build(Input{Candidates: 2, Homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).passing())})
	ramp := Build(Input{Candidates: 2, Homes: homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(15))})
	if !reflect.DeepEqual(healthyOf(plain.Entries), healthyOf(ramp.Entries)) || plain.Routable != ramp.Routable {
		t.Fatalf("health %v / %v, Routable %+v / %+v", healthyOf(plain.Entries), healthyOf(ramp.Entries), plain.Routable, ramp.Routable)
	}
}

func TestBuildShadowRecords(t *testing.T) {
	shadowGated := Build(Input{Candidates: 2, AllFailedPolicy: omev1beta1.AllFailedDrain,
		Homes: homes(makeHome("a").replicas(2, 2).wouldGate(), makeHome("b").replicas(1, 1).wouldGate())})
	if w := weightsOf(shadowGated.Entries); !reflect.DeepEqual(w, []int32{2, 1}) {
		t.Fatalf("weights %v with every home would-gated under Drain, want 2 1 as without a probe", w)
	}
	if h := healthyOf(shadowGated.Entries); !reflect.DeepEqual(h, []bool{true, true}) {
		t.Fatalf("healthy %v, want true true", h)
	}
	if r := shadowGated.Routable; r.Reason != omev1beta1.TrafficMapReasonRoutable {
		t.Fatalf("Routable %+v, want Routable", r)
	}
	if !shadowGated.Entries[0].Probe.WouldGate {
		t.Fatal("the entry lost its wouldGate")
	}
}

// TestShadowNeverChangesAWeight drives random homes through random probe results and checks
// after every round that the table built from their Shadow records is the one Build gives
// without any probe: the same weights, health and Routable condition. Half the trials count
// under the Enforce twin of the policy (same digest), as after a switch to Shadow, so that
// the states carry real gates and ramps too. It fails if a Shadow record ever carries a
// gate or a ramp that Build would act on.
func TestShadowNeverChangesAWeight(t *testing.T) {
	shadow := probe.Policy{
		Path: "/v1/models", Method: "GET", AcceptStatuses: []int32{200}, GateStatuses: []int32{503},
		Period: 10 * time.Second, Timeout: 3 * time.Second, FailureThreshold: 2, SuccessThreshold: 1,
		AllFailedPolicy: omev1beta1.AllFailedDrain, Mode: omev1beta1.ProbeModeShadow,
		FlapDamping: &probe.FlapDamping{Window: 10 * time.Minute, MaxFactor: 8}, RampUp: time.Minute,
	}
	enforce := shadow
	enforce.Mode = omev1beta1.ProbeModeEnforce
	digest := probe.Digest(shadow)
	// Failing twice as often as the others, so that gates and ramps happen.
	results := []omev1beta1.ProbeResult{omev1beta1.ProbePassing, omev1beta1.ProbeFailing, omev1beta1.ProbeFailing, omev1beta1.ProbeUnknown}
	rng := rand.New(rand.NewPCG(26, 1))
	gatedRounds, rampRounds := 0, 0
	for trial := range 60 {
		counting := shadow
		if trial%2 == 1 {
			counting = enforce
		}
		n := 1 + rng.IntN(4)
		states := make([]probe.State, n)
		base := make([]Home, n)
		for i := range base {
			base[i] = makeHome(string(rune('a'+i))).replicas(int32(rng.IntN(4)), int32(rng.IntN(4))).obj()
			states[i] = probe.State{PolicyDigest: digest}
		}
		at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
		for round := range 40 {
			at = at.Add(shadow.Period)
			withRecords := make([]Home, n)
			for i := range states {
				states[i].Observe(results[rng.IntN(len(results))], "HTTP", at, counting, digest)
				withRecords[i] = base[i]
				withRecords[i].Probe = states[i].RecordFor(shadow)
				if states[i].Gated {
					gatedRounds++
				}
				if states[i].RampPercent > 0 {
					rampRounds++
				}
			}
			got := Build(Input{Candidates: n, Homes: withRecords, AllFailedPolicy: shadow.AllFailedPolicy})
			want := Build(Input{Candidates: n, Homes: base})
			if !reflect.DeepEqual(weightsOf(got.Entries), weightsOf(want.Entries)) ||
				!reflect.DeepEqual(healthyOf(got.Entries), healthyOf(want.Entries)) || got.Routable != want.Routable {
				t.Fatalf("trial %d round %d: Shadow table %v %v %+v, without a probe %v %v %+v", trial, round,
					weightsOf(got.Entries), healthyOf(got.Entries), got.Routable,
					weightsOf(want.Entries), healthyOf(want.Entries), want.Routable)
			}
		}
	}
	// The check means something only if the states did gate and ramp.
	if gatedRounds == 0 || rampRounds == 0 {
		t.Fatalf("%d gated and %d ramping home-rounds: the test checks nothing", gatedRounds, rampRounds)
	}
}
