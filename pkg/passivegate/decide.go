package passivegate

import (
	"cmp"
	"slices"
	"time"
)

// Reading is what the traffic signal saw of one cluster over one window.
type Reading struct {
	// Known is false when the signal could not be read, was empty or was older than its
	// window; Reason then says why, and the reading moves nothing.
	Known    bool
	Reason   string
	Requests float64
	Failures float64
	Window   time.Duration
	// At is when the reading was asked for: it covers the window up to At. Zero before the
	// first reading.
	At time.Time
}

// failedPercent is the share of failed requests in percent; 0 without requests.
func (r Reading) failedPercent() float64 {
	if r.Requests <= 0 {
		return 0
	}
	return 100 * min(r.Failures, r.Requests) / r.Requests
}

// State is one cluster's passive gate, as the TrafficMap entry records it.
type State struct {
	// Gated is the gate the readings set, whatever the mode: a Shadow policy records it as
	// wouldGate.
	Gated bool
	// Since is when the current gate closed; Until is the earliest it lifts.
	Since time.Time
	Until time.Time
	// Count is how many passive gates came in a row: the ejection time's multiplier.
	Count int32
	// LastLift is when the gate last lifted.
	LastLift time.Time
	// Requests and FailedPercent are the reading that closed the gate, for its message.
	Requests      float64
	FailedPercent float64
}

// Home is one cluster of a service as Decide sees it.
type Home struct {
	Cluster string
	// Capacity is the cluster's servable capacity, in the units its weight is computed
	// from; the cap compares the gated clusters' sum with the service's.
	Capacity int64
	Reading  Reading
	// ProbePassing says whether the cluster's probe passes now (its last counted result
	// is Passing and it holds no probe gate): a passive gate lifts only then.
	ProbePassing bool
	State        State
}

// Transition is what a decision did to a cluster's passive gate.
type Transition string

// The transitions: none, a gate that closed, a gate that lifted.
const (
	NoChange Transition = ""
	Gated    Transition = "Gated"
	Lifted   Transition = "Lifted"
)

// Decision is one cluster's next passive-gate state and why.
type Decision struct {
	Cluster    string
	State      State
	Transition Transition
	// Capped means the reading would have gated the cluster, but the cap left it in
	// traffic.
	Capped bool
	// Message says what the gate is doing, for the entry's weightReason message or an
	// event; empty when there is nothing to say (a healthy cluster).
	Message string
}

// Decide moves every cluster's passive gate one step at now. Clusters are returned in the
// order given. Held gates are counted first against the cap; new gates then go to the
// clusters failing the most (by name among equals) for as long as the cap allows.
func Decide(p Policy, homes []Home, now time.Time) []Decision {
	out := make([]Decision, len(homes))
	size := capacities(homes)
	var total, held int64
	for _, c := range size {
		total += c
	}
	var candidates []int
	for i, h := range homes {
		d := Decision{Cluster: h.Cluster, State: h.State}
		s := &d.State
		if s.Gated {
			if !now.Before(s.Until) && h.ProbePassing {
				s.Gated, s.LastLift, d.Transition = false, now, Lifted
				d.Message = liftedMessage(*s)
			} else {
				held += size[i]
				d.Message = heldMessage(*s, now, h.ProbePassing)
			}
			out[i] = d
			continue
		}
		if s.Count > 0 && !s.LastLift.IsZero() && now.Sub(s.LastLift) >= p.ResetAfter {
			s.Count = 0
		}
		if fails(p, h.Reading) {
			candidates = append(candidates, i)
		}
		out[i] = d
	}
	slices.SortStableFunc(candidates, func(a, b int) int {
		if c := cmp.Compare(homes[b].Reading.failedPercent(), homes[a].Reading.failedPercent()); c != 0 {
			return c
		}
		return cmp.Compare(homes[a].Cluster, homes[b].Cluster)
	})
	for _, i := range candidates {
		h, d := homes[i], &out[i]
		if !withinCap(p, total, held+size[i]) {
			d.Capped = true
			d.Message = cappedMessage(p, h.Reading, held, total)
			continue
		}
		held += size[i]
		s := &d.State
		// A cluster gated again and again stops counting at the schema's maximum; its
		// ejection time reached maxEjectionTime long before.
		s.Count = min(s.Count+1, MaxGatesInARow)
		s.Gated, s.Since, s.Until = true, now, now.Add(p.ejectionTime(s.Count))
		s.Requests, s.FailedPercent = h.Reading.Requests, h.Reading.failedPercent()
		d.Transition = Gated
		d.Message = gatedMessage(p, h.Reading, *s)
	}
	return out
}

// Fails says whether a reading is one the policy gates on: Known, over the minimum volume,
// and at or over the threshold.
func (p Policy) Fails(r Reading) bool { return fails(p, r) }

// fails says whether a reading is one the policy gates on.
func fails(p Policy, r Reading) bool {
	return r.Known && r.Requests >= float64(p.MinRequests) && r.Requests > 0 &&
		r.failedPercent() >= float64(p.FailurePercent)
}

// withinCap says whether holding out gated of total capacity keeps within the cap.
func withinCap(p Policy, total, gated int64) bool {
	return total > 0 && gated*100 <= total*int64(p.MaxEjectionPercent)
}

// capacities is each home's share in the cap's sums: its capacity, or 1 each when no
// home has a capacity yet (a service whose replicas nobody has reported still has a cap).
func capacities(homes []Home) []int64 {
	out := make([]int64, len(homes))
	var total int64
	for i, h := range homes {
		out[i] = max(h.Capacity, 0)
		total += out[i]
	}
	if total == 0 {
		for i := range out {
			out[i] = 1
		}
	}
	return out
}
