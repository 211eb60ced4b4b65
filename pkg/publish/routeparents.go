package publish

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// What a gateway says of a route is read back and shown beside the map, never taken as
// proof: gateways under-report (some write no route status at all) and can accept a
// route they then fail to program. TrafficApplied, on the gateway's own counters, is the
// evidence; the parents' status is what a person compares it with.

// MaxRouteParents is how many reports the map shows: the CRD's maxItems. The publisher's
// route has one parentRef, which more than one gateway controller may report on; the
// bound keeps the map within etcd's limit at its maxima (test/crdsize).
const MaxRouteParents = 4

// maxRouteParentMessage is the CRD's maxLength for a report's message.
const maxRouteParentMessage = 256

// maxRouteParent is the CRD's maxLength for a report's parent.
const maxRouteParent = 512

// RouteParents is what the gateways report on route (its status.parents), sorted by
// parent, each judged against the route's generation: a report that speaks of an older
// one (the publisher has just written the route, or the gateway lags) is not current.
func RouteParents(route *gatewayv1.HTTPRoute) []omev1beta1.RouteParentStatus {
	if route == nil {
		return nil
	}
	var out []omev1beta1.RouteParentStatus
	for _, p := range route.Status.Parents {
		out = append(out, routeParent(p, route.Namespace, route.Generation))
	}
	slices.SortStableFunc(out, func(a, b omev1beta1.RouteParentStatus) int {
		return cmp.Or(cmp.Compare(a.Parent, b.Parent), cmp.Compare(a.Controller, b.Controller))
	})
	if len(out) > MaxRouteParents {
		out = out[:MaxRouteParents]
	}
	return out
}

func routeParent(p gatewayv1.RouteParentStatus, routeNamespace string, generation int64) omev1beta1.RouteParentStatus {
	out := omev1beta1.RouteParentStatus{Parent: text.Cap(parentName(p.ParentRef, routeNamespace), maxRouteParent),
		Controller: text.Cap(string(p.ControllerName), 253)}
	accepted := meta.FindStatusCondition(p.Conditions, string(gatewayv1.RouteConditionAccepted))
	resolved := meta.FindStatusCondition(p.Conditions, string(gatewayv1.RouteConditionResolvedRefs))
	out.Accepted, out.ResolvedRefs = statusOf(accepted), statusOf(resolved)
	out.Current = accepted != nil && resolved != nil &&
		accepted.ObservedGeneration == generation && resolved.ObservedGeneration == generation
	switch {
	case accepted != nil && accepted.Status != metav1.ConditionTrue:
		out.Message = conditionWords(accepted)
	case resolved != nil && resolved.Status != metav1.ConditionTrue:
		out.Message = conditionWords(resolved)
	case accepted == nil || resolved == nil:
		out.Message = "the gateway reports no Accepted or no ResolvedRefs condition"
	case !out.Current:
		out.Message = fmt.Sprintf("the report speaks of generation %d of the route, which is at %d",
			min(accepted.ObservedGeneration, resolved.ObservedGeneration), generation)
	}
	out.Message = text.Cap(out.Message, maxRouteParentMessage)
	return out
}

// parentName is namespace/name of a parentRef (the route's namespace when it names none),
// with #section when it names a listener.
func parentName(ref gatewayv1.ParentReference, routeNamespace string) string {
	ns := routeNamespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	name := ns + "/" + string(ref.Name)
	if ref.SectionName != nil && *ref.SectionName != "" {
		name += "#" + string(*ref.SectionName)
	}
	return name
}

func statusOf(c *metav1.Condition) metav1.ConditionStatus {
	if c == nil || (c.Status != metav1.ConditionTrue && c.Status != metav1.ConditionFalse) {
		return metav1.ConditionUnknown
	}
	return c.Status
}

func conditionWords(c *metav1.Condition) string {
	words := c.Type + " " + string(c.Status) + " " + c.Reason
	if c.Message != "" {
		words += ": " + c.Message
	}
	return words
}
