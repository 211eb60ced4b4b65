package probe

import (
	"hash/fnv"
	"time"
)

// Offset spreads homes that share a period over it: it returns a stable offset in
// [0, period) derived from key, the home's identity (such as namespace/name/cluster), so
// that a thousand homes probed every 10s do not all fire in the same millisecond, and a
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
// Anchoring to a fixed origin rather than to the prober's start keeps every home's slot
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

// NextDue is when a home is probed next: one period after prevDue, but never before the
// previous attempt finished at finished. A home that fell behind (its attempt waited for a
// slot or ran long) skips the slots it missed and takes the first of prevDue+k*period, k>=1,
// at or after finished; it is not caught up with a burst of attempts. Slots stay on the
// home's offset. It returns finished for a period that is not positive.
func NextDue(prevDue, finished time.Time, period time.Duration) time.Time {
	if period <= 0 {
		return finished
	}
	next := prevDue.Add(period)
	if behind := finished.Sub(next); behind > 0 {
		skipped := behind / period
		if behind%period != 0 {
			skipped++
		}
		next = next.Add(skipped * period)
	}
	return next
}

// Lateness is how long after its due time an attempt started, or zero if it started on
// time. It measures how far the observer's slots hold probes back.
func Lateness(due, started time.Time) time.Duration {
	if late := started.Sub(due); late > 0 {
		return late
	}
	return 0
}
