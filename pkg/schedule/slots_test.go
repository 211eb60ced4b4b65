package schedule

import (
	"fmt"
	"testing"
	"time"
)

func TestOffset(t *testing.T) {
	periods := []time.Duration{time.Nanosecond, time.Millisecond, time.Second, 10 * time.Second, time.Hour}
	for _, period := range periods {
		t.Run(period.String(), func(t *testing.T) {
			for i := range 1000 {
				key := fmt.Sprintf("team-%d/llm-%d/worker-%d", i%7, i, i%3)
				o := Offset(key, period)
				if o < 0 || o >= period {
					t.Fatalf("Offset(%q, %v) = %v, outside [0, %v)", key, period, o, period)
				}
				if again := Offset(key, period); again != o {
					t.Fatalf("Offset(%q, %v) = %v then %v", key, period, o, again)
				}
			}
		})
	}
	for _, period := range []time.Duration{0, -time.Second} {
		if o := Offset("ns/name/cluster", period); o != 0 {
			t.Errorf("Offset with period %v = %v, want 0", period, o)
		}
	}
}

// TestOffsetSpreads checks that homes of one period land all over it: 1000 homes in ten
// equal parts of a 10s period, none of which may hold fewer than half or more than twice
// its share. The keys are fixed, so the outcome is too.
func TestOffsetSpreads(t *testing.T) {
	const period, homes, parts = 10 * time.Second, 1000, 10
	var count [parts]int
	for i := range homes {
		o := Offset(fmt.Sprintf("ns-%d/isvc-%d/worker-%c", i/50, i, 'a'+i%4), period)
		count[o*parts/period]++
	}
	for i, n := range count {
		if n < homes/parts/2 || n > 2*homes/parts {
			t.Errorf("part %d of the period holds %d of %d homes: %v", i, n, homes, count)
		}
	}
}

func TestFirstDue(t *testing.T) {
	const period = 10 * time.Second
	now := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	for i := range 100 {
		key := fmt.Sprintf("ns/isvc/worker-%d", i)
		due := FirstDue(now, key, period)
		if due.Before(now) || !due.Before(now.Add(period)) {
			t.Fatalf("FirstDue(%v, %q) = %v, want within [now, now+period)", now, key, due)
		}
		if got := due.Sub(due.Truncate(period)); got != Offset(key, period) {
			t.Fatalf("FirstDue(%q) = %v is %v into its period, want the key's offset %v", key, due, got, Offset(key, period))
		}
		if again := FirstDue(due, key, period); !again.Equal(due) {
			t.Fatalf("FirstDue at the due time %v = %v, want the same", due, again)
		}
		// A restart later keeps the home on the same slots.
		later := FirstDue(now.Add(37*time.Minute+time.Millisecond), key, period)
		if d := later.Sub(due); d%period != 0 {
			t.Fatalf("after a restart, due %v is %v from %v: not a whole number of periods", later, d, due)
		}
	}
	if got := FirstDue(now, "k", 0); !got.Equal(now) {
		t.Errorf("FirstDue with no period = %v, want now", got)
	}
}

const slotKey = "ns/svc"

func TestNextDue(t *testing.T) {
	const period = 10 * time.Second
	prev := FirstDue(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), slotKey, period)
	tests := []struct {
		name     string
		finished time.Duration // after prev
		want     time.Duration // after prev
	}{
		{name: "finished quickly", finished: 300 * time.Millisecond, want: period},
		{name: "finished just before the next slot", finished: period - time.Nanosecond, want: period},
		{name: "finished on the next slot", finished: period, want: period},
		{name: "finished just after the next slot", finished: period + time.Nanosecond, want: 2 * period},
		{name: "finished three and a half periods late", finished: 35 * time.Second, want: 4 * period},
		{name: "finished before it was due (clock step)", finished: -time.Second, want: period},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NextDue(prev, prev.Add(tt.finished), slotKey, period)
			if want := prev.Add(tt.want); !got.Equal(want) {
				t.Fatalf("NextDue = prev+%v, want prev+%v", got.Sub(prev), tt.want)
			}
		})
	}
	if got := NextDue(prev, prev.Add(time.Second), slotKey, 0); !got.Equal(prev.Add(time.Second)) {
		t.Errorf("NextDue with no period = %v, want finished", got)
	}
}

// TestNextDueRejoinsTheSlotGrid: a first probe off the key's grid is followed by the first
// slot at least half a period later.
func TestNextDueRejoinsTheSlotGrid(t *testing.T) {
	const period = 10 * time.Second
	slot := FirstDue(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), slotKey, period)
	tests := []struct {
		name string
		prev time.Duration // after slot
		want time.Duration // after slot
	}{
		{name: "probed just after a slot: the next slot", prev: time.Second, want: period},
		{name: "probed just over half a period after a slot: the one after the next", prev: period/2 + time.Nanosecond, want: 2 * period},
		{name: "probed half a period before a slot: that slot", prev: -period / 2, want: 0},
		{name: "probed just under half a period before a slot: the one after", prev: -period/2 + time.Nanosecond, want: period},
		{name: "probed just before a slot: the one after", prev: -time.Second, want: period},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := slot.Add(tt.prev)
			got := NextDue(prev, prev.Add(100*time.Millisecond), slotKey, period)
			if want := slot.Add(tt.want); !got.Equal(want) {
				t.Fatalf("NextDue = slot+%v, want slot+%v", got.Sub(slot), tt.want)
			}
		})
	}
}

func TestResume(t *testing.T) {
	const period = 10 * time.Second
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		last time.Time
		want time.Time
	}{
		{name: "never probed: at once", want: now},
		{name: "probed 3s ago: a period after it", last: now.Add(-3 * time.Second), want: now.Add(7 * time.Second)},
		{name: "probed exactly a period ago: at once", last: now.Add(-period), want: now},
		{name: "probed an hour ago: at once", last: now.Add(-time.Hour), want: now},
		{name: "a record from the future (clock skew): one period from now at the latest", last: now.Add(time.Second), want: now.Add(period)},
		{name: "a record an hour in the future: one period from now, not an hour", last: now.Add(time.Hour), want: now.Add(period)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Resume(now, tt.last, period); !got.Equal(tt.want) {
				t.Fatalf("Resume = now%+v, want now%+v", got.Sub(now), tt.want.Sub(now))
			}
		})
	}
}

// TestNextDueProperties checks, over many finish times, that the next slot is on the
// home's grid, never before the attempt finished, and never a whole period after it (no
// slot is skipped that could still be used).
func TestNextDueProperties(t *testing.T) {
	for _, period := range []time.Duration{time.Second, 7 * time.Second, 30 * time.Second} {
		prev := FirstDue(time.Date(2026, 1, 2, 3, 4, 5, 123, time.UTC), slotKey, period)
		for finished := time.Duration(0); finished < 5*period; finished += period / 13 {
			end := prev.Add(finished)
			next := NextDue(prev, end, slotKey, period)
			d := next.Sub(prev)
			switch {
			case d <= 0 || d%period != 0:
				t.Fatalf("period %v, finished prev+%v: next prev+%v is not a later slot", period, finished, d)
			case next.Before(end):
				t.Fatalf("period %v, finished prev+%v: next prev+%v is before the attempt finished", period, finished, d)
			case d > period && next.Sub(end) >= period:
				t.Fatalf("period %v, finished prev+%v: next prev+%v skips a usable slot", period, finished, d)
			}
		}
	}
}

func TestLateness(t *testing.T) {
	due := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		started time.Time
		want    time.Duration
	}{
		{name: "late", started: due.Add(1500 * time.Millisecond), want: 1500 * time.Millisecond},
		{name: "on time", started: due, want: 0},
		{name: "early", started: due.Add(-time.Second), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lateness(due, tt.started); got != tt.want {
				t.Fatalf("Lateness = %v, want %v", got, tt.want)
			}
		})
	}
}
