package applied

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ome-routing/operator/pkg/passivegate"
)

// The split check: after the route's weights change, do the requests the gateway sends
// the clusters it weighs follow those weights? A withdrawal has an unambiguous answer (no
// request at all); a split is judged on shares, so it needs volume, and it is checked once
// per change of the route's weights: the first reading of every weighted cluster whose
// window starts an interval after the route carried the weights settles it. The readings
// stop then, so a settled check costs nothing until the weights change again. A window
// with too few requests to judge is tried again SplitRetryIntervals later, so that a
// service whose traffic comes after the change still gets its check.

// SplitTolerance is how far, in percentage points of all the weighted clusters' requests,
// a cluster's share of requests may be from its share of the weights and still match.
const SplitTolerance = 10

// SplitMinRequests is the fewest requests, over one window across the weighted clusters,
// on which a split is judged: below it a share says too little.
const SplitMinRequests = 100

// SplitRetryIntervals is how many of the signal's intervals after a window with too few
// requests the check is tried again; the clusters are not read in between.
const SplitRetryIntervals = 6

// Split is one check of the split between the clusters the route weighs.
type Split struct {
	// RouteGeneration is the map's routeGeneration the weights are of.
	RouteGeneration int64
	// Weights are the route's positive weights, by cluster; at least two.
	Weights map[string]int32
	// Written is when the routing reconciler first saw the route carry the weights; zero
	// until then.
	Written time.Time
	// Verdict is the check's outcome once settled; SplitOpen until then.
	Verdict SplitVerdict
	// Note says what was seen: the shares, or why the split was not judged.
	Note string
	// RetryAt is when a check that saw too few requests is tried again.
	RetryAt time.Time
	// From is the earliest start of a window that can settle the check: an interval after
	// Written, or a retry's time.
	From time.Time
}

// SplitVerdict is where a split check stands.
type SplitVerdict int

// The outcomes of a split check.
const (
	// SplitOpen: waiting for readings that can settle it.
	SplitOpen SplitVerdict = iota
	// SplitMatched: every cluster's share of requests is within SplitTolerance of its
	// share of the weights.
	SplitMatched
	// SplitMismatched: some cluster's is not; judged again on each new window.
	SplitMismatched
	// SplitTooFewRequests: the settling window held fewer than SplitMinRequests requests.
	SplitTooFewRequests
)

// Settled says whether the check has its verdict and its clusters need no more readings:
// a match, or too few requests until the retry. A mismatch is judged again on every new
// window, so that a gateway that catches up clears it, as the withdrawals' check does.
func (s *Split) Settled() bool {
	return s != nil && (s.Verdict == SplitMatched || s.Verdict == SplitTooFewRequests)
}

// NewSplit opens a check of weights (the route's, by cluster) at routeGeneration; nil when
// fewer than two clusters take traffic, where there is no split to judge.
func NewSplit(weights map[string]int32, routeGeneration int64) *Split {
	positive := map[string]int32{}
	for c, w := range weights {
		if w > 0 {
			positive[c] = w
		}
	}
	if len(positive) < 2 {
		return nil
	}
	return &Split{RouteGeneration: routeGeneration, Weights: positive}
}

// judgeSplit moves an open check on with each weighted cluster's last reading. It settles
// the check when every cluster has a Known reading whose window starts an interval after
// the route carried the weights; otherwise it says what it waits for, and when a reading
// that can settle it is due (zero when no time alone brings one).
func judgeSplit(s *Split, readings map[string]passivegate.Reading, interval time.Duration, now time.Time) (waiting string, unknown string, next time.Time) {
	if s != nil && s.Verdict == SplitTooFewRequests {
		if now.Before(s.RetryAt) {
			return "", "", s.RetryAt
		}
		s.Verdict, s.Note, s.From = SplitOpen, "", now
	}
	if s == nil || s.Settled() {
		return "", "", time.Time{}
	}
	if s.Written.IsZero() {
		return "the route does not carry the weights yet", "", time.Time{}
	}
	ready := s.Written.Add(interval)
	if s.From.After(ready) {
		ready = s.From
	}
	clusters := slices.Sorted(maps.Keys(s.Weights))
	var requests []float64
	for _, c := range clusters {
		r := readings[c]
		switch {
		case r.At.IsZero():
			return fmt.Sprintf("no reading of %s's traffic yet", c), "", time.Time{}
		case !r.Known:
			return "", c + ": " + r.Reason, time.Time{}
		case r.At.Add(-r.Window).Before(ready):
			if !s.From.IsZero() {
				return fmt.Sprintf("waiting for a %s window from %s, after one with too few requests", r.Window, s.From.UTC().Format(time.RFC3339)),
					"", ready.Add(r.Window + interval)
			}
			return fmt.Sprintf("waiting for a %s window that starts %s after the route carried the weights", r.Window, interval),
				"", ready.Add(r.Window + interval)
		}
		requests = append(requests, max(r.Requests, 0))
	}
	s.Verdict, s.Note = settle(clusters, s.Weights, requests)
	if s.Verdict == SplitTooFewRequests {
		s.RetryAt = now.Add(SplitRetryIntervals * interval)
		return "", "", s.RetryAt
	}
	return "", "", time.Time{}
}

// settle compares each cluster's share of the requests with its share of the weights.
func settle(clusters []string, weights map[string]int32, requests []float64) (SplitVerdict, string) {
	var total float64
	var weightSum int64
	for i, c := range clusters {
		total += requests[i]
		weightSum += int64(weights[c])
	}
	if passivegate.Count(total) < SplitMinRequests {
		return SplitTooFewRequests, fmt.Sprintf("the split is not judged: %d request(s) over the window, fewer than %d (tried again in %d intervals)",
			passivegate.Count(total), SplitMinRequests, SplitRetryIntervals)
	}
	type share struct {
		cluster        string
		got, want, off float64
	}
	shares := make([]share, len(clusters))
	worst := 0.0
	for i, c := range clusters {
		got := 100 * requests[i] / total
		want := 100 * float64(weights[c]) / float64(weightSum)
		shares[i] = share{c, got, want, math.Abs(got - want)}
		worst = max(worst, shares[i].off)
	}
	// The clusters furthest off first, so that a capped message names them.
	slices.SortStableFunc(shares, func(a, b share) int { return cmp.Compare(b.off, a.off) })
	parts := make([]string, len(shares))
	for i, s := range shares {
		parts[i] = fmt.Sprintf("%s %.0f%% of requests for %.0f%% of the weight", s.cluster, s.got, s.want)
	}
	words := fmt.Sprintf("over %d request(s): %s", passivegate.Count(total), named(parts))
	if worst > SplitTolerance {
		return SplitMismatched, fmt.Sprintf("the split is off the weights by %.0f points (tolerance %d) %s", worst, SplitTolerance, words)
	}
	return SplitMatched, fmt.Sprintf("the split matches the weights within %d points %s", SplitTolerance, words)
}

// splitLine is the check's part of a message, "" when there is none.
func splitLine(s *Split, waiting string) string {
	switch {
	case s == nil:
		return ""
	case s.Settled() || s.Verdict == SplitMismatched:
		return s.Note
	case waiting != "":
		return "the split is not judged yet: " + waiting
	}
	return ""
}

// join puts the non-empty parts of a message together.
func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}
