package capacity

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func windowPolicy(samples, quorum int32, maxAge time.Duration) Policy {
	return Policy{Samples: samples, Quorum: quorum, Period: 10 * time.Second, MaxAge: maxAge}
}

// step is one event in a window's life: a poll at offset at (a reading observed then, or
// a failure), or only a look at the verdict.
type step struct {
	at       time.Duration
	servable *int32 // a reading observed at `at`
	failure  string // a failed poll
	lookOnly bool   // neither: read the verdict at `at`
	want     Ceiling
}

func reading(at time.Duration, n int32, want Ceiling) step {
	return step{at: at, servable: &n, want: want}
}

func capped(v int32) Ceiling         { return Ceiling{OK: true, Value: v} }
func uncapped(reason string) Ceiling { return Ceiling{Reason: reason} }

func TestWindow(t *testing.T) {
	const s = time.Second
	cases := []struct {
		name   string
		policy Policy
		steps  []step
	}{
		{"4,1,4 with quorum 2 gives 4: one low reading does not cut traffic", windowPolicy(3, 2, 30*s), []step{
			reading(0, 4, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(10*s, 1, capped(4)),
			reading(20*s, 4, capped(4)),
		}},
		{"1,4,1 with quorum 2 gives 1: a home that keeps reporting low is capped", windowPolicy(3, 2, 30*s), []step{
			reading(0, 1, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(10*s, 4, capped(4)),
			reading(20*s, 1, capped(1)),
		}},
		{"quorum 1 takes the smallest", windowPolicy(3, 1, 30*s), []step{
			reading(0, 3, capped(3)),
			reading(10*s, 2, capped(2)),
			reading(20*s, 5, capped(2)),
		}},
		{"only the last samples readings count", windowPolicy(2, 1, time.Hour), []step{
			reading(0, 1, capped(1)),
			reading(10*s, 5, capped(1)),
			reading(20*s, 6, capped(5)),
		}},
		{"zero is a real ceiling", windowPolicy(3, 1, 30*s), []step{
			reading(0, 0, capped(0)),
		}},
		{"nothing polled yet", windowPolicy(3, 2, 30*s), []step{
			{at: 0, lookOnly: true, want: uncapped("no capacity report yet")},
		}},
		{"a failure clears the window, and quorum good polls bring the ceiling back", windowPolicy(3, 2, 30*s), []step{
			reading(0, 1, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(10*s, 1, capped(1)),
			{at: 20 * s, failure: "capacity endpoint returned HTTP 503", want: uncapped("capacity endpoint returned HTTP 503")},
			reading(30*s, 1, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(40*s, 1, capped(1)),
		}},
		{"every reading expired: stale", windowPolicy(3, 1, 30*s), []step{
			reading(0, 2, capped(2)),
			{at: 29 * s, lookOnly: true, want: capped(2)},
			{at: 30 * s, lookOnly: true, want: uncapped("capacity report is stale (at least configured maximum age 30s)")},
			{at: 40 * s, lookOnly: true, want: uncapped("capacity report is stale (at least configured maximum age 30s)")},
		}},
		{"some expired, fewer than quorum left", windowPolicy(3, 2, 30*s), []step{
			reading(0, 2, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(10*s, 3, capped(3)),
			{at: 30 * s, lookOnly: true, want: uncapped("capacity report awaiting quorum after stale samples expired (1/2 accepted samples)")},
			reading(35*s, 1, capped(3)),
		}},
		{"some expired, quorum still held: recomputed", windowPolicy(3, 1, 30*s), []step{
			reading(0, 1, capped(1)),
			reading(10*s, 3, capped(1)),
			{at: 30 * s, lookOnly: true, want: capped(3)},
		}},
		{"a reading after everything expired starts the count over", windowPolicy(3, 2, 30*s), []step{
			reading(0, 2, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
			reading(10*s, 2, capped(2)),
			reading(50*s, 2, uncapped("capacity report awaiting quorum (1/2 accepted samples)")),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var w Window
			for i, st := range tc.steps {
				now := t0.Add(st.at)
				switch {
				case st.servable != nil:
					w.Observe(Outcome{Counted: true, Reading: &Reading{Servable: *st.servable, ObservedAt: now}}, tc.policy, now)
				case st.failure != "":
					w.Observe(Outcome{Counted: true, Failure: st.failure}, tc.policy, now)
				}
				if got := w.Ceiling(tc.policy, now); got != st.want {
					t.Errorf("step %d (at %s): Ceiling() = %+v, want %+v", i, st.at, got, st.want)
				}
			}
		})
	}
}

func TestWindowIgnoresUncountedPolls(t *testing.T) {
	p := windowPolicy(3, 1, 30*time.Second)
	var w Window
	w.Observe(Outcome{Counted: true, Reading: &Reading{Servable: 2, ObservedAt: t0}}, p, t0)
	w.Observe(Outcome{}, p, t0.Add(time.Second))
	if got := w.Ceiling(p, t0.Add(time.Second)); got != capped(2) {
		t.Errorf("Ceiling() after a cancelled poll = %+v, want the ceiling kept", got)
	}
}

func TestWindowNextExpiry(t *testing.T) {
	p := windowPolicy(3, 1, 30*time.Second)
	var w Window
	if _, ok := w.NextExpiry(); ok {
		t.Fatalf("NextExpiry() of an empty window reported a time")
	}
	w.Observe(Outcome{Counted: true, Reading: &Reading{Servable: 2, ObservedAt: t0.Add(-5 * time.Second)}}, p, t0)
	w.Observe(Outcome{Counted: true, Reading: &Reading{Servable: 2, ObservedAt: t0}}, p, t0)
	got, ok := w.NextExpiry()
	if want := t0.Add(25 * time.Second); !ok || !got.Equal(want) {
		t.Errorf("NextExpiry() = %v, %v; want %v", got, ok, want)
	}
}

func TestWindowCapsLongReasons(t *testing.T) {
	p := windowPolicy(3, 1, 30*time.Second)
	var w Window
	long := "capacity endpoint unreachable: " + strings.Repeat("é", MaxReasonBytes) + "\xff"
	w.Observe(Outcome{Counted: true, Failure: long}, p, t0)
	got := w.Ceiling(p, t0).Reason
	if len(got) > MaxReasonBytes || !utf8.ValidString(got) || !strings.HasPrefix(got, "capacity endpoint unreachable: éé") {
		t.Errorf("reason of %d bytes (valid UTF-8: %v), want at most %d", len(got), utf8.ValidString(got), MaxReasonBytes)
	}
	w.Observe(Outcome{Counted: true, Failure: "bad \xff byte"}, p, t0)
	if got := w.Ceiling(p, t0).Reason; got != "bad \uFFFD byte" {
		t.Errorf("reason = %q, want the invalid byte replaced", got)
	}
}
