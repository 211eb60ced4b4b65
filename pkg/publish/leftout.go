package publish

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// maxConditionMessage is the longest condition message the API server takes.
const maxConditionMessage = 32768

// maxLeftOutMessage is the longest message of one left-out cluster: the CRD's maxLength.
const maxLeftOutMessage = 512

// maxLeftOutNamed is how many left-out clusters the RouteComplete message names.
const maxLeftOutNamed = 8

// SortedLeftOut is the left-out clusters sorted by name, each message within the CRD's
// bound, so that a status write does not change for the order a map happens to list them.
func SortedLeftOut(leftOut []omev1beta1.LeftOutCluster) []omev1beta1.LeftOutCluster {
	out := slices.Clone(leftOut)
	for i := range out {
		out[i].Message = text.Cap(out[i].Message, maxLeftOutMessage)
	}
	slices.SortFunc(out, func(a, b omev1beta1.LeftOutCluster) int { return cmp.Compare(a.Cluster, b.Cluster) })
	return out
}

// RouteCompleteCondition says whether the route carries every cluster of the map the
// publisher publishes: True when none is left out, False naming each one left out
// (sorted, at most eight, then how many more) and why.
func RouteCompleteCondition(leftOut []omev1beta1.LeftOutCluster, generation int64) metav1.Condition {
	c := metav1.Condition{Type: omev1beta1.TrafficMapRouteComplete, Status: metav1.ConditionTrue,
		Reason: string(omev1beta1.TrafficMapReasonAllClustersInRoute), Message: "The route holds a backend for every cluster of the TrafficMap",
		ObservedGeneration: generation}
	if len(leftOut) == 0 {
		return c
	}
	sorted := SortedLeftOut(leftOut)
	parts := make([]string, 0, min(len(sorted), maxLeftOutNamed)+1)
	for _, x := range sorted[:min(len(sorted), maxLeftOutNamed)] {
		parts = append(parts, fmt.Sprintf("%s %s: %s", x.Cluster, x.Reason, x.Message))
	}
	if more := len(sorted) - maxLeftOutNamed; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more (status.leftOutOfRoute)", more))
	}
	c.Status, c.Reason = metav1.ConditionFalse, string(omev1beta1.TrafficMapReasonClustersLeftOut)
	c.Message = text.Cap(fmt.Sprintf("The route leaves out %d cluster(s), which get no traffic through it: %s",
		len(sorted), strings.Join(parts, " | ")), maxConditionMessage)
	return c
}

// NoBackendsConditions are the Published and PublicationFallback conditions of a route
// written with no backend at all: Published is False, since the gateway sends the
// service's requests nowhere, and its message says why the route is empty.
func NoBackendsConditions(entries, leftOut int, generation int64) []metav1.Condition {
	why := "the TrafficMap has no entry to publish"
	switch {
	case leftOut > 0 && leftOut == entries:
		why = "the publisher leaves out every cluster of the TrafficMap (see RouteComplete)"
	case leftOut > 0:
		why = "the publisher leaves out every cluster it could publish (see RouteComplete); the others are refused by the operator"
	case entries > 0:
		why = "the operator refuses every cluster of the TrafficMap (see each entry's refused)"
	}
	conditions := Conditions(omev1beta1.TrafficMapReasonNoBackends, generation)
	conditions[0].Message = fmt.Sprintf("TrafficMap publisher %q wrote a route with no backend: %s", PublisherName, why)
	conditions[1].Status, conditions[1].Reason, conditions[1].Message = metav1.ConditionFalse,
		string(omev1beta1.TrafficMapReasonUnsupported), "The selected publisher does not retain publication plans"
	return conditions
}
