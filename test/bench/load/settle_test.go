package load

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// sharePoint is a share in percent, held from at on.
type sharePoint struct {
	at    time.Time
	share int32
}

// settling is what one cluster's share did after a step in the load.
type settling struct {
	// settled says the share settled before the window's last third: from some point on
	// (the settling point) its values spanned no more than a step, lo to hi, to the end.
	// An unsettled share's lo and hi are the values it took over the last third.
	settled bool
	lo, hi  int32
	// after is the time from the step to the settling point; movesAfter counts the moves
	// from then on (back and forth within the step: 0 is no oscillation at all).
	after      time.Duration
	movesAfter int
	// firstRun is the time from the step to the last move of the first run of moves in
	// one direction, and firstRunEnd the share it ended at: how far the first reaction
	// went (to the floor, when it overshoots).
	firstRun    time.Duration
	firstRunEnd int32
	// path is every value in turn, the first the one at the step.
	path []int32
}

// settle reads a share's path (the first point the value at the step, the others its
// changes, in order) up to end with the policy's step.
func settle(path []sharePoint, end time.Time, step int32) settling {
	s := settling{}
	if len(path) == 0 {
		return s
	}
	start := path[0].at
	for _, p := range path {
		s.path = append(s.path, p.share)
	}
	// The first run: moves in the direction of the first move, until one goes back.
	s.firstRunEnd = path[0].share
	for i := 1; i < len(path); i++ {
		up := path[i].share > path[i-1].share
		if i > 1 && up != (path[1].share > path[0].share) {
			break
		}
		s.firstRun, s.firstRunEnd = path[i].at.Sub(start), path[i].share
	}
	// The settling point: the first from which the values span a step at most. A share
	// that gets there only in the last third has not shown that it stays.
	from := len(path) - 1
	for i := range path {
		if lo, hi := spanFrom(path, i); hi-lo <= step {
			from = i
			break
		}
	}
	tail := end.Add(-end.Sub(start) / 3)
	s.settled = !path[from].at.After(tail)
	if !s.settled {
		s.lo, s.hi = band(path, tail)
		return s
	}
	s.lo, s.hi = spanFrom(path, from)
	s.after = path[from].at.Sub(start)
	s.movesAfter = len(path) - 1 - from
	return s
}

// spanFrom is the lowest and highest value of path from i on.
func spanFrom(path []sharePoint, i int) (lo, hi int32) {
	lo, hi = path[i].share, path[i].share
	for _, p := range path[i:] {
		lo, hi = min(lo, p.share), max(hi, p.share)
	}
	return lo, hi
}

// inTail says whether path[i] holds at some moment after tail.
func inTail(path []sharePoint, i int, tail time.Time) bool {
	return i+1 == len(path) || path[i+1].at.After(tail)
}

// band is the lowest and highest value the share held after tail.
func band(path []sharePoint, tail time.Time) (lo, hi int32) {
	first := true
	for i, p := range path {
		if !inTail(path, i, tail) {
			continue
		}
		if first {
			lo, hi, first = p.share, p.share, false
		}
		lo, hi = min(lo, p.share), max(hi, p.share)
	}
	return lo, hi
}

// oscillation names what the share did once it reached its band.
func (s settling) oscillation() string {
	switch {
	case !s.settled:
		return "wider_than_a_step"
	case s.movesAfter == 0:
		return "none"
	default:
		return "within_one_step"
	}
}

// pathString writes the values in turn, 100>75>50, eliding the middle of a long one.
func (s settling) pathString() string {
	var parts []string
	for i, v := range s.path {
		if len(s.path) > 16 && i == 8 {
			parts = append(parts, fmt.Sprintf("(%d more)", len(s.path)-16))
		}
		if len(s.path) > 16 && i >= 8 && i < len(s.path)-8 {
			continue
		}
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ">")
}

func TestSettleFindsWhereTheShareStaysWithinAStep(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	end := at(90) // the last third starts at 60 s
	for _, c := range []struct {
		name     string
		path     []sharePoint
		settled  bool
		lo, hi   int32
		after    time.Duration
		moves    int
		firstRun time.Duration
		runEnd   int32
		osc      string
	}{
		{name: "no move", path: []sharePoint{{t0, 100}}, settled: true, lo: 100, hi: 100, runEnd: 100, osc: "none"},
		{name: "two steps down and stays: settled within a step of the first", path: []sharePoint{{t0, 100}, {at(3), 75}, {at(8), 50}},
			settled: true, lo: 50, hi: 75, after: 3 * time.Second, moves: 1, firstRun: 8 * time.Second, runEnd: 50, osc: "within_one_step"},
		{name: "down two steps at once and stays", path: []sharePoint{{t0, 100}, {at(8), 50}},
			settled: true, lo: 50, hi: 50, after: 8 * time.Second, firstRun: 8 * time.Second, runEnd: 50, osc: "none"},
		{name: "down, then back and forth within a step", path: []sharePoint{{t0, 100}, {at(3), 75}, {at(8), 50}, {at(30), 75}, {at(50), 50}, {at(70), 75}},
			settled: true, lo: 50, hi: 75, after: 3 * time.Second, moves: 4, firstRun: 8 * time.Second, runEnd: 50, osc: "within_one_step"},
		{name: "overshoot to the floor, back up and stays", path: []sharePoint{{t0, 100}, {at(3), 75}, {at(8), 50}, {at(12), 25}, {at(16), 10}, {at(40), 35}, {at(50), 60}},
			settled: true, lo: 35, hi: 60, after: 40 * time.Second, moves: 1, firstRun: 16 * time.Second, runEnd: 10, osc: "within_one_step"},
		{name: "within a step only from the last third on", path: []sharePoint{{t0, 100}, {at(10), 50}, {at(65), 100}, {at(70), 90}},
			settled: false, lo: 50, hi: 100, firstRun: 10 * time.Second, runEnd: 50, osc: "wider_than_a_step"},
		{name: "swings wider than a step to the end", path: []sharePoint{{t0, 100}, {at(10), 50}, {at(65), 100}, {at(80), 50}},
			settled: false, lo: 50, hi: 100, firstRun: 10 * time.Second, runEnd: 50, osc: "wider_than_a_step"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := settle(c.path, end, 25)
			if s.settled != c.settled || s.lo != c.lo || s.hi != c.hi || s.firstRun != c.firstRun || s.firstRunEnd != c.runEnd || s.oscillation() != c.osc {
				t.Errorf("settled %v band %d-%d first run %s to %d oscillation %s; want %v %d-%d %s to %d %s",
					s.settled, s.lo, s.hi, s.firstRun, s.firstRunEnd, s.oscillation(), c.settled, c.lo, c.hi, c.firstRun, c.runEnd, c.osc)
			}
			if c.settled && (s.after != c.after || s.movesAfter != c.moves) {
				t.Errorf("in its band after %s with %d moves; want %s with %d", s.after, s.movesAfter, c.after, c.moves)
			}
		})
	}
}
