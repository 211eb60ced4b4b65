package passivegate

import (
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
)

var t0 = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

func policy() Policy {
	return Policy{
		Mode: v1beta1.ProbeModeEnforce, FailurePercent: 10, MinRequests: 20, MaxEjectionPercent: 50,
		BaseEjectionTime: 30 * time.Second, MaxEjectionTime: 100 * time.Second, ResetAfter: 10 * time.Minute,
	}
}

func reading(requests, failures float64) Reading {
	return Reading{Known: true, Requests: requests, Failures: failures, Window: 30 * time.Second}
}

func home(name string, r Reading) Home {
	return Home{Cluster: name, Capacity: 4, Reading: r, ProbePassing: true}
}

func TestDecideGatesOnTheFailedShare(t *testing.T) {
	cases := []struct {
		name    string
		reading Reading
		gated   bool
	}{
		{"30% of 200 failed", reading(200, 60), true},
		{"exactly the threshold", reading(200, 20), true},
		{"0.5% background", reading(2000, 10), false},
		{"just under the threshold", reading(200, 19), false},
		{"too few requests to trust", reading(19, 19), false},
		{"no requests at all", reading(0, 0), false},
		{"unknown reading", Reading{Reason: "the answer was empty"}, false},
		{"failures over requests count as all", reading(30, 45), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			homes := []Home{home("a", tc.reading), home("b", reading(200, 0)), home("c", reading(200, 0))}
			got := Decide(policy(), homes, t0)
			if got[0].State.Gated != tc.gated {
				t.Fatalf("gated = %v, want %v (%+v)", got[0].State.Gated, tc.gated, got[0])
			}
			if tc.gated {
				if got[0].Transition != Gated || got[0].State.Count != 1 || !got[0].State.Until.Equal(t0.Add(30*time.Second)) {
					t.Fatalf("first gate: %+v", got[0])
				}
				if !strings.Contains(got[0].Message, "threshold 10% of at least 20 requests") {
					t.Fatalf("message %q", got[0].Message)
				}
			}
			for _, d := range got[1:] {
				if d.State.Gated || d.Transition != NoChange || d.Message != "" {
					t.Fatalf("a healthy cluster moved: %+v", d)
				}
			}
		})
	}
}

func TestDecideKeepsWithinTheCap(t *testing.T) {
	// Four clusters of equal capacity, three failing: a 50% cap gates the two failing the
	// most and leaves the third in traffic, saying so.
	homes := []Home{
		home("a", reading(100, 20)), home("b", reading(100, 90)),
		home("c", reading(100, 0)), home("d", reading(100, 50)),
	}
	got := Decide(policy(), homes, t0)
	want := map[string]bool{"a": false, "b": true, "c": false, "d": true}
	for _, d := range got {
		if d.State.Gated != want[d.Cluster] {
			t.Fatalf("%s gated = %v, want %v", d.Cluster, d.State.Gated, want[d.Cluster])
		}
	}
	if !got[0].Capped || !strings.Contains(got[0].Message, "hold out 50% of the service's capacity and maxEjectionPercent is 50: left in traffic") {
		t.Fatalf("a is not capped as it should be: %+v", got[0])
	}

	// A gate already held counts first: next round, only one more would fit, and none does.
	next := []Home{
		{Cluster: "a", Capacity: 4, Reading: reading(100, 20), ProbePassing: true},
		{Cluster: "b", Capacity: 4, State: got[1].State},
		{Cluster: "c", Capacity: 4, Reading: reading(100, 40), ProbePassing: true},
		{Cluster: "d", Capacity: 4, State: got[3].State},
	}
	again := Decide(policy(), next, t0.Add(5*time.Second))
	if again[0].State.Gated || again[2].State.Gated || !again[0].Capped || !again[2].Capped {
		t.Fatalf("the cap let a third gate in: %+v", again)
	}
}

func TestDecideCapWeighsCapacity(t *testing.T) {
	// A big cluster failing is more than half the service: the cap keeps it in traffic,
	// while a small one failing fits.
	homes := []Home{
		{Cluster: "big", Capacity: 12, Reading: reading(100, 50), ProbePassing: true},
		{Cluster: "small", Capacity: 2, Reading: reading(100, 30), ProbePassing: true},
		{Cluster: "mid", Capacity: 6, Reading: reading(100, 0), ProbePassing: true},
	}
	got := Decide(policy(), homes, t0)
	if got[0].State.Gated || !got[0].Capped || !got[1].State.Gated {
		t.Fatalf("got %+v", got)
	}

	// Without any capacity known, each cluster counts as one.
	for i := range homes {
		homes[i].Capacity = 0
	}
	got = Decide(policy(), homes, t0)
	if !got[0].State.Gated || !got[1].Capped {
		t.Fatalf("capacity-less cap: %+v", got)
	}
}

func TestDecideLiftsAfterTheEjectionTimeWhileTheProbePasses(t *testing.T) {
	p := policy()
	first := Decide(p, []Home{home("a", reading(100, 50)), home("b", reading(100, 0))}, t0)[0].State

	held := Home{Cluster: "a", Capacity: 4, State: first, ProbePassing: true}
	if d := decideOne(p, held, t0.Add(29*time.Second)); !d.State.Gated || !strings.Contains(d.Message, "lifts at 2026-12-03T10:00:30Z at the earliest") {
		t.Fatalf("lifted before its ejection time: %+v", d)
	}
	held.ProbePassing = false
	if d := decideOne(p, held, t0.Add(31*time.Second)); !d.State.Gated || !strings.Contains(d.Message, "its ejection time is over, and it lifts once its probe passes") {
		t.Fatalf("lifted while its probe fails: %+v", d)
	}
	held.ProbePassing = true
	held.Reading = Reading{Reason: "unknown"}
	d := decideOne(p, held, t0.Add(31*time.Second))
	if d.State.Gated || d.Transition != Lifted || !d.State.LastLift.Equal(t0.Add(31*time.Second)) {
		t.Fatalf("did not lift: %+v", d)
	}
	if d.Message != "passive gate lifted after 31s: its ejection time is over and its probe passes" {
		t.Fatalf("lift message %q", d.Message)
	}
}

func TestDecideEjectionTimeGrowsWithGatesInARow(t *testing.T) {
	p := policy()
	s := State{}
	at := t0
	var times []time.Duration
	for range 5 {
		d := decideOne(p, Home{Cluster: "a", Capacity: 4, Reading: reading(100, 50), State: s}, at)
		if d.Transition != Gated {
			t.Fatalf("no gate at %s: %+v", at, d)
		}
		times = append(times, d.State.Until.Sub(d.State.Since))
		at = d.State.Until
		lifted := decideOne(p, Home{Cluster: "a", Capacity: 4, State: d.State, ProbePassing: true}, at)
		s = lifted.State
		at = at.Add(time.Second)
	}
	want := []time.Duration{30 * time.Second, 60 * time.Second, 90 * time.Second, 100 * time.Second, 100 * time.Second}
	for i := range want {
		if times[i] != want[i] {
			t.Fatalf("ejection times %v, want %v", times, want)
		}
	}

	// A full ResetAfter ungated brings the count back to 0: the next gate is a first one.
	d := decideOne(p, Home{Cluster: "a", Capacity: 4, Reading: reading(100, 50), State: s}, s.LastLift.Add(p.ResetAfter))
	if d.State.Count != 1 || d.State.Until.Sub(d.State.Since) != 30*time.Second {
		t.Fatalf("count not reset: %+v", d.State)
	}
}

func TestDecideShadowDecidesTheSame(t *testing.T) {
	p := policy()
	p.Mode = v1beta1.ProbeModeShadow
	if p.Enforced() {
		t.Fatal("Shadow enforces")
	}
	got := Decide(p, []Home{home("a", reading(100, 50)), home("b", reading(100, 0))}, t0)
	if !got[0].State.Gated || got[0].Transition != Gated {
		t.Fatalf("Shadow must decide the gate it would set: %+v", got[0])
	}
	p.Mode = ""
	if p.Enforced() {
		t.Fatal("a passive gate without a mode must be Shadow")
	}
}

func decideOne(p Policy, h Home, at time.Time) Decision {
	// A second, idle cluster of the same size keeps one gate within a 50% cap.
	return Decide(p, []Home{h, {Cluster: "idle", Capacity: h.Capacity, Reading: reading(100, 0), ProbePassing: true}}, at)[0]
}

// A lift of an enforcing passive gate ramps the cluster back along the probe's curve; a
// Shadow gate, a held gate, a cluster never lifted and a service without rampUp do not.
func TestRampPercent(t *testing.T) {
	lift := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	curve := func(elapsed time.Duration) int32 {
		if elapsed >= time.Minute {
			return 0
		}
		return int32(10 + elapsed/time.Second)
	}
	enforce := Policy{Mode: v1beta1.ProbeModeEnforce}
	lifted := State{LastLift: lift}
	cases := []struct {
		name string
		p    Policy
		st   State
		now  time.Time
		ramp Ramp
		want int32
	}{
		{"at the lift", enforce, lifted, lift, curve, 10},
		{"later on the curve", enforce, lifted, lift.Add(20 * time.Second), curve, 30},
		{"past the curve", enforce, lifted, lift.Add(time.Minute), curve, 0},
		{"a lift stamped after now starts at the first step", enforce, lifted, lift.Add(-2 * time.Second), curve, 10},
		{"Shadow took no weight away", Policy{Mode: v1beta1.ProbeModeShadow}, lifted, lift, curve, 0},
		{"a gate holds", enforce, State{Gated: true, LastLift: lift}, lift, curve, 0},
		{"never lifted", enforce, State{}, lift, curve, 0},
		{"no rampUp", enforce, lifted, lift, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.RampPercent(c.st, c.now, c.ramp); got != c.want {
				t.Fatalf("RampPercent = %d, want %d", got, c.want)
			}
		})
	}
}
