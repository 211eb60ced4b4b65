package soak

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// These tests run in every `go test`: they check the soak's own checkers, which must catch
// a lost or made-up gate, a second writer and a lagging route, and must not cry wolf.

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// truthOf answers pattern every period from t0+100ms.
func truthOf(pattern []bool) *homeTruth {
	h := &homeTruth{}
	for i, p := range pattern {
		h.add(answer{at: t0.Add(100*time.Millisecond + time.Duration(i)*period), pass: p})
	}
	return h
}

// finishedAt is the lastProbeTime of the attempt that got answer i: it finished 5 ms after
// the answer, and the API keeps whole seconds.
func finishedAt(i int) time.Time {
	return t0.Add(105*time.Millisecond + time.Duration(i)*period).Truncate(time.Second)
}

func TestTruthGates(t *testing.T) {
	h := truthOf(slow.pattern)
	want := []bool{false, false, true, true, true, true, false, false, false, false}
	for i, g := range want {
		if h.gatedAfter(i) != g {
			t.Errorf("slow pattern: gated after answer %d = %v, want %v", i, h.gatedAfter(i), g)
		}
	}
	f := truthOf(append(append(fast.pattern, fast.pattern...), fast.pattern...))
	for i := range f.gated {
		if f.gatedAfter(i) {
			t.Errorf("fast pattern gated after answer %d", i)
		}
	}
	if got := h.onsets(); len(got) != 1 || got[0] != 2 {
		t.Errorf("onsets = %v, want [2]", got)
	}
	if got := h.lastChange(t0.Add(time.Hour), false); got != 6 {
		t.Errorf("last lift = %d, want 6", got)
	}
}

func TestJudge(t *testing.T) {
	h := truthOf(slow.pattern)
	for _, tc := range []struct {
		name   string
		answer int
		gated  bool
		want   verdict
	}{
		{"passing, not gated", 0, false, consistent},
		{"third failure, gated", 2, true, consistent},
		{"third failure, not yet gated: one answer lost", 2, false, consistent},
		{"fourth failure, not gated", 3, false, lost},
		{"fifth failure, not gated", 4, false, lost},
		{"first pass, still gated", 5, true, consistent},
		{"first pass, lifted", 5, false, lost},
		{"second pass, lifted", 6, false, consistent},
		{"second pass, still gated: one answer lost", 6, true, consistent},
		{"third pass, still gated: lifted late", 7, true, lateLift},
		{"first failure, gated", 0, true, madeUp},
		{"second failure, gated", 1, true, madeUp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.judge(finishedAt(tc.answer), tc.gated); got != tc.want {
				t.Errorf("judge(answer %d, gated=%v) = %v, want %v", tc.answer, tc.gated, got, tc.want)
			}
		})
	}
	if got := h.judge(t0.Add(time.Hour), false); got != unanswered {
		t.Errorf("a lastProbeTime with no answer near it = %v, want unanswered", got)
	}
	long := truthOf(append(append(slices.Clone(slow.pattern), repeat(0, 10)...), true))
	if got := long.judge(finishedAt(20), true); got != madeUp {
		t.Errorf("gated a cycle after the lift: %v, want madeUp", got)
	}
	timedOut := truthOf(append(slices.Clone(fast.pattern), fast.pattern...))
	timedOut.undeliver(2) // the first pass of the second round timed out
	if got := timedOut.judge(finishedAt(4), true); got != disturbed {
		t.Errorf("a fast home gated after one of its passes timed out: %v, want disturbed", got)
	}
	fastTruth := truthOf(append(fast.pattern, fast.pattern...))
	for i := range fastTruth.answers {
		if got := fastTruth.judge(finishedAt(i), true); got != madeUp {
			t.Errorf("fast home gated at answer %d: %v, want madeUp", i, got)
		}
	}
}

func TestJudgeFresh(t *testing.T) {
	h := truthOf(slow.pattern)
	seenAfter := func(i int) time.Time { return h.answers[i].at.Add(time.Millisecond) }
	for i, want := range []verdict{consistent, consistent, consistent, lost, lost, lost, consistent} {
		if got := h.judgeFresh(seenAfter(i)); got != want {
			t.Errorf("fresh entry after answer %d: %v, want %v", i, got, want)
		}
	}
	if got := (&homeTruth{}).judgeFresh(t0); got != consistent {
		t.Errorf("a home with no answers: %v", got)
	}
}

func TestBehaviours(t *testing.T) {
	counts := map[string]int{}
	for i := range 200 {
		flapping := 0
		for j := range workers {
			b := behaviourOf(i, j)
			counts[b.name]++
			if b.name != steady.name {
				flapping++
			}
		}
		if flapping > 1 {
			t.Fatalf("service %d has %d flapping homes", i, flapping)
		}
	}
	if counts["fast"] != 30 || counts["slow"] != 30 || counts["steady"] != 540 {
		t.Errorf("homes by behaviour = %v, want 30 fast, 30 slow, 540 steady", counts)
	}
}

func TestSchedule(t *testing.T) {
	s := newSchedule(30 * time.Minute)
	if len(s.kills) != 5 || s.kills[0] != 5*time.Minute || s.kills[4] != 25*time.Minute {
		t.Errorf("kills = %v, want every 5 minutes", s.kills)
	}
	if s.phase(5*time.Minute+time.Second) != "latency-300ms+takeover" {
		t.Errorf("a kill falls inside the 300 ms window: %q", s.phase(5*time.Minute+time.Second))
	}
	for _, k := range s.kills {
		if s.slower.contains(k) || s.drain.contains(k) {
			t.Errorf("kill at %s falls in the 2 s window or the minute after it", k)
		}
	}
	if !s.partition.contains(20*time.Minute) || s.partition.length() < minPartition {
		t.Errorf("partition %v: want one of at least %s around the kill at 20m", s.partition, minPartition)
	}
	short := newSchedule(5 * time.Minute)
	if short.partition.length() < minPartition || short.partition.to > 5*time.Minute {
		t.Errorf("a 5-minute run cuts a member off %v", short.partition)
	}
	if got := s.phase(time.Minute); got != "steady" {
		t.Errorf("phase at 1m = %q", got)
	}
}

func TestFollower(t *testing.T) {
	f := newFollower()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	f.mapSeen("a", "x=1,y=1", at(0))
	f.routeSeen("a", "x=1,y=1", at(1))
	f.mapSeen("a", "x=0,y=1", at(2))
	f.mapSeen("a", "x=1,y=1", at(4)) // back before the route moved: the route is right again
	f.mapSeen("a", "x=0,y=1", at(6))
	f.routeSeen("a", "x=0,y=1", at(9))
	f.mapSeen("b", "x=1", at(10))
	d := f.divergences(at(20))
	if len(d) != 4 {
		t.Fatalf("divergences = %+v, want 4", d)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 10 * time.Second}
	for i, w := range want {
		if d[i].took != w {
			t.Errorf("divergence %d took %s, want %s", i, d[i].took, w)
		}
	}
	if !d[3].open || len(f.apart()) != 1 {
		t.Errorf("b's route never came: %+v, apart %v", d[3], f.apart())
	}
}

func TestWriterLog(t *testing.T) {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	w := newWriterLog(3 * time.Second)
	w.observe("m", []string{"soak-manager-a1", "ome-trafficmap-publisher"}, at(0))
	w.observe("m", []string{"soak-manager-a1"}, at(2))
	w.killed("a1", at(3))
	w.observe("m", []string{"soak-manager-a1"}, at(4)) // on the wire when it died
	w.observe("m", []string{"soak-manager-b1"}, at(20))
	if len(w.violations) != 0 {
		t.Fatalf("a clean handover: %v", w.violations)
	}
	w.observe("m", []string{"soak-manager-a2"}, at(30)) // a started again, writing while b1 leads
	w.observe("n", []string{"soak-manager-a1", "soak-manager-b1"}, at(31))
	w.observe("o", []string{"ome-routing"}, at(32))
	if len(w.violations) != 2 || w.doubles != 1 || w.others["ome-routing"] != 1 {
		t.Errorf("violations %v, doubles %d, others %v", w.violations, w.doubles, w.others)
	}
}

func TestWritersOf(t *testing.T) {
	t1, t2 := metav1.NewTime(t0), metav1.NewTime(t0.Add(time.Second))
	fields := metav1.NewFieldsV1
	before := []metav1.ManagedFieldsEntry{
		{Manager: "soak-manager-a1", Operation: metav1.ManagedFieldsOperationUpdate, Time: &t1, FieldsV1: fields(`{"f:spec":{}}`)},
		{Manager: "ome-trafficmap-publisher", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status", Time: &t1},
	}
	now := []metav1.ManagedFieldsEntry{
		{Manager: "soak-manager-a1", Operation: metav1.ManagedFieldsOperationUpdate, Time: &t1, FieldsV1: fields(`{}`)},
		{Manager: "ome-trafficmap-publisher", Operation: metav1.ManagedFieldsOperationApply, Subresource: "status", Time: &t2},
		{Manager: "soak-manager-b1", Operation: metav1.ManagedFieldsOperationUpdate, Time: &t2},
	}
	got := writersOf(before, now)
	if len(got) != 2 || got[0] != "ome-trafficmap-publisher" || got[1] != "soak-manager-b1" {
		t.Errorf("writers = %v: want the publisher and b, not a, whose fields b took over", got)
	}
}

func TestMostIn(t *testing.T) {
	one := truthOf(repeat(0, 30))
	if n := one.mostIn(10*period, t0, t0.Add(time.Hour)); n != 10 {
		t.Errorf("one prober, one answer a period: %d in ten periods, want 10", n)
	}
	// A late probe followed right away by the one on its slot: still one per slot.
	late := &homeTruth{}
	for i := range 30 {
		at := t0.Add(time.Duration(i) * period)
		if i%5 == 0 {
			at = at.Add(-50 * time.Millisecond).Add(period - 100*time.Millisecond) // came late, just before the next slot
		}
		late.add(answer{at: at, pass: true})
	}
	if n := late.mostIn(10*period, t0, t0.Add(time.Hour)); n > maxPerTenPeriods {
		t.Errorf("late probes: %d in ten periods, more than %d", n, maxPerTenPeriods)
	}
	two := &homeTruth{}
	for i := range 30 {
		for _, off := range []time.Duration{0, 700 * time.Millisecond} {
			two.add(answer{at: t0.Add(time.Duration(i)*period + off), pass: true})
		}
	}
	if n := two.mostIn(10*period, t0, t0.Add(time.Hour)); n <= maxPerTenPeriods {
		t.Errorf("two probers: %d in ten periods, want more than %d", n, maxPerTenPeriods)
	}
}

// TestTakeoverGates: a kill finds the gates the answers made that no map shows yet; the
// takeover's gate time is when the last of them reaches its map, and a gate the answers
// lift before it is written leaves the count without holding it up.
func TestTakeoverGates(t *testing.T) {
	a, b, c := homeKey{"svc-000", "worker-a"}, homeKey{"svc-001", "worker-a"}, homeKey{"svc-002", "worker-a"}
	// Three failures gate a and b; c passes.
	failing := func() *home { return &home{truth: *truthOf([]bool{false, false, false})} }
	w := &watcher{homes: map[homeKey]*home{a: failing(), b: failing(), c: {truth: *truthOf([]bool{true, true, true})}},
		entries: map[homeKey]entryState{a: {present: true}, b: {present: true}, c: {present: true}}, writers: &writerLog{}}
	kill := t0.Add(7 * time.Second)
	w.killed("replica-0", kill)
	to := w.takeovers[0]
	if to.gates != 2 || !to.pending[a] || !to.pending[b] {
		t.Fatalf("pending at the kill: %v (%d), want a and b", to.pending, to.gates)
	}
	to.gateSeen(c, false, false, kill.Add(time.Second))
	to.gateSeen(a, false, true, kill.Add(2*time.Second)) // written, not yet gated: still pending
	to.gateSeen(a, true, true, kill.Add(3*time.Second))
	if !to.gatesOn.IsZero() {
		t.Fatalf("gates on the map at %v with b still pending", to.gatesOn)
	}
	to.gateSeen(b, false, false, kill.Add(4*time.Second)) // lifted by the answers first
	if to.dropped != 1 || !to.gatesOn.Equal(kill.Add(4*time.Second)) {
		t.Fatalf("dropped %d, gates on at %v; want 1 and kill+4s", to.dropped, to.gatesOn)
	}
}
