package publisher

import (
	"context"
	"fmt"
	"os"

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
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
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
		ep := guideEndpoint()
		ep.BackendKind = config.BackendEnvoyGateway
		ep.RewriteHostname = true
		useManager(ep, config.Publisher{})
		ensureEnvoyGateway(ctx)
	})

	It("carries the weights through a gate, its lift, and all-failed under PreserveTraffic and Drain", func(ctx context.Context) {
		s := newService(ctx, "llm", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		envoy := func(g Gomega) map[string]uint32 { return envoyWeights(ctx, g, egctl, s) }
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("worker-b is gated: it drops out of Envoy's cluster")
		s.set("worker-b", framework.Unavailable)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 0"}))
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1}))

		By("the gate lifts: worker-b is back with its weight")
		s.set("worker-b", framework.Serve)
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("every home fails under PreserveTraffic: both keep their weight")
		s.set("worker-a", framework.Unavailable)
		s.set("worker-b", framework.Unavailable)
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("True AllHomesProbeFailed: "))
		Consistently(envoy).WithTimeout(3 * period).WithPolling(period).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("every home fails under Drain: the cluster has no endpoint left")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Probe = probeSpec(omev1beta1.AllFailedDrain) })
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("False AllHomesProbeFailed: "))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 0", "worker-b 0"}))
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
	})
})

// ensureEnvoyGateway creates the GatewayClass of Envoy Gateway's controller and the global
// Gateway, which takes routes from every namespace, once.
func ensureEnvoyGateway(ctx context.Context) {
	class := &gatewayv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: "envoy"},
		Spec:       gatewayv1.GatewayClassSpec{ControllerName: framework.GatewayClassController},
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
	view, err := framework.Translate(ctx, egctl, objs, client.ObjectKeyFromObject(route))
	g.Expect(err).NotTo(HaveOccurred(), fmt.Sprintf("input:\n%s", view.Input))
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
