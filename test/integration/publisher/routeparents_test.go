package publisher

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
)

// The gateway's own word on the route (its status.parents) is read back and shown in
// status.routeParents, judged against the route's generation. No gateway runs in this
// suite, so the spec writes the report as a gateway controller does, through the
// status subresource.
var _ = Describe("What the gateway reports on the route", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	// report writes the route's status.parents as a gateway controller would: Accepted and
	// ResolvedRefs for its one parent, at the route's generation less behind.
	report := func(ctx context.Context, s *service, accepted metav1.ConditionStatus, reason string, behind int64) {
		GinkgoHelper()
		Eventually(func(g Gomega) {
			route := s.route(g, "")
			g.Expect(route.Spec.ParentRefs).To(HaveLen(1))
			at := route.Generation - behind
			route.Status.Parents = []gatewayv1.RouteParentStatus{{
				ParentRef: route.Spec.ParentRefs[0], ControllerName: "example.com/gateway-controller",
				Conditions: []metav1.Condition{
					{Type: "Accepted", Status: accepted, Reason: reason, Message: "as the gateway says", ObservedGeneration: at, LastTransitionTime: metav1.Now()},
					{Type: "ResolvedRefs", Status: metav1.ConditionTrue, Reason: "ResolvedRefs", ObservedGeneration: at, LastTransitionTime: metav1.Now()},
				},
			}}
			g.Expect(fleet.ControlPlane.Client.Status().Update(ctx, route)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	}
	parents := func(g Gomega, s *service) []omev1beta1.RouteParentStatus { return s.trafficMap(g).Status.RouteParents }
	parent := gatewayNamespace + "/" + gatewayName

	It("shows the report, says when it speaks of an older route, and leaves Published and TrafficApplied to their own evidence", func(ctx context.Context) {
		s := newService(ctx, "reported", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(parents(Default, s)).To(BeEmpty(), "no gateway has reported")
		// The report names the route's generation: wait until the route carries the
		// map's settled weights, so that no rewrite of the first probe rounds makes it old.
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		By("the gateway accepts the route as it is")
		report(ctx, s, metav1.ConditionTrue, "Accepted", 0)
		Eventually(parents).WithArguments(s).WithTimeout(timeout).WithPolling(interval).Should(Equal([]omev1beta1.RouteParentStatus{
			{Parent: parent, Controller: "example.com/gateway-controller", Accepted: metav1.ConditionTrue, ResolvedRefs: metav1.ConditionTrue, Current: true},
		}))

		By("a gate rewrites the route: the report speaks of the generation before")
		route := s.route(Default, "")
		s.set("worker-b", modelserver.Unavailable)
		DeferCleanup(s.set, "worker-b", modelserver.Serve)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 0"}))
		now := s.route(Default, "").Generation
		Expect(now).To(BeNumerically(">", route.Generation))
		Eventually(parents).WithArguments(s).WithTimeout(timeout).WithPolling(interval).Should(ConsistOf(And(
			HaveField("Current", BeFalse()), HaveField("Accepted", metav1.ConditionTrue),
			HaveField("Message", ContainSubstring("the report speaks of generation %d of the route, which is at", route.Generation)))))
		Expect(s.condition(Default, omev1beta1.TrafficMapPublished)).To(Equal(publishedTrue), "the publisher's write, not the report, makes Published")

		By("the gateway refuses the route as it is now")
		report(ctx, s, metav1.ConditionFalse, "NotAllowedByListeners", 0)
		Eventually(parents).WithArguments(s).WithTimeout(timeout).WithPolling(interval).Should(Equal([]omev1beta1.RouteParentStatus{
			{Parent: parent, Controller: "example.com/gateway-controller", Accepted: metav1.ConditionFalse, ResolvedRefs: metav1.ConditionTrue, Current: true,
				Message: "Accepted False NotAllowedByListeners: as the gateway says"},
		}))
		Expect(s.condition(Default, omev1beta1.TrafficMapTrafficApplied)).To(HavePrefix("Unknown NotObserved: "),
			"a report is no evidence that traffic moved")
	})
})
