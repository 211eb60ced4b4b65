package publish

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

func parentReport(ref gatewayv1.ParentReference, conditions ...metav1.Condition) gatewayv1.RouteParentStatus {
	return gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: "example.com/gw", Conditions: conditions}
}

func cond(t string, s metav1.ConditionStatus, gen int64) metav1.Condition {
	return metav1.Condition{Type: t, Status: s, Reason: t + "Reason", Message: "said", ObservedGeneration: gen}
}

// Each parent's report reads as its two conditions, current only when both speak of the
// route's generation, with the words of the first that is not True; sorted by parent, the
// first MaxRouteParents kept.
func TestRouteParents(t *testing.T) {
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "routes", Generation: 4}}
	route.Status.Parents = []gatewayv1.RouteParentStatus{
		parentReport(gatewayv1.ParentReference{Name: "z-gw"}, cond("Accepted", metav1.ConditionTrue, 4), cond("ResolvedRefs", metav1.ConditionTrue, 4)),
		parentReport(gatewayv1.ParentReference{Name: "old", Namespace: ptr.To[gatewayv1.Namespace]("edge")},
			cond("Accepted", metav1.ConditionTrue, 3), cond("ResolvedRefs", metav1.ConditionTrue, 4)),
		parentReport(gatewayv1.ParentReference{Name: "refused", Namespace: ptr.To[gatewayv1.Namespace]("edge"), SectionName: ptr.To[gatewayv1.SectionName]("https")},
			cond("Accepted", metav1.ConditionFalse, 4), cond("ResolvedRefs", metav1.ConditionFalse, 4)),
		parentReport(gatewayv1.ParentReference{Name: "unresolved", Namespace: ptr.To[gatewayv1.Namespace]("edge")},
			cond("Accepted", metav1.ConditionTrue, 4), cond("ResolvedRefs", metav1.ConditionFalse, 4)),
		parentReport(gatewayv1.ParentReference{Name: "silent", Namespace: ptr.To[gatewayv1.Namespace]("edge")},
			cond("Accepted", "Maybe", 4)),
	}
	want := []omev1beta1.RouteParentStatus{
		{Parent: "edge/old", Controller: "example.com/gw", Accepted: "True", ResolvedRefs: "True",
			Message: "the report speaks of generation 3 of the route, which is at 4"},
		{Parent: "edge/refused#https", Controller: "example.com/gw", Accepted: "False", ResolvedRefs: "False", Current: true,
			Message: "Accepted False AcceptedReason: said"},
		{Parent: "edge/silent", Controller: "example.com/gw", Accepted: "Unknown", ResolvedRefs: "Unknown",
			Message: "Accepted Maybe AcceptedReason: said"},
		{Parent: "edge/unresolved", Controller: "example.com/gw", Accepted: "True", ResolvedRefs: "False", Current: true,
			Message: "ResolvedRefs False ResolvedRefsReason: said"},
		// routes/z-gw, a fifth, is past MaxRouteParents by name.
	}
	if diff := cmp.Diff(want, RouteParents(route)); diff != "" {
		t.Fatalf("RouteParents (-want +got):\n%s", diff)
	}
	route.Status.Parents = route.Status.Parents[:1]
	if got := RouteParents(route); len(got) != 1 || got[0].Parent != "routes/z-gw" || !got[0].Current || got[0].Message != "" {
		t.Fatalf("an accepted report at the route's generation: %+v", got)
	}
	if got := RouteParents(&gatewayv1.HTTPRoute{}); got != nil {
		t.Fatalf("a route no gateway reports on: %+v", got)
	}
}

// A report missing a condition is never current, and a gateway's long message is cut to
// the CRD's bound; more parents than the CRD holds are cut to the first by name.
func TestRouteParentsBounds(t *testing.T) {
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "r", Generation: 1}}
	long := cond("Accepted", metav1.ConditionFalse, 1)
	long.Message = strings.Repeat("x", 4096)
	route.Status.Parents = append(route.Status.Parents,
		parentReport(gatewayv1.ParentReference{Name: "a"}, cond("Accepted", metav1.ConditionTrue, 1)),
		parentReport(gatewayv1.ParentReference{Name: "b"}, long, cond("ResolvedRefs", metav1.ConditionTrue, 1)))
	for i := range 10 {
		route.Status.Parents = append(route.Status.Parents, parentReport(gatewayv1.ParentReference{Name: gatewayv1.ObjectName("p" + string(rune('a'+i%26)) + string(rune('a'+i/26)))}))
	}
	got := RouteParents(route)
	if len(got) != MaxRouteParents || got[0].Parent != "r/a" || got[1].Parent != "r/b" {
		t.Fatalf("got %d parents starting %+v", len(got), got[:2])
	}
	if got[0].Current || got[0].Message != "the gateway reports no Accepted or no ResolvedRefs condition" {
		t.Fatalf("a report without ResolvedRefs: %+v", got[0])
	}
	if len(got[1].Message) > maxRouteParentMessage {
		t.Fatalf("a message of %d bytes", len(got[1].Message))
	}
}
