package loadbalance

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/api/v1beta1"
)

func waitingPolicy() Policy {
	return Policy{Mode: "Enforce", WaitingPerReplica: 2, MinInterval: 10 * time.Second, MaxStepPercent: 25, HysteresisPercent: 20, FloorPercent: 10}
}

// waitingHome is a home of two replicas whose queue holds waiting requests, and held before
// in the reading before (nil: no reading before).
func waitingHome(name string, waiting float64, before *float64, st State) Home {
	return Home{Cluster: name, Replicas: 2, Eligible: true, State: st,
		Reading: Reading{Known: true, Waiting: ptr.To(waiting), Before: before, At: t0}}
}

// TestDecideRemembersWhereAShareWasSaturatedAndWhereItHadRoom covers the rules that keep a
// share from swinging wider than a step at the edge of a cluster's rate: a burst in one
// reading moves nothing, a climb stops short of the share the cluster last fell from, and a
// fall goes back to the share it last had room at.
func TestDecideRemembersWhereAShareWasSaturatedAndWhereItHadRoom(t *testing.T) {
	p := waitingPolicy()
	longAgo, recent := t0.Add(-time.Hour), t0.Add(-time.Minute)
	idle := waitingHome("b", 0, ptr.To(0.0), State{})
	cases := []struct {
		name    string
		a       Home
		share   int32
		memory  [2]int32 // saturated share, headroom share after the decision
		message string
	}{
		{"past the target in one reading only is a burst: it holds",
			waitingHome("a", 6, ptr.To(1.0), State{}), 100, [2]int32{},
			"past the target (3.0 waiting/replica of 2: 150%) in this reading only: holds at 100%"},
		{"past the target in two readings in a row: it falls",
			waitingHome("a", 6, ptr.To(5.0), State{}), 75, [2]int32{100, 0},
			"saturated (3.0 waiting/replica of 2: 150%): share 100% -> 75%"},
		{"past twice the target it falls at once",
			waitingHome("a", 9, ptr.To(0.0), State{}), 75, [2]int32{100, 0},
			"saturated (4.5 waiting/replica of 2: 225%): share 100% -> 75%"},
		{"with no reading before, one reading is enough",
			waitingHome("a", 6, nil, State{}), 75, [2]int32{100, 0},
			"saturated (3.0 waiting/replica of 2: 150%): share 100% -> 75%"},
		{"a fall stops at the share the cluster last had room at",
			waitingHome("a", 6, ptr.To(6.0), State{SharePercent: 75, LastChange: recent, SaturatedShare: 87, SaturatedAt: recent, HeadroomShare: 62}),
			62, [2]int32{75, 62},
			"saturated (3.0 waiting/replica of 2: 150%): share 75% -> 62%"},
		{"saturated at the very share it had room at: half a step, and that share is forgotten",
			waitingHome("a", 6, ptr.To(6.0), State{SharePercent: 62, LastChange: recent, SaturatedShare: 74, SaturatedAt: recent, HeadroomShare: 62}),
			50, [2]int32{62, 0},
			"saturated (3.0 waiting/replica of 2: 150%): share 62% -> 50%"},
		{"a headroom share under a ceiling past its hold is of another load: a whole step, and it is forgotten",
			waitingHome("a", 6, ptr.To(6.0), State{SharePercent: 75, LastChange: longAgo, SaturatedShare: 87, SaturatedAt: longAgo, HeadroomShare: 62}),
			50, [2]int32{75, 0},
			"saturated (3.0 waiting/replica of 2: 150%): share 75% -> 50%"},
		{"a climb stops short of the share the cluster last fell from",
			waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 62, LastChange: t0.Add(-30 * time.Second), SaturatedShare: 74, SaturatedAt: t0.Add(-30 * time.Second)}),
			62, [2]int32{74, 62},
			"headroom (0.0 waiting/replica of 2: 0%), 74% was saturated: holds at 62%"},
		{"a climb below the ceiling goes on, and keeps it",
			waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 50, LastChange: t0.Add(-30 * time.Second), SaturatedShare: 75, SaturatedAt: t0.Add(-30 * time.Second)}),
			62, [2]int32{75, 50},
			"headroom (0.0 waiting/replica of 2: 0%): share 50% -> 62%"},
		{"sixteen minIntervals after the fall, the climb tries that share again",
			waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 62, LastChange: longAgo, SaturatedShare: 74, SaturatedAt: t0.Add(-CeilingHold * p.MinInterval)}),
			74, [2]int32{0, 62},
			"headroom (0.0 waiting/replica of 2: 0%): share 62% -> 74%"},
		{"a fall recorded in the future is no ceiling",
			waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 62, LastChange: longAgo, SaturatedShare: 74, SaturatedAt: t0.Add(365 * 24 * time.Hour)}),
			74, [2]int32{0, 62},
			"headroom (0.0 waiting/replica of 2: 0%): share 62% -> 74%"},
		{"a climb to 100 forgets the share it had room at",
			waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 90, LastChange: longAgo, HeadroomShare: 78}),
			100, [2]int32{0, 0},
			"headroom (0.0 waiting/replica of 2: 0%): share 90% -> 100%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(p, []Home{c.a, idle}, t0)[0]
			if d.State.Share() != c.share || d.Message != c.message {
				t.Errorf("share %d %q, want %d %q", d.State.Share(), d.Message, c.share, c.message)
			}
			if got := [2]int32{d.State.SaturatedShare, d.State.HeadroomShare}; got != c.memory {
				t.Errorf("remembers saturated %d, headroom %d; want %v", got[0], got[1], c.memory)
			}
		})
	}
}

// TestACacheUseFarBelowItsTargetLiftsTheCeiling: cache use grows with the load where a
// queue stays empty, so one under half its target shows the load has fallen since the
// cluster was saturated, and the climb goes on.
func TestACacheUseFarBelowItsTargetLiftsTheCeiling(t *testing.T) {
	p := cachePolicy()
	recent := State{SharePercent: 62, LastChange: t0.Add(-time.Minute), ChangePressure: 40, SaturatedShare: 74, SaturatedAt: t0.Add(-time.Minute)}
	for _, c := range []struct {
		use   float64
		share int32
	}{{0.3, 74}, {0.5, 62}} {
		d := Decide(p, []Home{cacheHome("a", c.use, recent), cacheHome("b", 0.5, State{})}, t0)[0]
		if d.State.Share() != c.share {
			t.Errorf("cache use %.0f%% of 80%%: share %d (%s), want %d", 100*c.use, d.State.Share(), d.Message, c.share)
		}
	}
}

// TestABurstIsNoSaturationForTheOthers: a cluster past its target in one reading only does
// not hold another cluster's climb.
func TestABurstIsNoSaturationForTheOthers(t *testing.T) {
	p := waitingPolicy()
	climber := waitingHome("a", 0, ptr.To(0.0), State{SharePercent: 50, LastChange: t0.Add(-time.Hour)})
	got := Decide(p, []Home{climber, waitingHome("b", 6, ptr.To(0.0), State{})}, t0)
	if got[0].State.Share() != 62 {
		t.Errorf("share %d (%s), want 62: b's burst is not saturation", got[0].State.Share(), got[0].Message)
	}
}

func TestRescaleScalesTheRememberedShares(t *testing.T) {
	p := waitingPolicy()
	a := waitingHome("a", 6, ptr.To(6.0), State{SharePercent: 100, LastChange: t0.Add(-time.Minute), SaturatedShare: 100, SaturatedAt: t0.Add(-time.Minute), HeadroomShare: 80})
	b := waitingHome("b", 0, ptr.To(0.0), State{SharePercent: 80, LastChange: t0, SaturatedShare: 88, SaturatedAt: t0, HeadroomShare: 70})
	got := Decide(p, []Home{a, b}, t0)
	// a falls to its headroom share, 80; b is then the highest at 80 and every share is
	// scaled by 100/80, the remembered ones too.
	if s := got[1].State; s.Share() != 100 || s.SaturatedShare != 100 || s.HeadroomShare != 88 {
		t.Errorf("b: share %d saturated %d headroom %d, want 100 100 (capped) 88", s.Share(), s.SaturatedShare, s.HeadroomShare)
	}
	if s := got[0].State; s.Share() != 100 || s.SaturatedShare != 100 || s.HeadroomShare != 100 {
		t.Errorf("a: share %d saturated %d headroom %d, want 100 100 100", s.Share(), s.SaturatedShare, s.HeadroomShare)
	}
	if !strings.Contains(got[0].Message, "every share scaled up") {
		t.Errorf("message %q, want the rescale said", got[0].Message)
	}
}

// TestTheRecordCarriesTheRememberedShares: what a decision remembers survives the map (a
// restart, a new leader), a change of it is written, and an out-of-bounds hand edit is
// forgotten.
func TestTheRecordCarriesTheRememberedShares(t *testing.T) {
	p := waitingPolicy()
	at := t0.Add(-time.Minute)
	d := Decision{Known: true, Pressure: 150, State: State{SharePercent: 62, LastChange: at, ChangePressure: 150, SaturatedShare: 75, SaturatedAt: at, HeadroomShare: 62}}
	rec := Record(d, v1beta1.LoadBalancingEnforce, nil)
	if got := FromRecord(rec); got != d.State {
		t.Errorf("read back %+v, want %+v", got, d.State)
	}
	changed := Record(Decision{Known: true, Pressure: 150, State: State{SharePercent: 62, LastChange: at, ChangePressure: 150, SaturatedShare: 75, SaturatedAt: at}},
		v1beta1.LoadBalancingEnforce, rec)
	if Keep(p, changed, rec) != changed {
		t.Error("a forgotten headroom share was not written")
	}
	rec.SaturatedSharePercent, rec.HeadroomSharePercent = ptr.To[int32](101), ptr.To[int32](0)
	if got := FromRecord(rec); got.SaturatedShare != 0 || got.HeadroomShare != 0 {
		t.Errorf("out of bounds: read %d %d, want both forgotten", got.SaturatedShare, got.HeadroomShare)
	}
	rec.SaturatedSharePercent, rec.SaturatedShareTime = ptr.To[int32](75), (*metav1.Time)(nil)
	if got := FromRecord(rec); got.SaturatedShare != 0 {
		t.Errorf("a saturated share without its time was read as %d, want forgotten", got.SaturatedShare)
	}
}
