package publisher

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
)

// A map frozen by a refused routing setting stays behind its service's generation until
// the setting is fixed. The publisher keeps its route and its Published condition, past
// the grace after which a map that lags for another cause is InvalidOwner.
var _ = Describe("A map frozen by refused routing settings", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("stays Published with its route as it was, and is never InvalidOwner", func(ctx context.Context) {
		s := newService(ctx, "frozen-map", nil, nil)
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Status.Published).To(BeTrue())
			g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		// A period under routing.observer.minPeriod: the API server takes it, the manager
		// does not.
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{Probe: framework.GuideProbe(500*time.Millisecond, 100*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)}
		})
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapSettingsAccepted).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False RoutingPolicyRefused: resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"))
		route := s.route(Default, s.key.Namespace)

		// ownerCatchUpGrace (15s) and a margin.
		Consistently(func(g Gomega) {
			g.Expect(s.condition(g, omev1beta1.TrafficMapPublished)).To(HavePrefix("True Published: "))
			g.Expect(s.route(g, s.key.Namespace).ResourceVersion).To(Equal(route.ResourceVersion), "the route must stay as published")
		}).WithTimeout(20 * time.Second).WithPolling(interval).Should(Succeed())
	})
})
