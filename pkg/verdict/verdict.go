package verdict

import (
	"fmt"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Counters is what the gateway's own counters (the traffic signal, as TrafficApplied
// reads them) say of a home the route holds at weight 0.
type Counters int

const (
	// CountersUnconfirmed means nothing confirms yet that the gateway stopped sending the home
	// requests (no traffic signal, a reading pending or unknown, or a home not at 0).
	CountersUnconfirmed Counters = iota
	// CountersMoved means a whole window after the route carried the 0 shows no request.
	CountersMoved
	// CountersStillServed means the gateway still sends the home requests an interval after the
	// route carried its 0.
	CountersStillServed
)

// Home is what the operator knows of one home.
type Home struct {
	Weight       int32
	WeightReason omev1beta1.WeightReason
	// LeftOut is the publisher's word that its route leaves the home out; nil when the
	// route carries it.
	LeftOut *omev1beta1.LeftOutCluster
	// Published is true while the publisher says a route carries the map (Published True).
	Published bool
	// Unobserved is true while the control plane cannot read the home's member.
	Unobserved bool
	Counters   Counters
}

// Verdict is a home's serving state, the reason that goes with it (the weight reason, or
// for LeftOutOfRoute the reason the route leaves it out), and a sentence.
type Verdict struct {
	State   omev1beta1.ServingState
	Reason  string
	Message string
}

// Judge is the one judgement of a home's serving state. The order is the order in which
// the states win: what the gateway is seen doing beats what the map intends, a route that
// leaves the home out beats its weight, and a home with weight whose member cannot be read
// says so before anything else about its traffic.
func Judge(h Home) Verdict {
	state := omev1beta1.ServingStateServing
	switch {
	case h.Weight == 0 && h.Counters == CountersStillServed:
		state = omev1beta1.ServingStateStillServedAtZero
	case h.LeftOut != nil && h.Weight > 0:
		state = omev1beta1.ServingStateLeftOutOfRoute
	case h.Weight == 0 && h.Counters == CountersMoved:
		state = omev1beta1.ServingStateHeldOut
	case h.Weight == 0:
		state = omev1beta1.ServingStateHeldOutUnconfirmed
	case !h.Published:
		state = omev1beta1.ServingStateUnknown
	case h.Unobserved:
		state = omev1beta1.ServingStateUnobserved
	}
	var leftOut omev1beta1.LeftOutReason
	if h.LeftOut != nil {
		leftOut = h.LeftOut.Reason
	}
	reason := Reason(state, h.WeightReason, leftOut)
	return Verdict{State: state, Reason: reason, Message: Message(state, reason)}
}

// Reason is the reason a view shows next to a state: the reason the route leaves the home
// out for LeftOutOfRoute, else the entry's weight reason ("" when it has none).
func Reason(state omev1beta1.ServingState, weight omev1beta1.WeightReason, leftOut omev1beta1.LeftOutReason) string {
	if state == omev1beta1.ServingStateLeftOutOfRoute {
		return string(leftOut)
	}
	return string(weight)
}

// Message is the sentence every view prints for a state and its reason. It says which
// states the operator only infers.
func Message(state omev1beta1.ServingState, reason string) string {
	by := ""
	if reason != "" {
		by = " (" + reason + ")"
	}
	switch state {
	case omev1beta1.ServingStateServing:
		return "takes traffic: the route sends it requests at its weight" + by
	case omev1beta1.ServingStateHeldOut:
		return "held out" + by + ": the route holds it at 0, and the gateway's counters confirm it gets no request"
	case omev1beta1.ServingStateHeldOutUnconfirmed:
		return "held out" + by + ": the route holds it at 0; the gateway's counters have not confirmed it yet"
	case omev1beta1.ServingStateStillServedAtZero:
		return "still takes traffic: the map holds it at 0" + by +
			", but the gateway's counters show it still gets requests, so the gateway does not follow the route (a lost update)"
	case omev1beta1.ServingStateLeftOutOfRoute:
		return "takes no traffic: the route leaves it out" + by + ", whatever its weight in the map"
	case omev1beta1.ServingStateUnobserved:
		return "takes traffic unobserved: the control plane cannot read its member, so it keeps its last known capacity while its probe passes"
	case omev1beta1.ServingStateUnknown:
		return "unknown: the map gives it a weight" + by + ", but the publisher has not said that a route carries the map"
	}
	return fmt.Sprintf("no serving state recorded (%q)", string(state))
}

// TakesTraffic says whether a home in the state gets requests: what the Routable message
// and servingHomes count.
func TakesTraffic(state omev1beta1.ServingState) bool {
	switch state {
	case omev1beta1.ServingStateServing, omev1beta1.ServingStateUnobserved, omev1beta1.ServingStateStillServedAtZero:
		return true
	}
	return false
}

// Stale is the state a view that can tell the verdict's age shows over one that may no
// longer hold: the manager stopped, lags, or keeps the map frozen. It is never written.
const Stale = "Stale"

// Unrecorded is what a view shows for an entry without a serving state (a manager that
// judges none, or one that has not judged the home yet).
const Unrecorded = string(omev1beta1.ServingStateUnknown)

// Seen is the state a view shows: the written one, or Stale when the view judged the map
// stale (staleReason says why).
func Seen(written omev1beta1.ServingState, staleReason string) string {
	switch {
	case staleReason != "":
		return Stale
	case written == "":
		return Unrecorded
	}
	return string(written)
}

// States are every serving state, in the order the reference lists them.
var States = []omev1beta1.ServingState{
	omev1beta1.ServingStateServing,
	omev1beta1.ServingStateHeldOut,
	omev1beta1.ServingStateHeldOutUnconfirmed,
	omev1beta1.ServingStateStillServedAtZero,
	omev1beta1.ServingStateLeftOutOfRoute,
	omev1beta1.ServingStateUnobserved,
	omev1beta1.ServingStateUnknown,
}
