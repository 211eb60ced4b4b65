package soak

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// The probe the run sets for every service: the user guide's Step 1 probe with a 2 s
// period and a 1 s timeout.
const (
	period           = 2 * time.Second
	probeTimeout     = time.Second
	failureThreshold = 3
	successThreshold = 2
)

// answer is one answer an endpoint gave to a probe: when the request reached it, and
// whether it passed (200) or failed (503).
type answer struct {
	at   time.Time
	pass bool
	// undelivered: the connection closed within a probe timeout of this answer, before
	// another request came on it. The prober gave up on it (a timeout, which the user
	// guide counts as a failure whatever the endpoint said) or died with it (a kill).
	undelivered bool
}

// homeTruth is what one home's endpoint answered, in order, and the gate those answers
// make by the user guide's rule, worked out here on its own rather than with the
// operator's code: failureThreshold failures in a row gate the home, successThreshold
// passes in a row lift the gate.
type homeTruth struct {
	answers []answer
	// gated[i] is the gate after answers[i].
	gated         []bool
	fails, passes int
}

func (h *homeTruth) add(a answer) {
	gated := h.gatedAfter(len(h.answers) - 1)
	if a.pass {
		h.passes, h.fails = h.passes+1, 0
		if gated && h.passes >= successThreshold {
			gated = false
		}
	} else {
		h.fails, h.passes = h.fails+1, 0
		if h.fails >= failureThreshold {
			gated = true
		}
	}
	h.answers = append(h.answers, a)
	h.gated = append(h.gated, gated)
}

// gatedAfter is the gate after answer i; before the first answer there is none.
func (h *homeTruth) gatedAfter(i int) bool { return i >= 0 && i < len(h.gated) && h.gated[i] }

// verdict is what the watcher makes of one entry of one map version.
type verdict int

const (
	// consistent: the entry's gate is the one the home's answers make.
	consistent verdict = iota
	// madeUp: the entry is gated, and no answer near its lastProbeTime gates the home.
	madeUp
	// lost: the entry is not gated, and every answer near its lastProbeTime gates it.
	lost
	// unanswered: no answer is near the entry's lastProbeTime: the probe it records never
	// reached the endpoint (a timeout or a refused connection on the manager's side).
	unanswered
	// lateLift: the entry is gated after the answers lifted the gate, which they had made
	// within the last cycle of a flapping home (lateLiftSpan): a real gate lifted late,
	// as when the lift was not yet written when the leader died. Reported, not a failure.
	lateLift
	// disturbed: lost or made up, but an answer of the last cycle never reached the
	// prober (see answer.undelivered): a timed-out pass is a failure to the prober, so
	// the answers alone do not say what it should have counted. Reported, not a failure.
	disturbed
)

// lateLiftSpan is how far back a gate of the answers makes a gated entry a late lift
// rather than a gate made up: one cycle of the slow pattern.
const lateLiftSpan = 10 * period

// answerSlack covers the time between the endpoint noting a request and the prober noting
// that the attempt finished, beyond the timeout.
const answerSlack = 200 * time.Millisecond

// judge compares an entry's gate with the answers. lastProbeTime is when the entry's last
// attempt finished, cut to the second as the API stores it: that attempt's answer came in
// [lastProbeTime - timeout, lastProbeTime + 1s). Every answer in that span is a candidate,
// and so is the one before the first (a probe whose result was lost with a killed leader
// shifts the operator's count by one answer); the entry is consistent when its gate is
// the one after any candidate. A gate thus counts as lost or made up only when the
// answers around it all say otherwise, which a single lost answer cannot cause: the
// flapping patterns keep transitions more than one answer apart.
func (h *homeTruth) judge(lastProbeTime time.Time, gated bool) verdict {
	lo, hi := h.span(lastProbeTime.Add(-probeTimeout-answerSlack), lastProbeTime.Add(time.Second+answerSlack))
	if lo == hi {
		return unanswered
	}
	for i := lo - 1; i < hi; i++ {
		if h.gatedAfter(i) == gated {
			return consistent
		}
	}
	from, _ := h.span(lastProbeTime.Add(-lateLiftSpan), lastProbeTime)
	for i := from; i < hi; i++ {
		if h.answers[i].undelivered {
			return disturbed
		}
	}
	if !gated {
		return lost
	}
	for i := from; i < hi; i++ {
		if h.gatedAfter(i) {
			return lateLift
		}
	}
	return madeUp
}

// undeliver marks answer i undelivered.
func (h *homeTruth) undeliver(i int) {
	if i >= 0 && i < len(h.answers) {
		h.answers[i].undelivered = true
	}
}

// judgeFresh judges an entry that has no probe record yet (a home new to its map, or back
// in it with its state forgotten), seen at seen: it is not gated, so it is lost when the
// home's last two answers before seen both gate it.
func (h *homeTruth) judgeFresh(seen time.Time) verdict {
	_, hi := h.span(time.Time{}, seen)
	if hi > 0 && h.gatedAfter(hi-1) && h.gatedAfter(hi-2) {
		return lost
	}
	return consistent
}

// span is the indices [lo, hi) of the answers that came in [from, to).
func (h *homeTruth) span(from, to time.Time) (int, int) {
	lo := sort.Search(len(h.answers), func(i int) bool { return !h.answers[i].at.Before(from) })
	hi := sort.Search(len(h.answers), func(i int) bool { return !h.answers[i].at.Before(to) })
	return lo, hi
}

// lastChange is the index of the latest answer before seen that turned the gate to
// gated, or -1.
func (h *homeTruth) lastChange(seen time.Time, gated bool) int {
	_, hi := h.span(time.Time{}, seen)
	for i := hi - 1; i >= 0; i-- {
		if h.gatedAfter(i) == gated && h.gatedAfter(i-1) != gated {
			return i
		}
	}
	return -1
}

// changes are the indices of the answers that turned the gate to gated (onsets).
func (h *homeTruth) onsets() []int {
	var out []int
	for i := range h.gated {
		if h.gatedAfter(i) && !h.gatedAfter(i-1) {
			out = append(out, i)
		}
	}
	return out
}

// around is the last ten answers up to 2 s after at, as "F-8.1s Pu-6.0s Fg-4.0s" (u:
// undelivered, g: gated after it), for a finding.
func (h *homeTruth) around(at time.Time) string {
	_, hi := h.span(time.Time{}, at.Add(2*time.Second))
	lo := max(hi-10, 0)
	var parts []string
	for i := lo; i < hi; i++ {
		c := "F"
		if h.answers[i].pass {
			c = "P"
		}
		if h.answers[i].undelivered {
			c += "u"
		}
		if h.gatedAfter(i) {
			c += "g"
		}
		parts = append(parts, fmt.Sprintf("%s%+.1fs", c, h.answers[i].at.Sub(at).Seconds()))
	}
	return strings.Join(parts, " ")
}

// mostIn is the most answers that came within any span of length d, counting those
// between from and to.
func (h *homeTruth) mostIn(d time.Duration, from, to time.Time) int {
	lo, hi := h.span(from, to)
	most, j := 0, lo
	for i := lo; i < hi; i++ {
		for h.answers[i].at.Sub(h.answers[j].at) >= d {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}
