package publisher

import (
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/egtranslate"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// Envoy Gateway's own translator, fed the live objects, shows what Envoy would be
// programmed with: the route's backendRef weights become the cluster's locality weights,
// and a backend with weight 0 drops out of the cluster.
var _ = Describe("Envoy Gateway's view of a published map", func() {
	var egctl string
	BeforeEach(func(ctx context.Context) {
		egctl = os.Getenv("EGCTL")
		if egctl == "" {
			Skip("EGCTL is not set (make test builds bin/egctl-<version> and sets it)")
		}
		ensureEnvoyGateway(ctx)
	})

	// With rewriteHostname each backendRef has its own filter, so Envoy Gateway gives each
	// backend a cluster of its own and weighs the clusters in the route.
	It("carries the weights through a gate, its lift, and all-failed under PreserveTraffic and Drain", func(ctx context.Context) {
		useManager(envoyEndpoint(true), config.Publisher{})
		s := newService(ctx, "llm", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		envoy := func(g Gomega) map[string]uint32 { return envoyWeights(ctx, g, egctl, s) }
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("worker-b is gated: it drops out of Envoy's cluster")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 0"}))
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1}))

		By("the gate lifts: worker-b is back with its weight")
		s.set("worker-b", modelserver.Serve)
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("every home fails under PreserveTraffic: both keep their weight")
		s.set("worker-a", modelserver.Unavailable)
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("True AllHomesProbeFailed: "))
		Consistently(envoy).WithTimeout(3 * period).WithPolling(period).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("every home fails under Drain: the cluster has no endpoint left")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing.Probe = probeSpec(omev1beta1.AllFailedDrain)
		})
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("False AllHomesProbeFailed: "))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 0", "worker-b 0"}))
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(envoyView(ctx, Default, egctl, s).DirectStatus).To(Equal(500), "with no backend left the route answers 500 itself")
	})

	// Without it, the rule is one cluster and each backend a locality weighted by its
	// backendRef weight.
	It("weighs the localities of one cluster by the route's weights without rewriteHostname", func(ctx context.Context) {
		useManager(envoyEndpoint(false), config.Publisher{})
		s := newService(ctx, "locality", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		envoy := func(g Gomega) map[string]uint32 { return envoyWeights(ctx, g, egctl, s) }
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))
		s.set("worker-b", modelserver.Unavailable)
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1}))
	})
})

// The route's retry and timeouts reach Envoy: a retry policy that avoids the hosts
// already tried, with the per-try timeout, the codes and the backoff.
var _ = Describe("Envoy Gateway's view of a published retry", func() {
	It("gives the route a retry policy with the previous-hosts predicate, the attempts, codes, backoff and per-try timeout", func(ctx context.Context) {
		egctl := os.Getenv("EGCTL")
		if egctl == "" {
			Skip("EGCTL is not set (make test builds bin/egctl-<version> and sets it)")
		}
		ensureEnvoyGateway(ctx)
		useManager(envoyEndpoint(false), config.Publisher{})
		s := newService(ctx, "retry-envoy", &omev1beta1.Routing{Publisher: &omev1beta1.RoutingPublisherSpec{
			Retry: &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](2), Codes: []omev1beta1.HTTPStatus{502, 503},
				Backoff: &metav1.Duration{Duration: 100 * time.Millisecond}, PerTryTimeout: &metav1.Duration{Duration: 10 * time.Second}},
			Timeouts: &omev1beta1.PublisherTimeouts{Request: &metav1.Duration{Duration: time.Minute}},
		}}, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		var view egtranslate.EnvoyView
		Eventually(func(g Gomega) {
			view = envoyView(ctx, g, egctl, s)
			g.Expect(view.RetryPolicy).NotTo(BeNil(), "the translator's output:\n%s", view.Output)
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		rp := view.RetryPolicy
		AddReportEntry("Envoy retry policy", fmt.Sprintf("%v, route timeout %q", rp, view.Timeout))
		Expect(rp).To(HaveKeyWithValue("numRetries", BeNumerically("==", 2)))
		Expect(rp).To(HaveKeyWithValue("retriableStatusCodes", ConsistOf(BeNumerically("==", 502), BeNumerically("==", 503))))
		Expect(rp).To(HaveKeyWithValue("perTryTimeout", "10s"))
		Expect(rp).To(HaveKeyWithValue("retryOn", ContainSubstring("connect-failure")))
		Expect(rp).To(HaveKeyWithValue("retryHostPredicate", ContainElement(HaveKeyWithValue("name", "envoy.retry_host_predicates.previous_hosts"))))
		Expect(rp).To(HaveKeyWithValue("retryBackOff", HaveKeyWithValue("baseInterval", "0.100s")))
		Expect(view.Timeout).To(Equal("60s"))
	})
})

// envoyEndpoint is the guide's endpoint settings with Envoy Gateway Backends.
var _ = Describe("Envoy Gateway's view of BackendTLSPolicies", func() {
	It("sends each backend TLS with the workload cluster's hostname as SNI, checked against the system's CAs", func(ctx context.Context) {
		egctl := os.Getenv("EGCTL")
		if egctl == "" {
			Skip("EGCTL is not set (make test builds bin/egctl-<version> and sets it)")
		}
		ensureEnvoyGateway(ctx)
		ep := envoyEndpoint(false)
		ep.BackendTLS = true
		useManager(ep, config.Publisher{})
		s := newService(ctx, "tls-envoy", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(func(g Gomega) []string { return envoyView(ctx, g, egctl, s).TLS }).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			[]string{"worker-a.example.test system CAs", "worker-b.example.test system CAs"}))
		Expect(envoyWeights(ctx, Default, egctl, s)).To(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("without TLS, plain HTTP")
		useManager(envoyEndpoint(false), config.Publisher{})
		Eventually(func(g Gomega) []string { return envoyView(ctx, g, egctl, s).TLS }).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
	})
})

func envoyEndpoint(rewriteHostname bool) config.Endpoint {
	ep := guideEndpoint()
	ep.BackendKind = config.BackendEnvoyGateway
	ep.RewriteHostname = rewriteHostname
	return ep
}

// ensureEnvoyGateway creates the GatewayClass of Envoy Gateway's controller and the global
// Gateway, which takes routes from every namespace, once.
func ensureEnvoyGateway(ctx context.Context) {
	class := &gatewayv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: "envoy"},
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: egtranslate.GatewayClassController},
	}
	gw := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: gatewayName, Namespace: gatewayNamespace},
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: "envoy",
			Listeners: []gatewayv1.Listener{{
				Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80,
				AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}},
			}},
		},
	}
	for _, obj := range []client.Object{class, gw} {
		if err := fleet.ControlPlane.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
	}
}

// envoyWeights reads the live GatewayClass, Gateway, route and Backends, feeds them to
// the translator and returns each cluster's locality weight, by workload cluster.
func envoyWeights(ctx context.Context, g Gomega, egctl string, s *service) map[string]uint32 {
	view := envoyView(ctx, g, egctl, s)
	byName := map[string]string{}
	for _, w := range []string{"worker-a", "worker-b"} {
		byName[publish.BackendName(s.key.Namespace, s.key.Name, w)] = w
	}
	out := map[string]uint32{}
	for name, weight := range view.Weights {
		out[byName[name]] = weight
	}
	return out
}

// envoyView is the translator's view of the service's route, from the live objects.
func envoyView(ctx context.Context, g Gomega, egctl string, s *service) egtranslate.EnvoyView {
	c := fleet.ControlPlane.Client
	class := &gatewayv1.GatewayClass{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "envoy"}, class)).To(Succeed())
	gw := &gatewayv1.Gateway{}
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: gatewayNamespace, Name: gatewayName}, gw)).To(Succeed())
	route := s.route(g, "")
	objs := []client.Object{class, gw, route}
	backends := &unstructured.UnstructuredList{}
	backends.SetGroupVersionKind(schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion, Kind: "BackendList"})
	g.Expect(c.List(ctx, backends, client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	for i := range backends.Items {
		objs = append(objs, &backends.Items[i])
	}
	policies := &gatewayv1.BackendTLSPolicyList{}
	g.Expect(c.List(ctx, policies, client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	for i := range policies.Items {
		objs = append(objs, &policies.Items[i])
	}
	trafficPolicies := &unstructured.UnstructuredList{}
	trafficPolicies.SetGroupVersionKind(trafficPolicyListGVK)
	g.Expect(c.List(ctx, trafficPolicies, client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	for i := range trafficPolicies.Items {
		objs = append(objs, &trafficPolicies.Items[i])
	}
	view, err := egtranslate.Translate(ctx, egctl, objs, client.ObjectKeyFromObject(route))
	g.Expect(err).NotTo(HaveOccurred(), fmt.Sprintf("input:\n%s", view.Input))
	return view
}
