package verdict

import (
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func TestJudge(t *testing.T) {
	refused := &omev1beta1.LeftOutCluster{Cluster: "b", Reason: omev1beta1.LeftOutHostRefused}
	cases := []struct {
		name   string
		home   Home
		state  omev1beta1.ServingState
		reason string
		says   string
	}{
		{"routed", Home{Weight: 3, WeightReason: omev1beta1.WeightRouted, Published: true},
			omev1beta1.ServingStateServing, "Routed", "takes traffic"},
		{"spilled into a later tier", Home{Weight: 1, WeightReason: omev1beta1.WeightSpilled, Published: true},
			omev1beta1.ServingStateServing, "Spilled", "takes traffic"},
		{"gated, no signal", Home{WeightReason: omev1beta1.WeightGated, Published: true},
			omev1beta1.ServingStateHeldOutUnconfirmed, "Gated", "have not confirmed it yet"},
		{"gated, counters confirm", Home{WeightReason: omev1beta1.WeightGated, Published: true, Counters: CountersMoved},
			omev1beta1.ServingStateHeldOut, "Gated", "confirm it gets no request"},
		{"gated, still served: a lost update", Home{WeightReason: omev1beta1.WeightGated, Published: true, Counters: CountersStillServed},
			omev1beta1.ServingStateStillServedAtZero, "Gated", "a lost update"},
		{"passive gate", Home{WeightReason: omev1beta1.WeightPassiveGated, Published: true, Counters: CountersMoved},
			omev1beta1.ServingStateHeldOut, "PassiveGated", "held out (PassiveGated)"},
		{"capped to 0", Home{WeightReason: omev1beta1.WeightCapacityCapped, Published: true},
			omev1beta1.ServingStateHeldOutUnconfirmed, "CapacityCapped", "held out"},
		{"drained", Home{WeightReason: omev1beta1.WeightDrained, Published: true},
			omev1beta1.ServingStateHeldOutUnconfirmed, "Drained", "held out"},
		{"standby tier", Home{WeightReason: omev1beta1.WeightStandby, Published: true},
			omev1beta1.ServingStateHeldOutUnconfirmed, "Standby", "held out"},
		{"left out of the route", Home{Weight: 1, WeightReason: omev1beta1.WeightRouted, Published: true, LeftOut: refused},
			omev1beta1.ServingStateLeftOutOfRoute, "HostRefused", "leaves it out"},
		{"left out and at 0: the 0 holds it", Home{WeightReason: omev1beta1.WeightGated, Published: true, LeftOut: refused},
			omev1beta1.ServingStateHeldOutUnconfirmed, "Gated", "held out"},
		{"still served beats left out", Home{WeightReason: omev1beta1.WeightGated, Published: true, LeftOut: refused, Counters: CountersStillServed},
			omev1beta1.ServingStateStillServedAtZero, "Gated", "lost update"},
		{"member unobserved", Home{Weight: 2, WeightReason: omev1beta1.WeightUnobserved, Published: true, Unobserved: true},
			omev1beta1.ServingStateUnobserved, "Unobserved", "cannot read its member"},
		{"member unobserved and gated", Home{WeightReason: omev1beta1.WeightGated, Published: true, Unobserved: true},
			omev1beta1.ServingStateHeldOutUnconfirmed, "Gated", "held out"},
		{"not published", Home{Weight: 2, WeightReason: omev1beta1.WeightRouted},
			omev1beta1.ServingStateUnknown, "Routed", "publisher has not said"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.home)
			if v.State != c.state || v.Reason != c.reason || !strings.Contains(v.Message, c.says) {
				t.Errorf("Judge = %+v, want %s %s saying %q", v, c.state, c.reason, c.says)
			}
			if v.Message != Message(v.State, v.Reason) {
				t.Errorf("the verdict's message %q is not the one every view prints %q", v.Message, Message(v.State, v.Reason))
			}
		})
	}
}

func TestEveryStateHasItsOwnMessage(t *testing.T) {
	seen := map[string]omev1beta1.ServingState{}
	for _, s := range States {
		m := Message(s, "")
		if strings.HasPrefix(m, "no serving state") {
			t.Errorf("%s has no message", s)
		}
		if other, ok := seen[m]; ok {
			t.Errorf("%s and %s say the same: %q", s, other, m)
		}
		seen[m] = s
	}
}

func TestTakesTraffic(t *testing.T) {
	takes := map[omev1beta1.ServingState]bool{omev1beta1.ServingStateServing: true, omev1beta1.ServingStateUnobserved: true,
		omev1beta1.ServingStateStillServedAtZero: true}
	for _, s := range States {
		if TakesTraffic(s) != takes[s] {
			t.Errorf("TakesTraffic(%s) = %t", s, !takes[s])
		}
	}
}

func TestSeen(t *testing.T) {
	if got := Seen(omev1beta1.ServingStateServing, "last probe recorded 2m ago"); got != Stale {
		t.Errorf("a stale map's home reads %s, want Stale", got)
	}
	if got := Seen(omev1beta1.ServingStateHeldOut, ""); got != "HeldOut" {
		t.Errorf("a current map's home reads %s", got)
	}
	if got := Seen("", ""); got != "Unknown" {
		t.Errorf("an entry without a state reads %s", got)
	}
}

func TestSummarize(t *testing.T) {
	entries := []omev1beta1.TrafficMapEntry{
		{Cluster: "a", Serving: omev1beta1.ServingStateServing, WeightReason: omev1beta1.WeightRouted},
		{Cluster: "b", Serving: omev1beta1.ServingStateStillServedAtZero, WeightReason: omev1beta1.WeightGated},
		{Cluster: "c", Serving: omev1beta1.ServingStateLeftOutOfRoute, WeightReason: omev1beta1.WeightRouted},
		{Cluster: "d", Serving: omev1beta1.ServingStateUnobserved, WeightReason: omev1beta1.WeightUnobserved},
	}
	s := Summarize(entries, map[string]omev1beta1.LeftOutReason{"c": omev1beta1.LeftOutHostRefused})
	if s.Serving != 3 {
		t.Errorf("Serving = %d, want 3 (a, b still served, d unobserved)", s.Serving)
	}
	if want := "b StillServedAtZero Gated | c LeftOutOfRoute HostRefused | d Unobserved Unobserved"; s.HomeStates != want {
		t.Errorf("HomeStates = %q, want %q", s.HomeStates, want)
	}
	var many []omev1beta1.TrafficMapEntry
	for i := range 64 {
		many = append(many, omev1beta1.TrafficMapEntry{Cluster: strings.Repeat("x", 200) + string(rune('A'+i%26)) + string(rune('a'+i/26)),
			Serving: omev1beta1.ServingStateHeldOutUnconfirmed, WeightReason: omev1beta1.WeightGated})
	}
	s = Summarize(many, nil)
	if len(s.HomeStates) > MaxHomeStatesBytes || s.Serving != 0 {
		t.Errorf("64 held-out homes: %d bytes, %d serving", len(s.HomeStates), s.Serving)
	}
	if !strings.HasSuffix(s.HomeStates, "more: see spec.entries[].serving") {
		t.Errorf("64 long names: the count of the rest is cut: %q", s.HomeStates)
	}
	short := make([]omev1beta1.TrafficMapEntry, 9)
	for i := range short {
		short[i] = omev1beta1.TrafficMapEntry{Cluster: string(rune('a' + i)), Serving: omev1beta1.ServingStateHeldOut}
	}
	if s = Summarize(short, nil); !strings.HasSuffix(s.HomeStates, "h HeldOut | and 1 more: see spec.entries[].serving") {
		t.Errorf("nine held-out homes: %q", s.HomeStates)
	}
}
