package trafficmap

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// routableCondition decides the Routable condition from the finished entries, so that the
// condition can never disagree with the weights it describes: it is True exactly when some
// entry has a positive weight. The order in which its reasons win is set out once, in
// docs/concepts/how-it-decides.md (Routable); the comments below say only why each step is
// where it is.
func routableCondition(candidates int, policy omev1beta1.AllFailedPolicy, entries []omev1beta1.TrafficMapEntry) Condition {
	if len(entries) == 0 {
		if candidates <= 0 {
			return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonNotPlaced,
				"no workload cluster matches the placement"}
		}
		return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonNoAddressableHome,
			fmt.Sprintf("%d placed cluster(s) report no endpoint", candidates)}
	}

	// A home the operator refuses is not the probe's to judge: the all-failed question is
	// asked of the others (open), and the refusals are named in every message.
	var positive, ready, servable, gatedHomes, open, refusedServable int
	for _, e := range entries {
		if e.Weight > 0 {
			positive++
		}
		if e.Capacity.Ready > 0 {
			ready++
		}
		canServe := e.Capacity.Ready > 0 && e.Capacity.Allocated > 0
		if e.Refused != "" {
			if canServe {
				refusedServable++
			}
			continue
		}
		open++
		if canServe {
			servable++
		}
		if EntryGated(e) {
			gatedHomes++
		}
	}
	refusals := refusedNote(entries)

	note := ""
	if open > 0 && gatedHomes == open {
		// The gates explain the empty (or preserved) table only when lifting them would
		// restore traffic, that is when some home could serve. Otherwise the capacity
		// reason is the true cause, under either policy, and alerts keyed on the reason
		// must see it.
		preserve := policy == omev1beta1.AllFailedPreserveTraffic
		switch {
		case servable > 0 && !preserve:
			return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				fmt.Sprintf("%d home(s) have conclusive probe failures; all route weights are zero", open) + refusals}
		case servable > 0 && positive > 0:
			return Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonAllHomesProbeFailed,
				fmt.Sprintf("%d home(s) have conclusive probe failures; preserving traffic among homes with ready capacity", open) + refusals}
		case preserve:
			note = fmt.Sprintf(" (all %d home(s) also fail the probe; PreserveTraffic ignores the gates)", open)
		default:
			note = fmt.Sprintf(" (all %d home(s) also fail the probe)", open)
		}
	}

	switch {
	case positive > 0:
		return Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable,
			fmt.Sprintf("%d of %d home(s) take traffic", positive, len(entries)) + refusals}
	case refusedServable > 0:
		// A home that could serve is held back by the operator's own refusal: that, not
		// capacity, is what keeps the table empty, and what the alert must name.
		return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonEndpointRefused,
			fmt.Sprintf("no home takes traffic%s", note) + refusals}
	case ready == 0:
		return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonAllHomesUnready,
			fmt.Sprintf("none of %d home(s) has a ready replica", len(entries)) + note + refusals}
	default:
		return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonNoRoutableCapacity,
			"no home open to traffic has both allocated and ready replicas" + note + refusals}
	}
}

// maxRefusalsNamed is how many refused homes a Routable message names one by one.
const maxRefusalsNamed = 3

// refusedNote names the homes the operator refuses and why, to end a Routable message
// with; "" when there are none. The reasons name the setting to change.
func refusedNote(entries []omev1beta1.TrafficMapEntry) string {
	var named []string
	n := 0
	for _, e := range entries {
		if e.Refused == "" {
			continue
		}
		n++
		if len(named) < maxRefusalsNamed {
			named = append(named, e.Cluster+": "+e.Refused)
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(named) {
		more = fmt.Sprintf("; and %d more", n-len(named))
	}
	return fmt.Sprintf("; %d home(s) refused by the operator, with weight 0: %s%s", n, strings.Join(named, "; "), more)
}

// AfterDrains decides Routable again once manual drains have held some entries at 0.
// before is the condition Build gave the undrained table. A drain takes traffic away but
// never explains a table that was already empty, so a False condition stands as it is: the
// capacity, placement or probe reason is still what the user has to fix. When the drains
// zero a table that had traffic, the condition is False TrafficDrain, which therefore comes
// first among the reasons of an all-zero table that had weight. Otherwise only the count in
// the Routable message moves.
func AfterDrains(before Condition, entries []omev1beta1.TrafficMapEntry) Condition {
	if before.Status != metav1.ConditionTrue {
		return before
	}
	positive := 0
	for _, e := range entries {
		if e.Weight > 0 {
			positive++
		}
	}
	switch {
	case positive == 0:
		return Condition{metav1.ConditionFalse, omev1beta1.TrafficMapReasonTrafficDrain,
			fmt.Sprintf("manual traffic-drain overrides set all %d route arm(s) to zero", len(entries))}
	case before.Reason == omev1beta1.TrafficMapReasonRoutable:
		return Condition{metav1.ConditionTrue, omev1beta1.TrafficMapReasonRoutable,
			fmt.Sprintf("%d of %d home(s) take traffic", positive, len(entries)) + refusedNote(entries)}
	default:
		return before
	}
}
