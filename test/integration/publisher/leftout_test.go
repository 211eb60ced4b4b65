package publisher

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
)

// The route can hold less than the map: the publish guard leaves out every cluster whose
// host it refuses. The map must say so where people look, or it reads as if those
// clusters took traffic: RouteComplete names each one and why, status.leftOutOfRoute
// lists them, the routing reconciler's NO-TRAFFIC column shows them, and a route left with
// no backend at all is not Published.
var _ = Describe("A route that leaves clusters out", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	const loopback = `host "localhost" is reserved for loopback (RFC 6761), which resolvers answer without DNS`

	It("is not Published when it has no backend, and names every cluster it leaves out", func(ctx context.Context) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "localhost-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		s := newServiceAtHosts(ctx, client.ObjectKey{Namespace: ns.Name, Name: "localhost"},
			&omev1beta1.Routing{Probe: &omev1beta1.RoutingProbe{Disabled: true}}, nil, func(string) string { return "localhost" })

		// The map gives both clusters weight; the route, written, holds neither.
		Eventually(func(g Gomega) []string {
			var out []string
			for _, e := range s.trafficMap(g).Spec.Entries {
				out = append(out, fmt.Sprintf("%s %d", e.Cluster, e.Weight))
			}
			return out
		}).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			`False NoBackends: TrafficMap publisher "gatewayapi" wrote a route with no backend: ` +
				"the publisher leaves out every cluster of the TrafficMap (see RouteComplete)"))
		Expect(s.weights(Default)).To(BeEmpty())
		Expect(s.condition(Default, omev1beta1.TrafficMapRouteComplete)).To(Equal(
			"False ClustersLeftOut: The route leaves out 2 cluster(s), which get no traffic through it: " +
				"worker-a HostRefused: " + loopback + " | worker-b HostRefused: " + loopback))
		// The condition reads the same for the map with worker-a alone, a generation before
		// worker-b joined: wait for the publisher to record the map's current generation.
		var tm *omev1beta1.TrafficMap
		Eventually(func(g Gomega) {
			tm = s.trafficMap(g)
			g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Expect(tm.Status.Published).To(BeFalse())
		Expect(tm.Status.GatewayRef).NotTo(BeNil(), "the route is written, and the map names it")
		Expect(tm.Status.LeftOutOfRoute).To(Equal([]omev1beta1.LeftOutCluster{
			{Cluster: "worker-a", Reason: omev1beta1.LeftOutHostRefused, Message: loopback},
			{Cluster: "worker-b", Reason: omev1beta1.LeftOutHostRefused, Message: loopback},
		}))
		Eventually(func(g Gomega) string { return s.trafficMap(g).Status.NoTraffic }).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"worker-a LeftOutOfRoute: HostRefused: " + loopback + " | worker-b LeftOutOfRoute: HostRefused: " + loopback))

		// worker-a at a host the guard accepts: published, with worker-b still named.
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-a"].Client, s.key, "http://worker-a.example.test:"+s.port("worker-a"), 1, 1)).To(Succeed())
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.condition(Default, omev1beta1.TrafficMapRouteComplete)).To(Equal(
			"False ClustersLeftOut: The route leaves out 1 cluster(s), which get no traffic through it: worker-b HostRefused: " + loopback))
		Eventually(func(g Gomega) string { return s.trafficMap(g).Status.NoTraffic }).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"worker-b LeftOutOfRoute: HostRefused: " + loopback))

		// And both: the route is complete, and the list is gone.
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, "http://worker-b.example.test:"+s.port("worker-b"), 1, 1)).To(Succeed())
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapRouteComplete).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"True AllClustersInRoute: The route holds a backend for every cluster of the TrafficMap"))
		Expect(s.trafficMap(Default).Status.LeftOutOfRoute).To(BeEmpty())
		Eventually(func(g Gomega) string { return s.trafficMap(g).Status.NoTraffic }).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
	})

	It("says a host no lookup has answered yet is left out as unresolved", func(ctx context.Context) {
		const host = "late.example.test"
		useManagerWith(managerSettings{endpoint: guideEndpoint(), publisher: config.Publisher{}, unresolvable: []string{host}})
		s := newService(ctx, "unresolved", &omev1beta1.Routing{Probe: &omev1beta1.RoutingProbe{Disabled: true}}, nil)
		s.settled(ctx)
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, fmt.Sprintf("http://%s:%s", host, s.port("worker-b")), 1, 1)).To(Succeed())
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
		Eventually(func(g Gomega) []omev1beta1.LeftOutCluster { return s.trafficMap(g).Status.LeftOutOfRoute }).WithTimeout(timeout).WithPolling(interval).
			Should(ConsistOf(And(
				HaveField("Cluster", "worker-b"), HaveField("Reason", omev1beta1.LeftOutHostUnresolved),
				HaveField("Message", HavePrefix(fmt.Sprintf("host %q could not be resolved", host))))))
		Expect(s.condition(Default, omev1beta1.TrafficMapPublished)).To(Equal(publishedTrue))
		Expect(s.condition(Default, omev1beta1.TrafficMapRouteComplete)).To(HavePrefix(
			"False ClustersLeftOut: The route leaves out 1 cluster(s), which get no traffic through it: worker-b HostUnresolved: "))
	})
})
