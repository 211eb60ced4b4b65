package routing

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// viewCounts are the map's status counts of -o wide: homes, gated, would-gate and ramping,
// -1 for one that is not set.
func (s *probedService) viewCounts(g Gomega) [4]int32 {
	st := s.trafficMap(g).Status
	return [4]int32{ptr.Deref(st.Homes, -1), ptr.Deref(st.GatedHomes, -1), ptr.Deref(st.WouldGateHomes, -1), ptr.Deref(st.RampingHomes, -1)}
}

// What -o wide and kubectl ome read from the map's status besides the weights: the
// would-be gates of a Shadow probe, the homes that ramp, when a probe was last recorded,
// the probe's period, and the generation at which the route last changed.
var _ = Describe("The map's status for its readers", func() {
	It("counts a Shadow probe's would-be gates, records the service's probe period, and the newest probe time", func(ctx context.Context) {
		// Two seconds: not the installation's period, so the map must carry the service's.
		const ownPeriod = 2 * time.Second
		p := framework.GuideProbe(ownPeriod, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.Mode = omev1beta1.ProbeModeShadow
		s := newProbedService(ctx, "views-shadow", withProbe(p), both(1))
		Eventually(s.viewCounts).WithTimeout(timeout).WithPolling(interval).Should(Equal([4]int32{2, 0, 0, 0}))
		Eventually(func(g Gomega) {
			st := s.trafficMap(g).Status
			g.Expect(st.ProbePeriod).To(Equal(&metav1.Duration{Duration: ownPeriod}))
			g.Expect(st.ProbeRecordInterval).To(BeNil(), "the suite's manager writes every round")
		}, timeout, interval).Should(Succeed())

		By("worker-b fails: WOULD-GATE counts it, GATED does not")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.viewCounts).WithTimeout(timeout).WithPolling(interval).Should(Equal([4]int32{2, 0, 1, 0}))
		Expect(s.entry(Default, "worker-b").Probe.WouldGate).To(BeTrue())

		By("status.lastProbeTime is the newest of the entries' and moves with the rounds")
		first := s.trafficMap(Default).Status.LastProbeTime
		Expect(first).NotTo(BeNil())
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			var newest time.Time
			for _, e := range tm.Spec.Entries {
				g.Expect(e.Probe).NotTo(BeNil())
				if e.Probe.LastProbeTime.After(newest) {
					newest = e.Probe.LastProbeTime.Time
				}
			}
			g.Expect(tm.Status.LastProbeTime).NotTo(BeNil())
			g.Expect(tm.Status.LastProbeTime.Time).To(BeTemporally("==", newest))
			g.Expect(tm.Status.LastProbeTime.After(first.Time)).To(BeTrue())
		}, timeout, interval).Should(Succeed())

		By("worker-b recovers: WOULD-GATE goes back to 0")
		s.set("worker-b", modelserver.Serve)
		Eventually(s.viewCounts).WithTimeout(timeout).WithPolling(interval).Should(Equal([4]int32{2, 0, 0, 0}))
	})

	It("counts a ramping home while it ramps, and keeps routeGeneration while rounds move only probe records", func(ctx context.Context) {
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](2), ptr.To[int32](1)
		p.RampUp = &metav1.Duration{Duration: 6 * period}
		s := newProbedService(ctx, "views-ramp", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))

		By("steady rounds move the generation, not routeGeneration")
		tm := s.trafficMap(Default)
		Expect(tm.Status.RouteGeneration).To(BeNumerically(">", 0))
		steady := tm.Status.RouteGeneration
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Generation).To(BeNumerically(">=", steady+2), "two more probe rounds")
			g.Expect(tm.Status.RouteGeneration).To(Equal(steady))
		}, timeout, interval).Should(Succeed())

		By("a gate changes a weight: routeGeneration follows it")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(s.entry(g, "worker-b").Weight).To(BeZero())
			g.Expect(tm.Status.RouteGeneration).To(BeNumerically(">", steady))
			g.Expect(tm.Status.RouteGeneration).To(BeNumerically("<=", tm.Generation))
		}, timeout, interval).Should(Succeed())
		Eventually(s.viewCounts).WithTimeout(timeout).WithPolling(interval).Should(Equal([4]int32{2, 1, 0, 0}))

		By("the gate lifts: RAMPING counts worker-b until it is back at its full weight")
		s.set("worker-b", modelserver.Serve)
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.RampPercent).To(BeNumerically(">", 0))
			g.Expect(s.viewCounts(g)).To(Equal([4]int32{2, 0, 0, 1}))
		}, timeout, interval/4).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.RampPercent).To(BeZero())
			g.Expect(s.viewCounts(g)).To(Equal([4]int32{2, 0, 0, 0}))
		}, timeout, interval).Should(Succeed())
	})

	It("records the installation's probe period for a service that inherits it", func(ctx context.Context) {
		s := newProbedService(ctx, "views-inherited", nil, both(1))
		Eventually(func(g Gomega) *metav1.Duration { return s.trafficMap(g).Status.ProbePeriod }).
			WithTimeout(timeout).WithPolling(interval).Should(Equal(&metav1.Duration{Duration: period}))
	})
})
