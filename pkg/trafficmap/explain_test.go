package trafficmap

import (
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
)

// notSent records a probe the operator would not send, as attachProbes leaves it: the
// record's message is also the home's refusal.
func (w *homeWrapper) notSent(message string) *homeWrapper {
	w.Probe = &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbeUnknown, Message: message}
	w.Refused = message
	return w
}

// gatedPassing records a gated home whose probe passes again.
func (w *homeWrapper) gatedPassing() *homeWrapper {
	w.Probe = &omev1beta1.TrafficMapProbe{PolicyDigest: testDigest, Result: omev1beta1.ProbePassing, Message: "HTTP 200", Gated: true}
	return w
}

// drainTable holds the named clusters at 0 as drain.Apply does (pkg/drain imports this
// package, so its tests cannot call it).
func drainTable(r Result, drains map[string][]string) Result {
	for i := range r.Entries {
		if ids, ok := drains[r.Entries[i].Cluster]; ok {
			r.Entries[i].DrainRefs, r.Entries[i].Weight = ids, 0
		}
	}
	return r
}

func explained(entries []omev1beta1.TrafficMapEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Cluster + " " + string(e.WeightReason) + ": " + e.WeightMessage
	}
	return out
}

// Every entry says why its weight is what it is: the first cause that holds, then every
// other cause that would hold it at 0 too.
func TestExplain(t *testing.T) {
	const (
		preserve = omev1beta1.AllFailedPreserveTraffic
		drain    = omev1beta1.AllFailedDrain
		private  = "probe not sent: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)"
		outside  = `host "llm.evil.test" is outside the WorkloadCluster's spec.allowedEndpointDomains [worker-b.example.com]`
		gated3   = "gated by the routing probe after 3 failure(s) in a row; last probe Failing: HTTP 503"
		// unobservedText is what every entry of a home unobserved since unobservedAt says.
		unobservedText = "not observed since 2026-03-01T10:00:00Z: the manager cannot read its cluster, " +
			"so the entry keeps its last known endpoint and capacity and the probe alone decides its traffic"
	)
	cases := []struct {
		name   string
		homes  []Home
		policy omev1beta1.AllFailedPolicy
		drains map[string][]string
		want   []string
	}{
		{
			name:   "both take traffic",
			homes:  homes(makeHome("a").replicas(2, 2).passing(), makeHome("b").replicas(1, 3)),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 2, ready 2)",
				"b Routed: takes traffic in proportion to min(allocated 1, ready 3)",
			},
		},
		{
			name:   "a factor is named",
			homes:  homes(makeHome("a").replicas(2, 2)),
			policy: "",
			want:   []string{"a Routed: takes traffic in proportion to min(allocated 2, ready 2) x capacity factor 1500m"},
		},
		{
			name:   "gated beside a healthy home",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).gated()),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Gated: " + gated3,
			},
		},
		{
			name:   "gated, passing again",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).gatedPassing()),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Gated: gated by the routing probe; it passes again, and the gate lifts after successThreshold passes in a row; last probe Passing: HTTP 200",
			},
		},
		{
			name:   "every home gated under PreserveTraffic",
			homes:  homes(makeHome("a").replicas(1, 1).gated(), makeHome("b").replicas(1, 1).gated()),
			policy: preserve,
			want: []string{
				"a PreservedTraffic: takes traffic although " + gated3 + ": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; takes traffic in proportion to min(allocated 1, ready 1)",
				"b PreservedTraffic: takes traffic although " + gated3 + ": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; takes traffic in proportion to min(allocated 1, ready 1)",
			},
		},
		{
			name:   "every home gated under Drain",
			homes:  homes(makeHome("a").replicas(1, 1).gated(), makeHome("b").replicas(1, 1).gated()),
			policy: drain,
			want: []string{
				"a Gated: " + gated3 + "; every home is gated, and allFailedPolicy Drain keeps them all at 0",
				"b Gated: " + gated3 + "; every home is gated, and allFailedPolicy Drain keeps them all at 0",
			},
		},
		{
			name:   "drained",
			homes:  homes(makeHome("a").replicas(2, 2).passing(), makeHome("b").replicas(1, 1).passing()),
			policy: preserve,
			drains: map[string][]string{"a": {"maintenance-a", "zz-other"}},
			want: []string{
				"a Drained: held at weight 0 by traffic-drain override(s) maintenance-a, zz-other",
				"b Routed: takes traffic in proportion to min(allocated 1, ready 1)",
			},
		},
		{
			name:   "drained and gated: the drain first, the gate after",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).gated()),
			policy: preserve,
			drains: map[string][]string{"b": {"maintenance-b"}},
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Drained: held at weight 0 by traffic-drain override(s) maintenance-b; also " + gated3,
			},
		},
		{
			name:   "no ready replica",
			homes:  homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(2, 0)),
			policy: "",
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b NoReadyReplicas: no ready replica: its copy reports 0 ready of 2 allocated (a copy that is not IngressReady counts none)",
			},
		},
		{
			name:   "no ready replica and gated: readiness first, as in OME",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 0).gated()),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b NoReadyReplicas: no ready replica: its copy reports 0 ready of 1 allocated (a copy that is not IngressReady counts none); also " + gated3,
			},
		},
		{
			name:   "no allocated replica",
			homes:  homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(0, 2)),
			policy: "",
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b NoCapacity: no allocated replica: its copy admits 0 (2 ready)",
			},
		},
		{
			name: "capped at 0 by a capacity report, and capped above 0",
			homes: homes(
				makeHome("a").replicas(3, 3).ceiling(capacity.Ceiling{OK: true, Value: 2}),
				makeHome("b").replicas(1, 1).ceiling(capacity.Ceiling{OK: true, Value: 0}),
			),
			policy: "",
			want: []string{
				"a CapacityCapped: capped at 2 replica(s) by its capacity report; takes traffic in proportion to min(allocated 2, ready 3)",
				"b CapacityCapped: capped at 0 replicas by its capacity report",
			},
		},
		{
			name: "capped at 0 even under PreserveTraffic, which sets only the gates aside",
			homes: homes(
				makeHome("a").replicas(1, 1).gated(),
				makeHome("b").replicas(1, 1).gated().ceiling(capacity.Ceiling{OK: true, Value: 0}),
			),
			policy: preserve,
			want: []string{
				"a PreservedTraffic: takes traffic although " + gated3 + ": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; takes traffic in proportion to min(allocated 1, ready 1)",
				"b CapacityCapped: capped at 0 replicas by its capacity report; also " + gated3,
			},
		},
		{
			name: "a poll without a ceiling is named on a routed home",
			homes: homes(
				makeHome("a").replicas(1, 1).ceiling(capacity.Ceiling{Reason: "no capacity report yet"}),
			),
			policy: "",
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1); its capacity poll gives no ceiling (no capacity report yet), so the admitted replicas count",
			},
		},
		{
			name:   "probe not sent",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).notSent(private)),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b ProbeNotSent: " + private,
			},
		},
		{
			name:   "refused by its cluster's domains, with no ready replica either",
			homes:  homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 0).refused(outside)),
			policy: "",
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Refused: refused by the operator: " + outside + "; also no ready replica: its copy reports 0 ready of 1 allocated (a copy that is not IngressReady counts none)",
			},
		},
		{
			name:   "ramping back up after a lift",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).ramping(43)),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b RampingUp: ramping back up after its gate lifted: 43% of the weight of min(allocated 1, ready 1)",
			},
		},
		{
			name: "ramping and capped",
			homes: homes(makeHome("a").replicas(1, 1).passing(),
				makeHome("b").replicas(3, 3).ramping(50).ceiling(capacity.Ceiling{OK: true, Value: 2})),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b RampingUp: ramping back up after its gate lifted: 50% of the weight of min(allocated 2, ready 3); capped at 2 replica(s) by its capacity report",
			},
		},
		{
			name:   "a Shadow probe would gate it: the weight is unchanged",
			homes:  homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).wouldGate()),
			policy: drain,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b ShadowGated: takes traffic although a Shadow probe would gate it after 3 failure(s) in a row; last probe Failing: HTTP 503: " +
					"Shadow mode moves no traffic; takes traffic in proportion to min(allocated 1, ready 1)",
			},
		},
		{
			name: "a Shadow probe that is not sent moves nothing either",
			homes: homes(makeHome("a").replicas(1, 1).passing(),
				makeHome("b").replicas(1, 1).notSent(private).refused("")),
			policy: preserve,
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Routed: takes traffic in proportion to min(allocated 1, ready 1); its last probe was not sent (destination 10.0.0.7 is in a " +
					"private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)), which a Shadow probe records without moving traffic",
			},
		},
		{
			name:   "unobserved, passing: its probe decides, and the entry says since when",
			homes:  homes(makeHome("a").replicas(1, 1).passing().unobserved(), makeHome("b").replicas(2, 2).passing()),
			policy: preserve,
			want: []string{
				"a Unobserved: " + unobservedText + "; takes traffic in proportion to min(allocated 1, ready 1)",
				"b Routed: takes traffic in proportion to min(allocated 2, ready 2)",
			},
		},
		{
			name:   "unobserved and gated: the gate holds it at 0, and the note follows",
			homes:  homes(makeHome("a").replicas(1, 1).gated().unobserved(), makeHome("b").replicas(1, 1).passing()),
			policy: preserve,
			want: []string{
				"a Gated: " + gated3 + "; " + unobservedText,
				"b Routed: takes traffic in proportion to min(allocated 1, ready 1)",
			},
		},
		{
			name:   "unobserved and drained",
			homes:  homes(makeHome("a").replicas(1, 1).passing().unobserved(), makeHome("b").replicas(1, 1).passing()),
			policy: preserve,
			drains: map[string][]string{"a": {"m"}},
			want: []string{
				"a Drained: held at weight 0 by traffic-drain override(s) m; " + unobservedText,
				"b Routed: takes traffic in proportion to min(allocated 1, ready 1)",
			},
		},
		{
			name:   "every home unobserved and gated under PreserveTraffic",
			homes:  homes(makeHome("a").replicas(1, 1).gated().unobserved(), makeHome("b").replicas(1, 1).gated().unobserved()),
			policy: preserve,
			want: []string{
				"a PreservedTraffic: takes traffic although " + gated3 + ": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; takes traffic in proportion to min(allocated 1, ready 1); " + unobservedText,
				"b PreservedTraffic: takes traffic although " + gated3 + ": every home is gated and allFailedPolicy PreserveTraffic sets the gates aside; takes traffic in proportion to min(allocated 1, ready 1); " + unobservedText,
			},
		},
		{
			name:   "drained beats refused",
			homes:  homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1).refused(outside)),
			policy: "",
			drains: map[string][]string{"b": {"m"}},
			want: []string{
				"a Routed: takes traffic in proportion to min(allocated 1, ready 1)",
				"b Drained: held at weight 0 by traffic-drain override(s) m; also refused by the operator: " + outside,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Candidates: len(tc.homes), Homes: tc.homes, AllFailedPolicy: tc.policy}
			if tc.name == "a factor is named" {
				in.CapacityFactors = factors("a", "1.5")
			}
			built := drainTable(Build(in), tc.drains)
			before := explained(built.Entries)
			got := Explain(built, tc.policy)
			if g := explained(got.Entries); strings.Join(g, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Explain() =\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(tc.want, "\n"))
			}
			if g := explained(built.Entries); strings.Join(g, "\n") != strings.Join(before, "\n") {
				t.Errorf("Explain() modified its input")
			}
			if got.Routable != built.Routable {
				t.Errorf("Explain() changed Routable: %+v, want %+v", got.Routable, built.Routable)
			}
			for _, e := range got.Entries {
				positive := e.WeightReason == omev1beta1.WeightRouted || e.WeightReason == omev1beta1.WeightPreservedTraffic ||
					e.WeightReason == omev1beta1.WeightRampingUp || e.WeightReason == omev1beta1.WeightShadowGated ||
					e.WeightReason == omev1beta1.WeightUnobserved
				if (e.Weight > 0 && !positive && e.WeightReason != omev1beta1.WeightCapacityCapped) || (e.Weight == 0 && positive) {
					t.Errorf("%s: weight %d with reason %s", e.Cluster, e.Weight, e.WeightReason)
				}
			}
		})
	}
}

// The same table always gives the same words, and a quiet round (only lastProbeTime moved)
// gives the same words too: the message never costs a write of its own.
func TestExplainIsStable(t *testing.T) {
	h := homes(makeHome("a").replicas(1, 1).passing(), makeHome("b").replicas(1, 1).gated())
	first := Explain(Build(Input{Candidates: 2, Homes: h, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic}), omev1beta1.AllFailedPreserveTraffic)
	for i := range h {
		p := *h[i].Probe
		p.LastProbeTime = nil
		h[i].Probe = &p
	}
	second := Explain(Build(Input{Candidates: 2, Homes: h, AllFailedPolicy: omev1beta1.AllFailedPreserveTraffic}), omev1beta1.AllFailedPreserveTraffic)
	if strings.Join(explained(first.Entries), "\n") != strings.Join(explained(second.Entries), "\n") {
		t.Fatalf("the words moved:\n%v\n%v", explained(first.Entries), explained(second.Entries))
	}
}

// A long probe message still fits the CRD's limit, cut on a character boundary.
func TestExplainCapsTheMessage(t *testing.T) {
	long := makeHome("b").replicas(1, 1).gated()
	long.Probe.Message = "transport error: " + strings.Repeat("é", 1100)
	got := Explain(Build(Input{Candidates: 2, Homes: homes(makeHome("a").replicas(1, 1).passing(), long),
		AllFailedPolicy: omev1beta1.AllFailedDrain}), omev1beta1.AllFailedDrain)
	m := got.Entries[1].WeightMessage
	if len(m) > MaxWeightMessageBytes || !strings.HasPrefix(m, "gated by the routing probe after 3 failure(s) in a row; last probe Failing: transport error: é") {
		t.Fatalf("message of %d bytes: %.80q", len(m), m)
	}
	if strings.ContainsRune(m, '\uFFFD') {
		t.Fatalf("a character was split")
	}
}

func TestExplainZeroValue(t *testing.T) {
	if got := Explain(Result{}, ""); len(got.Entries) != 0 {
		t.Fatalf("Explain(Result{}) = %+v", got)
	}
	got := Explain(Result{Entries: []omev1beta1.TrafficMapEntry{{Cluster: "a"}}}, "")
	if e := got.Entries[0]; e.WeightReason != omev1beta1.WeightNoReadyReplicas {
		t.Fatalf("an empty entry: %s %s", e.WeightReason, e.WeightMessage)
	}
}
