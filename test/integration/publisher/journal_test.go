package publisher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// holdFinalizer stands for a gateway implementation's finalizer on a route: it keeps a
// deleted route in place, so a spec can see what the route carried when it was deleted.
const holdFinalizer = "example.com/hold"

var _ = Describe("The publisher's journal (status.publisher)", func() {
	It("records the route it claims, the options' digest and the last publication that sent traffic", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "journal", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))

		sum := sha256.Sum256([]byte(`{"version":"v1","publisher":"gatewayapi","options":{}}`))
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			j := tm.Status.Publisher
			g.Expect(j).NotTo(BeNil())
			g.Expect(j.PublisherName).To(Equal("gatewayapi"))
			g.Expect(j.ClaimedTargets).To(Equal([]string{"v1:httproute:" + s.routeKey("").String()}))
			g.Expect(j.ObservedOptionsDigest).To(Equal("sha256:" + hex.EncodeToString(sum[:])))
			g.Expect(j.LastPositive).NotTo(BeNil())
			g.Expect(j.LastPositive.Targets).To(Equal([]omev1beta1.TrafficMapPublisherTarget{
				{Target: "v1:cluster:worker-a", Weight: 1}, {Target: "v1:cluster:worker-b", Weight: 1}}))
			g.Expect(j.LastPositive.TrafficMapGeneration).To(And(BeNumerically(">", 0), BeNumerically("<=", tm.Status.ObservedTrafficMapGeneration)))
			g.Expect(j.LastPositive.ObservedISVCGeneration).To(Equal(tm.Spec.ObservedISVCGeneration))
			g.Expect(j.LastPositive.PlanCompatibilityDigest).To(MatchRegexp(`^sha256:[0-9a-f]{64}$`))
			g.Expect(j.AcknowledgedPlacementPlanID).To(And(MatchRegexp(`^sha256:[0-9a-f]{64}$`), Equal(tm.Spec.PlacementPlanID)))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})

	It("acknowledges a placement plan once the route carries it: a home the plan dropped is out of the route by then", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "acknowledged", nil, nil)
		var before string
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Spec.Entries).To(HaveLen(2))
			g.Expect(tm.Status.Publisher).NotTo(BeNil())
			g.Expect(tm.Status.Publisher.AcknowledgedPlacementPlanID).To(Equal(tm.Spec.PlacementPlanID))
			before = tm.Spec.PlacementPlanID
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		// worker-b's copy goes: the placement has one home less.
		Expect(fleet.Workers["worker-b"].Client.Delete(ctx, &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{
			Namespace: s.key.Namespace, Name: s.key.Name}})).To(Succeed())
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Spec.PlacementPlanID).NotTo(Equal(before), "the plan follows the homes")
			g.Expect(tm.Status.Publisher.AcknowledgedPlacementPlanID).To(Equal(tm.Spec.PlacementPlanID))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Expect(backendWeights(s.route(Default, ""))).To(HaveLen(1), "an acknowledged plan is what the route carries")
	})

	It("drains the route it leaves at an old key to weight 0 before deleting it", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "leaving", nil, nil)
		s.publishedWithBoth()
		old := s.routeKey("")
		holdRoute(ctx, old)

		routes := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "journal-routes-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, routes)).To(Succeed())
		ep := guideEndpoint()
		ep.RouteNamespace = routes.Name
		useManager(ep, config.Publisher{})
		moved := s.routeKey(routes.Name)
		Eventually(func(g Gomega) {
			r := &gatewayv1.HTTPRoute{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, old, r)).To(Succeed())
			g.Expect(r.DeletionTimestamp).NotTo(BeNil(), "the old route is deleted")
			g.Expect(backendWeights(r)).To(HaveEach(int32(0)), "and was drained first")
			g.Expect(s.trafficMap(g).Status.Publisher.ClaimedTargets).To(Equal([]string{"v1:httproute:" + moved.String()}))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(func(g Gomega) []int32 { return backendWeights(s.route(g, routes.Name)) }).WithTimeout(timeout).WithPolling(interval).
			Should(Equal([]int32{1, 1}), "the route at the new key carries the traffic")
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))
	})

	It("is DrainFailed while the route it leaves cannot be drained, and drains it once it can", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "undrainable", nil, nil)
		s.publishedWithBoth()
		old := s.routeKey("")
		const reason = "this route may not change in this test"
		lift := refuseRoutes(ctx, "ome-test-undrainable-route", []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
			fmt.Sprintf("object.metadata.name != '%s'", old.Name), reason)
		Eventually(func() error {
			r := s.route(Default, "")
			before := r.DeepCopy()
			r.Labels["example.com/touched"] = "true"
			return fleet.ControlPlane.Client.Patch(ctx, r, client.MergeFrom(before), client.DryRunAll)
		}).WithTimeout(timeout).WithPolling(interval).Should(MatchError(ContainSubstring(reason)))

		routes := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "journal-routes-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, routes)).To(Succeed())
		ep := guideEndpoint()
		ep.RouteNamespace = routes.Name
		useManager(ep, config.Publisher{})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(
			Equal("False DrainFailed: Publisher could not drain stale targets"))
		Eventually(mapEvents).WithArguments(s.key, "DrainFailed").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(And(
			HavePrefix("set HTTPRoute "+old.String()+" to weight 0: "), ContainSubstring(reason))))
		Expect(backendWeights(s.route(Default, ""))).To(Equal([]int32{1, 1}), "the old route stands as it was")
		Expect(s.trafficMap(Default).Status.Publisher.ClaimedTargets).To(ConsistOf(
			"v1:httproute:"+old.String(), "v1:httproute:"+s.routeKey(routes.Name).String()), "both routes stay claimed")

		lift(ctx)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(func() error {
			return fleet.ControlPlane.Client.Get(ctx, old, &gatewayv1.HTTPRoute{})
		}).WithTimeout(timeout).WithPolling(interval).Should(Satisfy(apierrors.IsNotFound))
		Expect(s.trafficMap(Default).Status.Publisher.ClaimedTargets).To(Equal([]string{"v1:httproute:" + s.routeKey(routes.Name).String()}))
	})

	It("drains a withdrawn route to weight 0 before deleting it", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "withdrawing", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		holdRoute(ctx, s.routeKey(""))

		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{Enabled: ptr.To(false)}
		})
		Eventually(func(g Gomega) {
			r := &gatewayv1.HTTPRoute{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, s.routeKey(""), r)).To(Succeed())
			g.Expect(r.DeletionTimestamp).NotTo(BeNil())
			g.Expect(backendWeights(r)).To(HaveEach(int32(0)))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})

	It("refuses a route another map's journal claims, and publishes it once that claim is gone", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "claimed-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		key := client.ObjectKey{Namespace: ns.Name, Name: "claimed"}
		target := "v1:httproute:" + ns.Name + "/" + publish.RouteName(ns.Name, "claimed", "")
		// A map no service owns, whose journal claims the route: what an older publisher
		// leaves when its service's map was recreated under another name.
		squatter := &omev1beta1.TrafficMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "squatter"},
			Spec:       omev1beta1.TrafficMapSpec{Service: "squatter"},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, squatter)).To(Succeed())
		// The publisher writes the squatter's status too (Unpublished: it has no service).
		Eventually(func(g Gomega) {
			g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKeyFromObject(squatter), squatter)).To(Succeed())
			squatter.Status.Publisher = &omev1beta1.TrafficMapPublisherStatus{PublisherName: "gatewayapi", ClaimedTargets: []string{target}}
			g.Expect(fleet.ControlPlane.Client.Status().Update(ctx, squatter)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		s := newServiceAt(ctx, key, nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(claimRejected))
		Eventually(mapEvents).WithArguments(key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(
			fmt.Sprintf("publisher target %q is already claimed by TrafficMap %s/squatter", target, ns.Name)))
		Expect(fleet.ControlPlane.Client.Get(ctx, s.routeKey(""), &gatewayv1.HTTPRoute{})).NotTo(Succeed(), "nothing is written under a refused claim")

		Expect(fleet.ControlPlane.Client.Delete(ctx, squatter)).To(Succeed())
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
	})

	It("leaves the route alone while the journal holds another publisher's claims", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "changed", nil, nil)
		s.publishedWithBoth()
		Eventually(func(g Gomega) { g.Expect(s.trafficMap(g).Status.Publisher).NotTo(BeNil()) }).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		// A status write of the publisher's that was under way when the journal was edited
		// can put its own name back: edit it again until the publisher has read the edit.
		Eventually(func(g Gomega) {
			if s.trafficMap(g).Status.Publisher.PublisherName != "legacy" {
				setJournalPublisher(ctx, s.key, "legacy")
			}
			g.Expect(s.condition(g, "Published")).To(Equal("False PublisherChanged: Publisher journal does not match the selected publisher"))
		}).WithTimeout(timeout).WithPolling(time.Second).Should(Succeed())
		Eventually(mapEvents).WithArguments(s.key, "PublisherChanged").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(
			fmt.Sprintf(`TrafficMap %s retains claims for publisher "legacy" while publisher "gatewayapi" is selected`, s.key)))
		Expect(backendWeights(s.route(Default, ""))).To(Equal([]int32{1, 1}), "the other publisher's route is not touched")

		setJournalPublisher(ctx, s.key, "gatewayapi")
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
	})
})

// holdRoute puts holdFinalizer on the route at key, and takes it off when the spec ends.
func holdRoute(ctx context.Context, key types.NamespacedName) {
	Eventually(func(g Gomega) {
		r := &gatewayv1.HTTPRoute{}
		g.Expect(fleet.ControlPlane.Client.Get(ctx, key, r)).To(Succeed())
		controllerutil.AddFinalizer(r, holdFinalizer)
		g.Expect(fleet.ControlPlane.Client.Update(ctx, r)).To(Succeed())
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Eventually(func(g Gomega) {
			r := &gatewayv1.HTTPRoute{}
			err := fleet.ControlPlane.Client.Get(ctx, key, r)
			if client.IgnoreNotFound(err) == nil && err != nil {
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			controllerutil.RemoveFinalizer(r, holdFinalizer)
			g.Expect(fleet.ControlPlane.Client.Update(ctx, r)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})
}

// backendWeights are the weights of a route's backendRefs, in order.
func backendWeights(r *gatewayv1.HTTPRoute) []int32 {
	var out []int32
	for _, rule := range r.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			w := int32(1)
			if ref.Weight != nil {
				w = *ref.Weight
			}
			out = append(out, w)
		}
	}
	return out
}

// setJournalPublisher writes publisherName into the map's journal, as another publisher
// that had claimed the map's route would have left it.
func setJournalPublisher(ctx context.Context, key types.NamespacedName, name string) {
	Eventually(func(g Gomega) {
		tm := &omev1beta1.TrafficMap{}
		g.Expect(fleet.ControlPlane.Client.Get(ctx, key, tm)).To(Succeed())
		g.Expect(tm.Status.Publisher).NotTo(BeNil())
		tm.Status.Publisher.PublisherName = name
		g.Expect(fleet.ControlPlane.Client.Status().Update(ctx, tm)).To(Succeed())
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// publishedWithBoth waits until the service's route is published with both workers: the
// first publication may hold one, if the other's copy reached the map a moment later.
func (s *service) publishedWithBoth() {
	Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
	Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
}
