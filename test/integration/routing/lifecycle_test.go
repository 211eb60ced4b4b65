package routing

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// gateWorkerB makes worker-b fail until its gate closes.
func gateWorkerB(s *probedService) {
	s.set("worker-b", modelserver.Unavailable)
	Eventually(func(g Gomega) {
		g.Expect(s.entry(g, "worker-b").Probe).NotTo(BeNil())
		g.Expect(s.entry(g, "worker-b").Probe.Gated).To(BeTrue())
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("Probe state across changes", func() {
	It("keeps a gate across a manager restart, and a policy change lifts it and resets the counts", func(ctx context.Context) {
		s := newProbedService(ctx, "restart", nil, both(1))
		gateWorkerB(s)

		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
		// The new manager restores the gate from the map: worker-b never gets weight back
		// while it still fails, and its failures count on from where they were.
		Consistently(func(g Gomega) {
			e := s.entry(g, "worker-b")
			g.Expect(e.Probe.Gated).To(BeTrue())
			g.Expect(e.Weight).To(BeZero())
		}, 3*period, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.ConsecutiveFailures).To(BeNumerically(">", 3))
		}, timeout, interval).Should(Succeed())
		digest := s.entry(Default, "worker-b").Probe.PolicyDigest

		// Any probe setting change lifts the gate and starts the count over. worker-b still
		// fails, so the lift lasts only until failureThreshold failures: every version of the
		// map is read through a watch, so a busy machine cannot make the spec miss it.
		versions := watchMap(ctx, s.key)
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = withProbe(framework.GuideProbe(period, 400*time.Millisecond, omev1beta1.AllFailedPreserveTraffic))
		})
		Eventually(func(g Gomega) {
			g.Expect(versions()).To(ContainElement(WithTransform(func(v mapVersion) bool {
				for _, e := range v.tm.Spec.Entries {
					// A busy operator may write the lift and the failures after it in one
					// version, so a version under the new policy counts when its count
					// started over: at most failureThreshold, and at weight 1 if ungated.
					if e.Cluster == "worker-b" && e.Probe != nil && e.Probe.PolicyDigest != digest &&
						e.Probe.ConsecutiveFailures <= 3 && (e.Probe.Gated || e.Weight == 1) {
						return true
					}
				}
				return false
			}, BeTrue())), "a version with worker-b lifted under the new policy, its count started over")
		}, timeout, interval/2).Should(Succeed())
		// It still fails, so it is gated again after failureThreshold failures.
		Eventually(func(g Gomega) { g.Expect(s.entry(g, "worker-b").Probe.Gated).To(BeTrue()) }, timeout, interval).Should(Succeed())
	})

	It("stops probing with disabled: true and falls back to the installation's probe when the block is removed", func(ctx context.Context) {
		s := newProbedService(ctx, "disable", withProbe(framework.GuideProbe(period, 400*time.Millisecond, omev1beta1.AllFailedDrain)), both(1))
		gateWorkerB(s)
		ownDigest := s.entry(Default, "worker-b").Probe.PolicyDigest

		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing.Probe = &omev1beta1.RoutingProbe{Disabled: true}
		})
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true  ",
			"worker-b 1 true  ",
		}))
		requests := s.endpoints["worker-b"].Requests()
		Consistently(s.endpoints["worker-b"].Requests, 3*period, interval).Should(BeNumerically("<=", requests+1))

		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Probe = nil })
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-b").Probe
			g.Expect(p).NotTo(BeNil())
			g.Expect(p.PolicyDigest).NotTo(Equal(ownDigest))
			g.Expect(p.Gated).To(BeTrue(), "the installation's probe gates it again")
		}, timeout, interval).Should(Succeed())
	})

	It("keeps a service's own probe when the installation has none", func(ctx context.Context) {
		restartManager(nil, 16)
		DeferCleanup(func() { restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })
		own := newProbedService(ctx, "own-probe", withProbe(framework.GuideProbe(period, 400*time.Millisecond, omev1beta1.AllFailedDrain)), both(1))
		none := newProbedService(ctx, "no-probe", nil, both(1))
		Eventually(own.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		Eventually(none.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true  ",
			"worker-b 1 true  ",
		}))
		Expect(none.endpoints["worker-a"].Requests()).To(BeZero())
	})
})

var _ = Describe("Refused per-service settings", func() {
	It("freeze the map, log the exact error and emit a Warning event", func(ctx context.Context) {
		s := newProbedService(ctx, "freeze", nil, both(1))
		gateWorkerB(s)
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = withProbe(framework.GuideProbe(500*time.Millisecond, 100*time.Millisecond, omev1beta1.AllFailedPreserveTraffic))
		})
		const msg = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
		Eventually(managerLog, timeout, interval).Should(gbytesSay(msg))
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(msg))
		// The reconcile that refuses the settings says so on the map before its event, so
		// the map reads frozen the moment the event is there: no waiting here.
		refused := meta.FindStatusCondition(s.trafficMap(Default).Status.Conditions, omev1beta1.TrafficMapSettingsAccepted)
		Expect(refused).NotTo(BeNil())
		Expect(*refused).To(And(HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", string(omev1beta1.TrafficMapReasonRoutingPolicyRefused)), HaveField("Message", msg)))
		Expect(s.mapGauge(Default, "ome_routing_settings_refused")).To(Equal(1.0))
		// The rest of the routing share stands as last written: the gate, its count and
		// its series.
		Expect(s.routable(Default).Reason).To(Equal(string(omev1beta1.TrafficMapReasonRoutable)))
		Expect(s.counts(Default)).To(Equal([2]int32{2, 1}))
		Expect(s.mapGauge(Default, "ome_routing_gated_homes")).To(Equal(1.0))

		frozen := s.trafficMap(Default)
		s.set("worker-b", modelserver.Serve)
		Consistently(func(g Gomega) {
			g.Expect(s.trafficMap(g).ResourceVersion).To(Equal(frozen.ResourceVersion), "the map must not change")
		}, 3*period, interval).Should(Succeed())

		// Fixing the setting unfreezes it.
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing = nil })
		Eventually(func(g Gomega) { g.Expect(s.entry(g, "worker-b").Weight).To(Equal(int32(1))) }, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, omev1beta1.TrafficMapSettingsAccepted)
			g.Expect(c).NotTo(BeNil())
			g.Expect(*c).To(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", string(omev1beta1.TrafficMapReasonSettingsAccepted)),
				HaveField("Message", "")))
			g.Expect(s.mapGauge(g, "ome_routing_settings_refused")).To(BeZero())
		}, timeout, interval).Should(Succeed())
	})

	It("give a new service no map", func(ctx context.Context) {
		s := newProbedService(ctx, "no-map", withProbe(framework.GuideProbe(500*time.Millisecond, 100*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)), both(1))
		const msg = "resolve probe policy: spec.routing.probe.period (500ms) must be at least routing.observer.minPeriod (1s)"
		Eventually(managerLog, timeout, interval).Should(gbytesSay(msg))
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(msg))
		Consistently(func() error {
			return fleet.ControlPlane.Client.Get(ctx, s.key, &omev1beta1.TrafficMap{})
		}, 2*period, interval).ShouldNot(Succeed())
	})
})
