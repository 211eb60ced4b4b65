package routing

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

var _ = Describe("One service's probes", func() {
	It("over the installation's maxima freeze that service's map with the exact error", func(ctx context.Context) {
		s := newProbedService(ctx, "over-maxima", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = withProbe(framework.GuideProbe(59*time.Minute, 58*time.Minute, omev1beta1.AllFailedPreserveTraffic))
		})
		const msg = "resolve probe policy: spec.routing.probe.period (59m0s) must be at most routing.observer.maxPeriod (1m0s); " +
			"spec.routing.probe.timeout (58m0s) must be at most routing.observer.maxTimeout (10s)"
		Eventually(managerLog, timeout, interval).Should(gbytesSay(msg))
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(msg))
	})

	It("hanging on every slot delay another service's gate by at most one probe timeout", Label(framework.TimingDependent), func(ctx context.Context) {
		// Two slots for the whole installation, and a greedy service whose two homes hang
		// for the longest timeout allowed: without a fair share its probes hold both slots
		// and queue ahead of everyone else's, round after round. (Not worker-c: another
		// spec stops it for good, in an order Ginkgo chooses.)
		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 2)
		DeferCleanup(func() { restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })
		greedyTimeout := maxTimeout
		greedy := newProbedService(ctx, "greedy", withProbe(framework.GuideProbe(greedyTimeout+time.Second, greedyTimeout, omev1beta1.AllFailedPreserveTraffic)),
			both(1))
		for w := range greedy.endpoints {
			greedy.set(w, modelserver.Hang)
		}
		Eventually(func(g Gomega) { g.Expect(greedy.trafficMap(g).Spec.Entries).To(HaveLen(2)) }, timeout, interval).Should(Succeed())

		normal := newProbedService(ctx, "normal", nil, both(1))
		Eventually(func(g Gomega) {
			g.Expect(normal.entry(g, "worker-b").Probe).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())
		// Only once the greedy service's probes hang does the normal service's endpoint fail.
		Eventually(func() int64 {
			var n int64
			for _, ep := range greedy.endpoints {
				n += ep.Requests()
			}
			return n
		}, timeout, interval).Should(BeNumerically(">", 0))
		normal.set("worker-b", modelserver.Unavailable)
		failedAt := time.Now()

		// Timing-dependent: this spec bounds a wall-clock time (18 s), because a gate on time
		// is the behaviour it checks; a machine loaded far past a test run can fail it
		// (docs/development/testing.md). The bound: failureThreshold periods, plus at most
		// one greedy timeout of waiting for a slot, plus a few seconds for the reconcile and
		// the write on a loaded machine.
		onTime := 3*period + greedyTimeout + 5*time.Second
		Eventually(func(g Gomega) {
			g.Expect(normal.entry(g, "worker-b").Probe.Gated).To(BeTrue())
		}, onTime, interval).Should(Succeed(), "the normal service's failing home must gate on time")
		GinkgoWriter.Printf("normal service gated %s after its endpoint failed\n", time.Since(failedAt))
	})
})
