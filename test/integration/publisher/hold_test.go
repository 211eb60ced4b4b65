package publisher

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/publisher"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
)

// heldPrefix starts the Published condition of a route kept as last published with both
// backends.
const heldPrefix = `False LastPositiveRetained: TrafficMap publisher "gatewayapi" keeps the route as last published, ` +
	`with 2 backend(s) that take traffic, instead of one that sends nothing: `

// heldFallback is the PublicationFallback condition of a route kept as last published.
const heldFallback = "True LastPositiveRetained: The route stays as last published, with traffic, in place of the current plan, which sends none"

// unplace makes the service's placement select no member: its map loses every entry in one
// write (Routable NotPlaced).
func (s *service) unplace(ctx context.Context) {
	s.update(ctx, func(isvc *omev1beta1.InferenceService) {
		isvc.Spec.Placement.ClusterAffinity[0].MatchFields[0].Values = []string{"worker-nowhere"}
	})
	Eventually(func(g Gomega) {
		tm := s.trafficMap(g)
		g.Expect(tm.Spec.Entries).To(BeEmpty())
		g.Expect(s.condition(g, "Routable")).To(HavePrefix("False NotPlaced: "))
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// externalNames are the hosts of the service's backend Services, sorted.
func (s *service) externalNames(ctx context.Context) []string {
	var out []string
	for _, svc := range backendServices(ctx, s.key) {
		out = append(out, svc.Spec.ExternalName)
	}
	slices.Sort(out)
	return out
}

// A map that has lost every home, or whose every home with weight the publish guard leaves
// out, is what a control plane that cannot see looks like: under PreserveTraffic (or
// without a probe) the publisher keeps the route that sends traffic rather than write one
// that makes the gateway answer every request with an error. Drain, the policy that takes
// traffic away, lets the route follow the map.
var _ = Describe("A map with nothing to send traffic to", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("keeps the last published route under PreserveTraffic, says why, and lets it go with the service", func(ctx context.Context) {
		s := newService(ctx, "kept-empty", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		s.settled(ctx)
		Expect(s.trafficMap(Default).Spec.AllFailedPolicy).To(Equal(omev1beta1.AllFailedPreserveTraffic))

		s.unplace(ctx)
		Consistently(s.weights).WithTimeout(2 * time.Second).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		const why = "the TrafficMap has no entries; only allFailedPolicy Drain lets a route that sends traffic be replaced by one that sends none " +
			"(the service's is PreserveTraffic)"
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(heldPrefix + why))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(heldFallback))
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(s.externalNames(ctx)).To(Equal([]string{"worker-a.example.test", "worker-b.example.test"}))
		tm := s.trafficMap(Default)
		Expect(tm.Status.Published).To(BeFalse())
		Expect(tm.Status.GatewayRef).NotTo(BeNil())
		Expect(tm.Status.GatewayRef.Name).To(Equal(s.routeKey("").Name))
		Expect(tm.Status.Publisher.AcknowledgedPlacementPlanID).NotTo(Equal(tm.Spec.PlacementPlanID),
			"the route still sends to homes the plan no longer has: its plan is not acknowledged")
		Eventually(mapEvents).WithArguments(s.key, string(omev1beta1.TrafficMapReasonLastPositiveRetained)).WithTimeout(timeout).WithPolling(interval).
			Should(Equal([]string{`TrafficMap publisher "gatewayapi" keeps the route as last published, with 2 backend(s) that take traffic, ` +
				"instead of one that sends nothing: " + why}))
		Expect(publicationFallback(s.key)).To(Equal(1.0), "ome_trafficmap_publication_fallback of a held route")
		// A new map generation (another edit of the placement, which the empty map records
		// as the generation it was built from) is looked at again: the route stays, and the
		// event is not sent again.
		g0 := s.trafficMap(Default).Generation
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Placement.ClusterAffinity[0].MatchFields[0].Values = []string{"worker-nowhere", "worker-elsewhere"}
		})
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Generation).To(BeNumerically(">", g0))
			published := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
			g.Expect(published).NotTo(BeNil())
			g.Expect(published.ObservedGeneration).To(Equal(tm.Generation))
			g.Expect(published.Reason).To(Equal(string(omev1beta1.TrafficMapReasonLastPositiveRetained)))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Consistently(s.weights).WithTimeout(2 * time.Second).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(mapEvents(s.key, string(omev1beta1.TrafficMapReasonLastPositiveRetained))).To(HaveLen(1))

		// The service gone, the route goes as before (envtest runs no garbage collector, so
		// the map outlives the service, which shows the publisher's own handling of it).
		Expect(fleet.ControlPlane.Client.Delete(ctx, &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{
			Name: s.key.Name, Namespace: s.key.Namespace}})).To(Succeed())
		Eventually(s.publishedObjects).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(publicationFallback(s.key)).To(Equal(0.0), "the route is gone, not held")
		Expect(mapEvents(s.key, publisher.EventCurrentPlanApplied)).To(BeEmpty(), "a hold that ends with the service is no return to the current plan")
	})

	It("keeps the route when the publish guard leaves out every entry with weight, and publishes again once it lets them in", func(ctx context.Context) {
		s := newService(ctx, "kept-guarded", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		s.settled(ctx)
		move := func(w, host string) {
			Expect(envfleet.PlaceCopy(ctx, fleet.Workers[w].Client, s.key, fmt.Sprintf("http://%s:%s", host, s.port(w)), 1, 1)).To(Succeed())
		}

		// worker-b moves to a name that resolves nowhere (neither for the probe nor for the
		// publish guard): the guard leaves it out, and worker-a carries the route alone.
		move("worker-b", "gone-b.example.test")
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))

		// worker-a moves too. The guard leaves both out, the probes gate both, and
		// PreserveTraffic gives both their weight back in the map: the route keeps worker-a,
		// the backend that still takes traffic, and says why.
		move("worker-a", "gone-a.example.test")
		Eventually(s.condition).WithArguments("Routable").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix("True AllHomesProbeFailed: "))
		Consistently(s.weights).WithTimeout(2 * time.Second).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(
			`False LastPositiveRetained: TrafficMap publisher "gatewayapi" keeps the route as last published, with 1 backend(s) that take traffic, ` +
				"instead of one that sends nothing: the publish guard leaves every entry with weight out of the route (worker-a, worker-b; see the BackendRefused events); " +
				"only allFailedPolicy Drain lets a route that sends traffic be replaced by one that sends none (the service's is PreserveTraffic)"))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(heldFallback))
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 1"}))
		Expect(s.externalNames(ctx)).To(Equal([]string{"worker-a.example.test"}))
		Expect(publicationFallback(s.key)).To(Equal(1.0), "ome_trafficmap_publication_fallback of a held route")
		Expect(mapEvents(s.key, publisher.EventCurrentPlanApplied)).To(BeEmpty())

		// Back at names the guard accepts: published again, from the current map.
		move("worker-a", "worker-a.example.test")
		move("worker-b", "worker-b.example.test")
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(fallbackFalse))
		// The hold's end is said once, with what the route carries then: worker-a alone or
		// both, as the two moves may reach the publisher in one map version or two.
		Expect(publicationFallback(s.key)).To(Equal(0.0))
		Eventually(mapEvents).WithArguments(s.key, publisher.EventCurrentPlanApplied).WithTimeout(timeout).WithPolling(interval).
			Should(ConsistOf(MatchRegexp(`^The route carries the map's current plan again, with [12] backend\(s\); ` +
				`it was kept as last published while that plan sent nothing$`)))
	})

	It("puts back, from the journal, a held route that went missing", func(ctx context.Context) {
		s := newService(ctx, "kept-replayed", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedPreserveTraffic)}, nil)
		s.settled(ctx)
		s.unplace(ctx)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(HavePrefix(heldPrefix))

		// Someone deletes the held route while the map has no home: the plan alone would
		// write a route that sends nothing.
		route := s.route(Default, "")
		Expect(fleet.ControlPlane.Client.Delete(ctx, route)).To(Succeed())
		Eventually(func(g Gomega) {
			r := s.route(g, "")
			g.Expect(r.UID).NotTo(Equal(route.UID), "a new route")
			g.Expect(s.weights(g)).To(Equal([]string{"worker-a 1", "worker-b 1"}))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		// The hold's event says the route was put back; once it stands, the hold is as before.
		const policy = "only allFailedPolicy Drain lets a route that sends traffic be replaced by one that sends none (the service's is PreserveTraffic)"
		Eventually(mapEvents).WithArguments(s.key, string(omev1beta1.TrafficMapReasonLastPositiveRetained)).WithTimeout(timeout).WithPolling(interval).
			Should(ContainElement(`TrafficMap publisher "gatewayapi" keeps the route as last published, with 2 backend(s) that take traffic, ` +
				"instead of one that sends nothing: the TrafficMap has no entries; " +
				"the route that sent traffic was gone and is put back as status.publisher.lastPositive records it; " + policy))
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(heldPrefix +
			"the TrafficMap has no entries; " + policy))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(heldFallback))
	})

	It("lets the route follow the map under Drain: no backend, and the gateway answers for nobody", func(ctx context.Context) {
		s := newService(ctx, "drained-empty", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedDrain)}, nil)
		s.settled(ctx)
		Expect(s.trafficMap(Default).Spec.AllFailedPolicy).To(Equal(omev1beta1.AllFailedDrain))

		s.unplace(ctx)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		// Written, but not Published: a route with no backend sends requests nowhere.
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(
			`False NoBackends: TrafficMap publisher "gatewayapi" wrote a route with no backend: the TrafficMap has no entry to publish`))
		Expect(s.condition(Default, "PublicationFallback")).To(Equal(fallbackFalse))
		Eventually(s.externalNames).WithArguments(ctx).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(mapEvents(s.key, string(omev1beta1.TrafficMapReasonLastPositiveRetained))).To(BeEmpty())
		Expect(publicationFallback(s.key)).To(Equal(0.0))
	})
})

// fallbackMetrics gathers the publisher's own metrics, which the suite's in-process
// managers set (package globals of controllers/publisher).
var fallbackMetrics = func() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(publisher.Collectors()...)
	return reg
}()

// publicationFallback is the map's ome_trafficmap_publication_fallback, -1 without a series.
func publicationFallback(key client.ObjectKey) float64 {
	GinkgoHelper()
	families, err := fallbackMetrics.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] == key.Namespace && labels["trafficmap"] == key.Name {
				Expect(labels).To(HaveKeyWithValue("publisher", "gatewayapi"))
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}
