package loadbalance

import (
	"strings"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)

func cachePolicy() Policy {
	return Policy{Mode: "Enforce", CacheUsePercent: 80, MinInterval: 10 * time.Second,
		MaxStepPercent: DefaultMaxStepPercent, HysteresisPercent: 10, FloorPercent: DefaultFloorPercent}
}

func cacheHome(name string, use float64, st State) Home {
	return Home{Cluster: name, Replicas: 1, Eligible: true, State: st,
		Reading: Reading{Known: true, CacheUse: ptr.To(use), At: t0}}
}

func TestDecideMovesAShareOnlyWhereTheRulesSay(t *testing.T) {
	p := cachePolicy()
	longAgo := State{SharePercent: 75, LastChange: t0.Add(-time.Minute), ChangePressure: 125}
	cases := []struct {
		name     string
		homes    []Home
		share    []int32
		moved    []bool
		message0 string
	}{
		{"a saturated cluster gives a step to one with headroom",
			[]Home{cacheHome("a", 1, State{}), cacheHome("b", 0.3, State{})},
			[]int32{75, 100}, []bool{true, false},
			"saturated (cache 100% of 80%: 125%): share 100% -> 75%"},
		{"no other cluster is below its target: the share holds",
			[]Home{cacheHome("a", 1, State{}), cacheHome("b", 0.8, State{})},
			[]int32{100, 100}, []bool{false, false},
			"saturated (cache 100% of 80%: 125%), no other cluster is below its target: holds at 100%"},
		{"a cluster within the band but below its target takes the step",
			[]Home{cacheHome("a", 1, State{}), cacheHome("b", 0.75, State{})},
			[]int32{75, 100}, []bool{true, false},
			"saturated (cache 100% of 80%: 125%): share 100% -> 75%"},
		{"with no share left at 100, every eligible share is scaled up: the ratio holds",
			[]Home{cacheHome("a", 1, State{SharePercent: 20, LastChange: t0.Add(-time.Minute)}), cacheHome("b", 0.3, State{SharePercent: 50, LastChange: t0}),
				{Cluster: "c", Replicas: 1, Eligible: false, State: State{SharePercent: 40}}},
			[]int32{20, 100, 40}, []bool{true, false, false},
			"saturated (cache 100% of 80%: 125%): share 20% -> 10%; no share left at 100%, every share scaled up: 10% -> 20%"},
		{"within minInterval of the last change the share holds",
			[]Home{cacheHome("a", 1, State{SharePercent: 75, LastChange: t0.Add(-5 * time.Second)}), cacheHome("b", 0.3, State{})},
			[]int32{75, 100}, []bool{false, false},
			"saturated (cache 100% of 80%: 125%): holds at 75% until minInterval has passed"},
		{"the floor holds",
			[]Home{cacheHome("a", 1, State{SharePercent: 10, LastChange: t0.Add(-time.Minute)}), cacheHome("b", 0.3, State{})},
			[]int32{10, 100}, []bool{false, false},
			"saturated (cache 100% of 80%: 125%): holds at the floor, 10%"},
		{"a step never goes below the floor",
			[]Home{cacheHome("a", 1, State{SharePercent: 20, LastChange: t0.Add(-time.Minute)}), cacheHome("b", 0.3, State{})},
			[]int32{10, 100}, []bool{true, false},
			"saturated (cache 100% of 80%: 125%): share 20% -> 10%"},
		{"a pressure still falling since the last change holds the share",
			[]Home{cacheHome("a", 0.95, State{SharePercent: 75, LastChange: t0.Add(-time.Minute), ChangePressure: 125}), cacheHome("b", 0.3, State{})},
			[]int32{75, 100}, []bool{false, false},
			"saturated (cache 95% of 80%: 119%), falling since the last change: holds at 75%"},
		{"headroom takes a step back while nothing is saturated",
			[]Home{cacheHome("a", 0.2, longAgo), cacheHome("b", 0.5, State{})},
			[]int32{87, 100}, []bool{true, false},
			"headroom (cache 20% of 80%: 25%): share 75% -> 87%"},
		{"headroom within twice minInterval of a fall holds: the queue is short because traffic just left",
			[]Home{cacheHome("a", 0.2, State{SharePercent: 50, LastChange: t0.Add(-15 * time.Second), ChangePressure: 125}), cacheHome("b", 0.5, State{})},
			[]int32{50, 100}, []bool{false, false},
			"headroom (cache 20% of 80%: 25%): holds at 50% for twice minInterval after a fall"},
		{"a cluster that takes no traffic says so",
			[]Home{{Cluster: "a", Replicas: 1, Eligible: false, State: State{SharePercent: 50}}, cacheHome("b", 0.5, State{})},
			[]int32{50, 100}, []bool{false, false},
			"takes no traffic before load has its say (gated, drained or without capacity): holds at 50%"},
		{"headroom whose pressure rose by more than the band since the last climb holds",
			[]Home{cacheHome("a", 0.4, State{SharePercent: 75, LastChange: t0.Add(-time.Minute), ChangePressure: 25}), cacheHome("b", 0.5, State{})},
			[]int32{75, 100}, []bool{false, false},
			"headroom (cache 40% of 80%: 50%), risen since the last change: holds at 75%"},
		{"headroom holds while another cluster is saturated",
			[]Home{cacheHome("a", 0.2, longAgo), cacheHome("b", 1, State{SharePercent: 10, LastChange: t0}), cacheHome("c", 0.7, State{})},
			[]int32{75, 10, 100}, []bool{false, false, false},
			"headroom (cache 20% of 80%: 25%), another cluster is saturated: holds at 75%"},
		{"within the band nothing moves",
			[]Home{cacheHome("a", 0.85, longAgo), cacheHome("b", 0.3, State{})},
			[]int32{75, 100}, []bool{false, false},
			"within target (cache 85% of 80%: 106%): holds at 75%"},
		{"an Unknown reading holds and is no headroom for others",
			[]Home{cacheHome("a", 1, State{}), {Cluster: "b", Replicas: 1, Eligible: true, Reading: Reading{Reason: "the query was not answered"}}},
			[]int32{100, 100}, []bool{false, false},
			"saturated (cache 100% of 80%: 125%), no other cluster is below its target: holds at 100%"},
		{"a cluster that is not eligible keeps its share and is no headroom",
			[]Home{cacheHome("a", 1, State{}), {Cluster: "b", Replicas: 1, Eligible: false, State: State{SharePercent: 50},
				Reading: Reading{Known: true, CacheUse: ptr.To(0.0)}}},
			[]int32{100, 50}, []bool{false, false},
			"saturated (cache 100% of 80%: 125%), no other cluster is below its target: holds at 100%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Decide(p, c.homes, t0)
			if waits := strings.Contains(got[0].Message, "minInterval"); got[0].Next.IsZero() == waits {
				t.Errorf("Next %v for %q", got[0].Next, got[0].Message)
			}
			if n := got[0].Next; !n.IsZero() && !n.Equal(t0.Add(5*time.Second)) {
				t.Errorf("Next %v, want 5s from now (%s)", n.Sub(t0), got[0].Message)
			}
			for i, d := range got {
				if d.State.Share() != c.share[i] || d.Moved != c.moved[i] {
					t.Errorf("%s: share %d moved %v, want %d %v (%s)", c.homes[i].Cluster, d.State.Share(), d.Moved, c.share[i], c.moved[i], d.Message)
				}
			}
			if got[0].Message != c.message0 {
				t.Errorf("message\n got %q\nwant %q", got[0].Message, c.message0)
			}
		})
	}
}

func TestDecideReadsWaitingPerReadyReplica(t *testing.T) {
	p := Policy{Mode: "Enforce", WaitingPerReplica: 4, MinInterval: time.Second, MaxStepPercent: 25, HysteresisPercent: 20, FloorPercent: 10}
	homes := []Home{
		{Cluster: "a", Replicas: 4, Eligible: true, Reading: Reading{Known: true, Waiting: ptr.To(24.0)}},
		{Cluster: "b", Replicas: 2, Eligible: true, Reading: Reading{Known: true, Waiting: ptr.To(2.0)}},
	}
	got := Decide(p, homes, t0)
	if got[0].Pressure != 150 || got[1].Pressure != 25 {
		t.Fatalf("pressures %d %d, want 150 (6 per replica of 4) and 25 (1 of 4)", got[0].Pressure, got[1].Pressure)
	}
	if want := "saturated (6.0 waiting/replica of 4: 150%): share 100% -> 75%"; got[0].Message != want {
		t.Errorf("message %q, want %q", got[0].Message, want)
	}
}

func TestDecideNamesAQueryTheTargetNeeds(t *testing.T) {
	p := Policy{Mode: "Shadow", WaitingPerReplica: 4, CacheUsePercent: 80, MinInterval: time.Second, MaxStepPercent: 25, FloorPercent: 10}
	d := Decide(p, []Home{{Cluster: "a", Replicas: 1, Eligible: true, Reading: Reading{Known: true, CacheUse: ptr.To(0.5)}}}, t0)[0]
	if d.Known || !strings.Contains(d.Message, "routing.trafficSignal.queries.waiting is not set") {
		t.Fatalf("got known=%v %q, want Unknown naming routing.trafficSignal.queries.waiting", d.Known, d.Message)
	}
}

// TestDecideSettlesOnTwoClustersOfUnequalSpeed runs the decision against a model of two
// clusters with equal replicas whose servers serve 2:1, offered 80% of their total: with
// equal static weights the slower one is past its capacity. The shares must settle within
// three intervals and then stay within one step.
func TestDecideSettlesOnTwoClustersOfUnequalSpeed(t *testing.T) {
	p := cachePolicy()
	p.MinInterval = 5 * time.Second
	capacity := []float64{2, 1}
	offered := 0.8 * (capacity[0] + capacity[1])
	states := []State{{}, {}}
	now := t0
	var history [][2]int32
	for step := 0; step < 12; step++ {
		total := float64(states[0].Share() + states[1].Share())
		homes := make([]Home, 2)
		for i := range homes {
			use := min(offered*float64(states[i].Share())/total/capacity[i], 1)
			homes[i] = cacheHome([]string{"fast", "slow"}[i], use, states[i])
		}
		for i, d := range Decide(p, homes, now) {
			states[i] = d.State
		}
		history = append(history, [2]int32{states[0].Share(), states[1].Share()})
		now = now.Add(p.MinInterval)
	}
	settled := history[2]
	if settled != [2]int32{100, 50} {
		t.Fatalf("after three intervals the shares are %v, want [100 50] (history %v)", settled, history)
	}
	for i, h := range history[3:] {
		for j := range h {
			if d := h[j] - settled[j]; d > p.MaxStepPercent || -d > p.MaxStepPercent {
				t.Fatalf("interval %d: shares %v moved more than a step from %v (history %v)", i+3, h, settled, history)
			}
		}
	}
}

// queueModel is two clusters of one replica each whose servers serve rate requests an
// interval, fed offered requests an interval split by their shares; what a server cannot
// serve waits. It stands in for the bench's real queues, to run the decision for hundreds
// of intervals.
type queueModel struct {
	rate    [2]float64
	waiting [2]float64
	states  [2]State
}

// step runs one interval at offered requests and decides at now; it returns the requests
// left waiting.
func (m *queueModel) step(p Policy, offered float64, now time.Time) float64 {
	total := float64(m.states[0].Share() + m.states[1].Share())
	homes := make([]Home, 2)
	for i := range homes {
		m.waiting[i] = max(m.waiting[i]+offered*float64(m.states[i].Share())/total-m.rate[i], 0)
		homes[i] = Home{Cluster: []string{"fast", "slow"}[i], Replicas: 1, Eligible: true, State: m.states[i],
			Reading: Reading{Known: true, Waiting: ptr.To(m.waiting[i]), At: now}}
	}
	for i, d := range Decide(p, homes, now) {
		m.states[i] = d.State
	}
	return m.waiting[0] + m.waiting[1]
}

// TestDecideFollowsAQueueAndRecoversFromOverload runs the decision against queues that
// serve 2:1 with equal static weights: first offered 80% of their total (the slower one is
// past its rate), then 120% for a while (both queue, both saturate), then 80% again. Under
// 80% the shares must keep the slower queue short (far less waiting than with the static
// split); after the overload they must find that split again rather than stay where the
// overload left them (both at the floor is the static split once more).
func TestDecideFollowsAQueueAndRecoversFromOverload(t *testing.T) {
	p := Policy{Mode: "Enforce", WaitingPerReplica: 4, MinInterval: time.Second, MaxStepPercent: 25, HysteresisPercent: 20, FloorPercent: 10}
	static := queueModel{rate: [2]float64{20, 10}}
	m := queueModel{rate: [2]float64{20, 10}}
	now := t0
	run := func(offered float64, intervals int) (waitingFollowing, waitingStatic float64, slowShares []int32) {
		for range intervals {
			waitingFollowing += m.step(p, offered, now)
			static.waiting[1] = max(static.waiting[1]+offered/2-static.rate[1], 0)
			waitingStatic += static.waiting[1]
			slowShares = append(slowShares, 100*m.states[1].Share()/m.states[0].Share())
			now = now.Add(p.MinInterval)
		}
		return waitingFollowing, waitingStatic, slowShares
	}
	following, fixed, shares := run(24, 60)
	t.Logf("80%% load: shares %v", shares)
	if following*4 > fixed {
		t.Errorf("at 80%% load: %.0f request-intervals waiting following the load, %.0f with the static split; want a quarter or less (slow/fast shares %v)", following, fixed, shares)
	}
	run(36, 30)
	_, _, drain := run(24, 30)
	t.Logf("80%% load again, the backlog draining: shares %v", drain)
	// Both start from the backlog the overload left, so that the comparison is of what each
	// does with it: the static split cannot drain it, the shares must.
	static.waiting = m.waiting
	following, fixed, shares = run(24, 60)
	t.Logf("80%% load after the backlog: shares %v", shares)
	if following*4 > fixed {
		t.Errorf("at 80%% load after an overload: %.0f request-intervals waiting following the load, %.0f static; want a quarter or less (slow/fast shares %v)", following, fixed, shares)
	}
	// The slower cluster's rate is 10 of the 24 offered: its balanced share is 71% of the
	// faster's. After the overload the shares must be near it again, within a step.
	for i, s := range shares {
		if s < 71-p.MaxStepPercent || s > 71+p.MaxStepPercent {
			t.Fatalf("interval %d after the backlog: the slower cluster's share is %d%% of the faster's, want within a step of 71%%: %v", i, s, shares)
		}
	}
}
