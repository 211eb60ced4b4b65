package publisher

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// refusedCondition is the Published condition's message for GlobalHostRefused; the
// event on the map says why.
const refusedCondition = "Publisher refuses the ome.io/global-host annotation of the TrafficMap source; nothing is published"

// A tenant's ome.io/global-host annotation must not take the hostname the installation's
// template gives another namespace's service by publishing it first.
var _ = Describe("A template hostname", func() {
	It("wins over another namespace's annotation that published it first", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		victimNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "victim-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, victimNS)).To(Succeed())
		host := "chat." + victimNS.Name + ".global.example.com"

		// The victim starts with a hostname of its own choosing, so the template's is free.
		victim := newServiceAt(ctx, client.ObjectKey{Namespace: victimNS.Name, Name: "chat"}, nil,
			map[string]string{publish.GlobalHostAnnotation: "chat-old." + victimNS.Name + ".global.example.com"})
		Eventually(victim.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True Published"))
		squatter := newService(ctx, "squatter", nil, map[string]string{publish.GlobalHostAnnotation: host})
		Eventually(squatter.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True Published"))
		Expect(squatter.route(Default, "").Spec.Hostnames).To(Equal([]gatewayv1.Hostname{gatewayv1.Hostname(host)}))

		// The victim falls back to its template's hostname, which the squatter holds.
		victim.update(ctx, func(isvc *omev1beta1.InferenceService) { delete(isvc.Annotations, publish.GlobalHostAnnotation) })
		refusal := fmt.Sprintf("global hostname: the ome.io/global-host annotation %q is refused: it is the hostname endpoint.globalHostTemplate gives InferenceService %s/chat, and a template hostname wins over an annotation",
			host, victimNS.Name)
		Eventually(squatter.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(Equal("False GlobalHostRefused: " + refusedCondition))
		Eventually(mapEvents).WithArguments(squatter.key, string(omev1beta1.TrafficMapReasonGlobalHostRefused)).WithTimeout(timeout).WithPolling(interval).
			Should(ContainElement(refusal))
		Eventually(func() error {
			return fleet.ControlPlane.Client.Get(ctx, squatter.routeKey(""), &gatewayv1.HTTPRoute{})
		}).WithTimeout(timeout).WithPolling(interval).Should(Satisfy(apierrors.IsNotFound))
		Eventually(func(g Gomega) []gatewayv1.Hostname { return victim.route(g, "").Spec.Hostnames }).
			WithTimeout(timeout).WithPolling(interval).Should(Equal([]gatewayv1.Hostname{gatewayv1.Hostname(host)}))
		// The route is applied before the Published condition that reports it.
		Eventually(victim.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True Published"))
		Expect(mapEvents(victim.key, string(omev1beta1.TrafficMapReasonClaimRejected))).To(BeEmpty())
	})
})

// endpoint.globalHostAnnotation keeps annotated hostnames under the installer's control.
var _ = Describe("endpoint.globalHostAnnotation UnderNamespace", func() {
	It("refuses another namespace's hostname and publishes one under the service's own", func(ctx context.Context) {
		ep := guideEndpoint()
		ep.GlobalHostAnnotation = config.GlobalHostUnderNamespace
		useManager(ep, config.Publisher{})
		s := newService(ctx, "vanity", nil, map[string]string{publish.GlobalHostAnnotation: "chat.prod.global.example.com"})
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(Equal("False GlobalHostRefused: " + refusedCondition))
		Eventually(mapEvents).WithArguments(s.key, string(omev1beta1.TrafficMapReasonGlobalHostRefused)).WithTimeout(timeout).WithPolling(interval).
			Should(ContainElement(fmt.Sprintf(`global hostname: the ome.io/global-host annotation "chat.prod.global.example.com" is refused: `+
				`endpoint.globalHostAnnotation is UnderNamespace, and it is not under "%s.global.example.com", the suffix endpoint.globalHostTemplate gives namespace %s`,
				s.key.Namespace, s.key.Namespace)))
		Expect(s.publishedObjects(Default)).To(BeEmpty())

		own := "chat-v2." + s.key.Namespace + ".global.example.com"
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Annotations[publish.GlobalHostAnnotation] = own })
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True Published"))
		Expect(s.route(Default, "").Spec.Hostnames).To(Equal([]gatewayv1.Hostname{gatewayv1.Hostname(own)}))
	})
})
