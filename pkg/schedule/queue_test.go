package schedule

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type testQueued struct {
	queued
	id int
}

// TestDueQueueOrdersByDueTime drives the due queue with random schedules, reschedules and
// removals, and checks after each step that every home knows its place and that popping
// gives the homes due by then, earliest first, and no other.
func TestDueQueueOrdersByDueTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q dueQueue[*testQueued]
	homes := make([]*testQueued, 200)
	for i := range homes {
		homes[i] = &testQueued{queued: unqueued(), id: i}
	}
	due := map[int]time.Time{} // what the queue should hold
	check := func(step int) {
		t.Helper()
		if q.Len() != len(due) {
			t.Fatalf("step %d: queue holds %d homes, want %d", step, q.Len(), len(due))
		}
		for i, e := range q {
			if e.home.index != i || !e.home.due.Equal(due[e.home.id]) || e.at != e.home.due.UnixNano() {
				t.Fatalf("step %d: entry %d is home %d with index %d, due %s (entry says %d), want due %s",
					step, i, e.home.id, e.home.index, e.home.due, e.at, due[e.home.id])
			}
			if i > 0 && q[(i-1)/2].at > e.at {
				t.Fatalf("step %d: entry %d is due before its parent", step, i)
			}
		}
		for _, h := range homes {
			if _, in := due[h.id]; !in && h.index != -1 {
				t.Fatalf("step %d: home %d is out of the queue but has index %d", step, h.id, h.index)
			}
		}
	}
	for step := range 5000 {
		h := homes[rng.IntN(len(homes))]
		switch rng.IntN(3) {
		case 0, 1:
			at := epoch.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
			q.schedule(h, at)
			due[h.id] = at
		case 2:
			q.remove(h)
			delete(due, h.id)
		}
		check(step)
		if step%500 == 499 {
			now := epoch.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
			var want, got []time.Time
			for _, at := range due {
				if !at.After(now) {
					want = append(want, at)
				}
			}
			slices.SortFunc(want, time.Time.Compare)
			for h := q.popDueOne(now); h != nil; h = q.popDueOne(now) {
				got = append(got, h.due)
				delete(due, h.id)
			}
			if !slices.EqualFunc(got, want, time.Time.Equal) {
				t.Fatalf("step %d: popped due times %v, want %v", step, got, want)
			}
			if next, ok := q.next(); ok && !next.After(now) {
				t.Fatalf("step %d: %s is still queued, due by %s", step, next, now)
			}
			check(step)
		}
	}
}
