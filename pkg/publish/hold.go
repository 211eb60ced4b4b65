package publish

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// A route that sends nothing makes the global gateway answer every request for the
// service with an error. The publisher writes one over a route that sends traffic only
// when that is what someone asked for: the map's own weights are all 0 (drains, no ready
// replica, refusals, a Drain probe), or its probe's allFailedPolicy is Drain. Otherwise
// an empty map, or a map whose every weighted entry the publish guard leaves out, is taken
// for what it most likely is, the control plane not seeing (an outage of the members' API
// servers, of the publisher's resolver), and the route stays as last published: the same
// reasoning as PreserveTraffic's, which keeps traffic on homes that may well be serving.

// HoldInput is what deciding to keep a route as last published looks at.
type HoldInput struct {
	// Map is the TrafficMap as the routing reconciler wrote it, before the publish guard.
	Map *omev1beta1.TrafficMap
	// Plan is the plan that would be written instead.
	Plan Plan
	// Standing is how many backendRefs of the route as it stands send traffic (a positive
	// weight, to a backend of the publisher's that exists).
	Standing int
	// StandingRefused says why the publish guard now refuses a host the standing route
	// sends to, on an answer (not a failed lookup); empty when it refuses none. A route is
	// never kept for the sake of a host the guard refuses.
	StandingRefused string
}

// SendsTraffic says whether some backend of the plan has a positive weight.
func (p Plan) SendsTraffic() bool { return p.Sending() > 0 }

// Sending counts the plan's backends with a positive weight.
func (p Plan) Sending() int {
	n := 0
	for _, b := range p.Backends {
		if b.Weight > 0 {
			n++
		}
	}
	return n
}

// HoldCandidate says whether a plan may be one to hold back, from the map and the plan
// alone, so that the publisher reads the standing route only then: the map's policy is
// not Drain and the plan sends nothing.
func HoldCandidate(tm *omev1beta1.TrafficMap, plan Plan) bool {
	return tm.Spec.AllFailedPolicy != omev1beta1.AllFailedDrain && !plan.SendsTraffic()
}

// HoldBecause says why the route is to stay as last published instead of in.Plan, or ""
// when the plan is to be written.
func HoldBecause(in HoldInput) string {
	if !HoldCandidate(in.Map, in.Plan) || in.Standing == 0 || in.StandingRefused != "" {
		return ""
	}
	if len(in.Map.Spec.Entries) == 0 {
		return "the TrafficMap has no entries"
	}
	inPlan := map[string]bool{}
	for _, b := range in.Plan.Backends {
		inPlan[b.Cluster] = true
	}
	var left []string
	for _, e := range in.Map.Spec.Entries {
		if e.Weight > 0 && e.Refused == "" && !inPlan[e.Cluster] {
			left = append(left, e.Cluster)
		}
	}
	if len(left) == 0 {
		// The map itself gives every entry weight 0: that is its decision, written as it is.
		return ""
	}
	return fmt.Sprintf("the publish guard leaves every entry with weight out of the route (%s; see the BackendRefused events)",
		strings.Join(left, ", "))
}

// HoldMessage is the Published condition's message, and the event's note, for a route
// kept as last published because of because.
func HoldMessage(tm *omev1beta1.TrafficMap, standing int, because string) string {
	policy := "no probe applies to the service"
	if p := tm.Spec.AllFailedPolicy; p != "" {
		policy = "the service's is " + string(p)
	}
	return fmt.Sprintf("TrafficMap publisher %q keeps the route as last published, with %d backend(s) that take traffic, "+
		"instead of one that sends nothing: %s; only allFailedPolicy Drain lets a route that sends traffic be replaced by one that sends none (%s)",
		PublisherName, standing, because, policy)
}

// HeldConditions are the Published and PublicationFallback conditions of a route kept as
// last published, message saying why (HoldMessage).
func HeldConditions(message string, generation int64) []metav1.Condition {
	return []metav1.Condition{
		{Type: omev1beta1.TrafficMapPublished, Status: metav1.ConditionFalse, Reason: string(omev1beta1.TrafficMapReasonLastPositiveRetained),
			Message: message, ObservedGeneration: generation},
		{Type: omev1beta1.TrafficMapPublicationFallback, Status: metav1.ConditionTrue, Reason: string(omev1beta1.TrafficMapReasonLastPositiveRetained),
			Message: "The route stays as last published, with traffic, in place of the current plan, which sends none", ObservedGeneration: generation},
	}
}
