package publisher

import (
	"context"
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// trafficPolicyGVK and trafficPolicyListGVK are Envoy Gateway's BackendTrafficPolicy, which
// the publisher writes for a retry budget on Envoy Gateway Backends.
var (
	trafficPolicyGVK = schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion,
		Kind: publish.KindTrafficPolicy}
	trafficPolicyListGVK = trafficPolicyGVK.GroupVersion().WithKind(publish.KindTrafficPolicy + "List")
)

// budgetRouting is a service's retry of two attempts on 503 under a budget of percent.
func budgetRouting(percent int32) *omev1beta1.Routing {
	return &omev1beta1.Routing{Publisher: &omev1beta1.RoutingPublisherSpec{Retry: &omev1beta1.PublisherRetry{
		Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{503}, BudgetPercent: ptr.To(percent)}}}
}

// trafficPolicies are the BackendTrafficPolicies labelled as the service's, each as
// "namespace/name targetKind/targetName numerator/denominator min minRetryConcurrency".
func (s *service) trafficPolicies(g Gomega) []string {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(trafficPolicyListGVK)
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	var out []string
	for _, p := range list.Items {
		out = append(out, describeTrafficPolicy(g, &p))
	}
	return out
}

func describeTrafficPolicy(g Gomega, p *unstructured.Unstructured) string {
	refs, _, _ := unstructured.NestedSlice(p.Object, "spec", "targetRefs")
	g.Expect(refs).To(HaveLen(1))
	ref, _ := refs[0].(map[string]any)
	budget, _, _ := unstructured.NestedMap(p.Object, "spec", "circuitBreaker", "retryBudget")
	numerator, _, _ := unstructured.NestedInt64(budget, "percent", "numerator")
	denominator, _, _ := unstructured.NestedInt64(budget, "percent", "denominator")
	minimum, _, _ := unstructured.NestedInt64(budget, "minRetryConcurrency")
	return fmt.Sprintf("%s/%s %s/%s %d/%d min %d", p.GetNamespace(), p.GetName(), ref["kind"], ref["name"],
		numerator, denominator, minimum)
}

// trafficPolicyAt is the BackendTrafficPolicy at key.
func trafficPolicyAt(ctx context.Context, g Gomega, key client.ObjectKey) *unstructured.Unstructured {
	p := &unstructured.Unstructured{}
	p.SetGroupVersionKind(trafficPolicyGVK)
	g.Expect(fleet.ControlPlane.Client.Get(ctx, key, p)).To(Succeed())
	return p
}

var _ = Describe("A retry budget on Envoy Gateway Backends", func() {
	BeforeEach(func() { useManager(envoyEndpoint(false), config.Publisher{}) })

	It("is the route's BackendTrafficPolicy, put back when edited, pruned when the budget goes, and removed with the route", func(ctx context.Context) {
		s := newService(ctx, "budget", budgetRouting(20), nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		route := s.routeKey("")
		want := fmt.Sprintf("%s/%s HTTPRoute/%s 20/100 min 3", route.Namespace, route.Name, route.Name)
		Eventually(s.trafficPolicies).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{want}))
		var managers []string
		for _, m := range trafficPolicyAt(ctx, Default, route).GetManagedFields() {
			managers = append(managers, m.Manager+"/"+string(m.Operation))
		}
		Expect(managers).To(Equal([]string{"ome-trafficmap-publisher/Apply"}), "the publisher's own, as its other objects are")

		By("a policy edited by hand is put back")
		Eventually(func(g Gomega) {
			p := trafficPolicyAt(ctx, g, route)
			g.Expect(unstructured.SetNestedField(p.Object, int64(90), "spec", "circuitBreaker", "retryBudget", "percent", "numerator")).To(Succeed())
			g.Expect(fleet.ControlPlane.Client.Update(ctx, p)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(s.trafficPolicies).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{want}))

		By("the budget goes: the policy goes, the route's retry stays")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Publisher.Retry.BudgetPercent = nil })
		Eventually(s.trafficPolicies).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))
		Expect(s.route(Default, "").Spec.Rules[0].Retry).NotTo(BeNil())

		By("the budget is back, then the service leaves routing: the policy goes with the route")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing.Publisher.Retry.BudgetPercent = ptr.To[int32](30)
		})
		Eventually(s.trafficPolicies).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			fmt.Sprintf("%s/%s HTTPRoute/%s 30/100 min 3", route.Namespace, route.Name, route.Name)}))
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{Enabled: ptr.To(false)}
		})
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
	})

	It("is written for Envoy Gateway Backends only: ExternalName Services carry the budget in haproxy's lines", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "budget-services", budgetRouting(20), nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(3))
		Consistently(s.trafficPolicies).WithTimeout(3 * period).WithPolling(period).Should(BeEmpty())
	})

	It("refuses the claim when another source's BackendTrafficPolicy holds the route's name, and leaves it as it is", func(ctx context.Context) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "budget-taken-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		name := publish.RouteName(ns.Name, "budget-taken", "")
		foreign := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": name, "namespace": ns.Name},
			"spec": map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "theirs"}},
				"circuitBreaker": map[string]any{"retryBudget": map[string]any{
					"percent": map[string]any{"numerator": int64(50), "denominator": int64(100)}}},
			},
		}}
		foreign.SetGroupVersionKind(trafficPolicyGVK)
		Expect(fleet.ControlPlane.Client.Create(ctx, foreign)).To(Succeed())
		before := describeTrafficPolicy(Default, foreign)
		s := newServiceAt(ctx, client.ObjectKey{Namespace: ns.Name, Name: "budget-taken"}, budgetRouting(20), nil)
		Eventually(mapEvents).WithArguments(s.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("global BackendTrafficPolicy " + ns.Name + "/" + name + " belongs to another source"))
		Expect(s.condition(Default, "Published")).To(Equal(claimRejected))
		Expect(s.publishedObjects(Default)).To(BeEmpty(), "nothing is written before every name is claimed")
		untouched := func(g Gomega) string {
			p := trafficPolicyAt(ctx, g, client.ObjectKeyFromObject(foreign))
			g.Expect(p.GetLabels()).To(BeEmpty())
			return describeTrafficPolicy(g, p)
		}
		Expect(untouched(Default)).To(Equal(before))

		By("without the budget the route needs no policy: it is published, and the foreign policy stays")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Publisher.Retry.BudgetPercent = nil })
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(untouched(Default)).To(Equal(before))
	})
})

// Envoy Gateway's translator gives the route's cluster a circuit breaker whose retry
// budget is the policy's percent.
var _ = Describe("Envoy Gateway's view of a published retry budget", func() {
	It("gives the route's cluster a circuit breaker with the budget's percent", func(ctx context.Context) {
		egctl := os.Getenv("EGCTL")
		if egctl == "" {
			Skip("EGCTL is not set (make test builds bin/egctl-<version> and sets it)")
		}
		ensureEnvoyGateway(ctx)
		useManager(envoyEndpoint(false), config.Publisher{})
		s := newService(ctx, "budget-envoy", budgetRouting(20), nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(func(g Gomega) {
			view := envoyView(ctx, g, egctl, s)
			g.Expect(view.RetryBudgets).NotTo(BeEmpty(), "the translator's output:\n%s", view.Output)
			AddReportEntry("Envoy retry budgets", fmt.Sprint(view.RetryBudgets))
			for _, b := range view.RetryBudgets {
				g.Expect(b).To(HaveKeyWithValue("budgetPercent", HaveKeyWithValue("value", BeNumerically("==", 20))))
				// Envoy's default, which the translator leaves out.
				g.Expect(b).NotTo(HaveKey("minRetryConcurrency"))
			}
			g.Expect(view.RetryPolicy).To(HaveKeyWithValue("numRetries", BeNumerically("==", 2)))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})
})
