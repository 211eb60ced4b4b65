package capacity

import (
	"slices"
	"time"

	"github.com/ome-routing/operator/pkg/text"
)

// Window holds one home's accepted readings under one policy and decides its ceiling.
// The zero Window is empty: no report yet. It is not safe for concurrent use.
//
// The ceiling is the quorum-th smallest of the last `samples` readings, so one low reading
// among high ones does not cut traffic unless quorum is 1 (4, 1, 4 gives 4 with quorum 2),
// while a home that keeps reporting low is capped (1, 4, 1 gives 1). Readings expire at
// observedAt + maxAge, and any failed poll empties the window: after a failure the home
// counts its admitted replicas until quorum polls in a row succeed again.
type Window struct {
	samples []sample
	// reason is why there is no ceiling; empty while one holds or before any poll.
	reason  string
	ceiling int32
	has     bool
}

type sample struct {
	servable int32
	expires  time.Time
}

// Ceiling is a window's verdict.
type Ceiling struct {
	// OK says Value is a usable ceiling.
	OK    bool
	Value int32
	// Reason is why there is none, when !OK.
	Reason string
}

// Observe applies one poll's outcome at now. An outcome that was not counted changes
// nothing.
func (w *Window) Observe(o Outcome, p Policy, now time.Time) {
	switch {
	case !o.Counted:
	case o.Reading != nil:
		w.accept(*o.Reading, p, now)
	default:
		w.fail(o.Failure)
	}
}

func (w *Window) accept(r Reading, p Policy, now time.Time) {
	w.expire(p, now)
	w.samples = append(w.samples, sample{servable: r.Servable, expires: r.ObservedAt.Add(p.MaxAge)})
	if extra := len(w.samples) - int(p.Samples); extra > 0 {
		w.samples = slices.Delete(w.samples, 0, extra)
	}
	w.decide(p, AwaitingQuorum)
}

func (w *Window) fail(reason string) {
	w.samples = nil
	w.has, w.ceiling, w.reason = false, 0, text.Cap(reason, MaxReasonBytes)
}

// MaxReasonBytes is the longest fallback reason: the CRD's maxLength for
// capacity.fallbackReason, so that a long error never makes the map's write fail.
const MaxReasonBytes = 384

// expire drops the readings whose time is up. Only a drop changes the verdict, and the
// reason then says that readings expired.
func (w *Window) expire(p Policy, now time.Time) {
	expired := func(s sample) bool { return !s.expires.After(now) }
	if !slices.ContainsFunc(w.samples, expired) {
		return
	}
	w.samples = slices.DeleteFunc(w.samples, expired)
	if len(w.samples) == 0 {
		w.has, w.ceiling, w.reason = false, 0, Stale(p.MaxAge)
		return
	}
	w.decide(p, AwaitingQuorumAfterExpiry)
}

// decide sets the ceiling from the readings held, or the awaiting reason.
func (w *Window) decide(p Policy, awaiting func(int, int32) string) {
	if len(w.samples) < int(p.Quorum) || p.Quorum < 1 {
		w.has, w.ceiling, w.reason = false, 0, awaiting(len(w.samples), p.Quorum)
		return
	}
	values := make([]int32, len(w.samples))
	for i, s := range w.samples {
		values[i] = s.servable
	}
	slices.Sort(values)
	w.has, w.ceiling, w.reason = true, values[p.Quorum-1], ""
}

// Ceiling is the verdict at now, after dropping the readings that expired by then.
func (w *Window) Ceiling(p Policy, now time.Time) Ceiling {
	w.expire(p, now)
	switch {
	case w.has:
		return Ceiling{OK: true, Value: w.ceiling}
	case w.reason == "":
		return Ceiling{Reason: ReasonNoReport}
	default:
		return Ceiling{Reason: w.reason}
	}
}

// NextExpiry is when the earliest held reading expires, and false when none is held. The
// verdict can change then without a poll, so the map must be looked at again.
func (w *Window) NextExpiry() (time.Time, bool) {
	if len(w.samples) == 0 {
		return time.Time{}, false
	}
	next := w.samples[0].expires
	for _, s := range w.samples[1:] {
		if s.expires.Before(next) {
			next = s.expires
		}
	}
	return next, true
}
