package schedule

import (
	"hash/fnv"
	"time"
)

// Offset spreads homes that share a period over it: it returns a stable offset in
// [0, period) derived from key, the home's identity (such as namespace/name/cluster), so
// that a thousand homes due every 10s do not all fire in the same millisecond, and a
// home keeps its slot across restarts. It returns 0 for a period that is not positive.
func Offset(key string, period time.Duration) time.Duration {
	if period <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return time.Duration(h.Sum64() % uint64(period)) //nolint:gosec // less than period, so it fits an int64
}

// FirstDue is the first time at or after now that falls on key's slot: Offset(key, period)
// past a multiple of period, counted as time.Truncate counts it, from a fixed origin.
// Anchoring to a fixed origin rather than to the engine's start keeps every home's slot
// where it was after a restart or a change of leader.
func FirstDue(now time.Time, key string, period time.Duration) time.Time {
	if period <= 0 {
		return now
	}
	base := now.Truncate(period).Add(Offset(key, period))
	if base.Before(now) {
		base = base.Add(period)
	}
	return base
}

// Resume is when a home's first attempt under a schedule is due, given when its last one
// was (zero for none). A home with no record under the current policy (new, or its policy
// changed) goes at once, so its first verdict does not wait up to a period for its slot. A
// home restored from its record after a restart or a change of leader goes one period
// after its last attempt, or at once if that has passed: the restart costs it no time
// towards a verdict, and its attempts are not bunched any closer than a period. A record
// from the future (written by a leader whose clock ran ahead) is due one period from now
// at the latest: the home is never held unprobed, its gate frozen, for as long as the
// clocks disagreed.
func Resume(now, last time.Time, period time.Duration) time.Time {
	if last.IsZero() {
		return now
	}
	if due := last.Add(period); due.After(now) {
		return minTime(due, now.Add(period))
	}
	return now
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// NextDue is when a home's next attempt is due: on the first of key's slots (see FirstDue) at
// least half a period after prevDue, and never before the previous attempt finished at
// finished. On the slot grid that is exactly one period after prevDue; a first attempt that
// came off the grid (see Resume) rejoins it, so that all homes of one map land
// together again, without two attempts closer than half a period. A home that fell behind
// (its attempt waited for a slot or ran long) skips the slots it missed and takes the
// first at or after finished; it is not caught up with a burst of attempts. It returns
// finished for a period that is not positive.
func NextDue(prevDue, finished time.Time, key string, period time.Duration) time.Time {
	if period <= 0 {
		return finished
	}
	earliest := prevDue.Add(period / 2)
	if finished.After(earliest) {
		earliest = finished
	}
	return FirstDue(earliest, key, period)
}

// Lateness is how long after its due time an attempt started, or zero if it started on
// time. It measures how far the slots an attempt waits for hold it back.
func Lateness(due, started time.Time) time.Duration {
	if late := started.Sub(due); late > 0 {
		return late
	}
	return 0
}
