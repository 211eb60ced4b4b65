package routing

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// The probe's optional settings, through the real manager: mode, flapDamping, rampUp
// (docs/concepts/probe-extensions.md).
var _ = Describe("The probe's optional settings", func() {
	It("in Shadow mode records the gates it would set and never changes a weight; Enforce then keeps its counts", func(ctx context.Context) {
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedDrain)
		p.Mode = omev1beta1.ProbeModeShadow
		s := newProbedService(ctx, "shadow", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))

		// unchanged checks the table a probe-less map would have: both clusters at weight
		// 1, healthy, Routable, whatever the Shadow probe records.
		unchanged := func(g Gomega) {
			tm := s.trafficMap(g)
			for _, e := range tm.Spec.Entries {
				g.Expect(e.Weight).To(Equal(int32(1)), "a Shadow probe changed %s's weight", e.Cluster)
				g.Expect(e.Healthy).To(BeTrue(), "a Shadow probe changed %s's health", e.Cluster)
				g.Expect(e.Probe.Gated).To(BeFalse(), "a Shadow probe gated %s", e.Cluster)
				g.Expect(e.Probe.RampPercent).To(BeZero())
			}
			g.Expect(ptr.Deref(tm.Status.GatedHomes, -1)).To(BeZero())
		}
		routableAsWithoutAProbe := func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonRoutable)))
			g.Expect(c.Message).To(Equal("2 of 2 home(s) take traffic"))
		}

		By("worker-b fails: the gate it would set is recorded, and an event says so")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			unchanged(g) // on every poll, not only at the end
			e := s.entry(g, "worker-b")
			g.Expect(e.Probe.Result).To(Equal(omev1beta1.ProbeFailing))
			g.Expect(e.Probe.WouldGate).To(BeTrue())
			g.Expect(e.Probe.ConsecutiveFailures).To(BeNumerically(">=", 3))
			g.Expect(e.WeightReason).To(Equal(omev1beta1.WeightShadowGated), "the entry says its weight ignores the would-be gate")
		}, timeout, interval/2).Should(Succeed())
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeWouldGate) }, timeout, interval).Should(ContainElement(
			"Cluster worker-b would be gated after 3 probe failures in a row: HTTP 503 (Shadow mode: its weight is unchanged)"))
		Expect(s.events(Default, routing.EventHomeGated)).To(BeEmpty())

		By("worker-b recovers: the would-be gate lifts after successThreshold passes")
		s.set("worker-b", modelserver.Serve)
		Eventually(func(g Gomega) {
			unchanged(g)
			g.Expect(s.entry(g, "worker-b").Probe.WouldGate).To(BeFalse())
		}, timeout, interval/2).Should(Succeed())
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeWouldUngate) }, timeout, interval).Should(ContainElement(
			"Cluster worker-b would have its gate lifted: it passed successThreshold probes in a row; last probe Passing: HTTP 200 (Shadow mode)"))

		By("both fail under Drain: Enforce would drain the service, Shadow leaves it as it is")
		s.set("worker-a", modelserver.Unavailable)
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			unchanged(g)
			routableAsWithoutAProbe(g)
			for _, w := range []string{"worker-a", "worker-b"} {
				pr := s.entry(g, w).Probe
				g.Expect(pr.WouldGate).To(BeTrue(), w)
				// Five in a row, past the threshold: a switch that started the counts over
				// would gate at three.
				g.Expect(pr.ConsecutiveFailures).To(BeNumerically(">=", 5), w)
			}
		}, timeout, interval/2).Should(Succeed())
		Consistently(func(g Gomega) { unchanged(g); routableAsWithoutAProbe(g) }, 3*period, interval).Should(Succeed())
		digest := s.entry(Default, "worker-a").Probe.PolicyDigest

		By("switching to Enforce keeps the counts: the gates take effect at once")
		s.update(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Probe.Mode = omev1beta1.ProbeModeEnforce })
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Spec.Entries).To(HaveLen(2))
			for _, e := range tm.Spec.Entries {
				g.Expect(e.Probe.Gated).To(BeTrue(), e.Cluster)
				g.Expect(e.Probe.WouldGate).To(BeFalse(), e.Cluster)
				g.Expect(e.Weight).To(BeZero(), e.Cluster)
				g.Expect(e.Probe.PolicyDigest).To(Equal(digest), "the mode is not part of the digest")
				g.Expect(e.Probe.ConsecutiveFailures).To(BeNumerically(">=", 5), "%s: the counts started over", e.Cluster)
			}
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonAllHomesProbeFailed)))
		}, timeout, interval/2).Should(Succeed())
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeGated) }, timeout, interval).Should(HaveLen(2))
	})

	It("in Shadow mode records a probe the operator refuses to send without taking the home's weight", func(ctx context.Context) {
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.Mode = omev1beta1.ProbeModeShadow
		s := newProbedService(ctx, "shadow-refused", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		// The suite's observer refuses private addresses (see refused_test.go); without a
		// probe nothing would, so neither does a Shadow one: the record says why.
		placeCopy(ctx, "worker-b", s.key, "http://10.0.0.7:8080", 4, 4)
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 4 true Unknown probe not sent: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)",
		}))
		Expect(s.entry(Default, "worker-b").Refused).To(BeEmpty())
		Expect(ptr.Deref(s.trafficMap(Default).Status.RefusedHomes, -1)).To(BeZero())
		Expect(s.entry(Default, "worker-b").WeightReason).To(Equal(omev1beta1.WeightRouted))
		Expect(s.entry(Default, "worker-b").WeightMessage).To(HaveSuffix("; its last probe was not sent (destination 10.0.0.7 is in a private network " +
			"and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)), which a Shadow probe records without moving traffic"))
	})

	It("under flapDamping needs successThreshold x 2^k passes after a quick re-gate, capped at maxFactor", func(ctx context.Context) {
		// Two-second rounds leave the test time to give worker-b exactly one pass.
		const roundPeriod = 2 * time.Second
		p := framework.GuideProbe(roundPeriod, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](2), ptr.To[int32](1)
		p.FlapDamping = &omev1beta1.ProbeFlapDamping{Window: &metav1.Duration{Duration: 10 * time.Minute}, MaxFactor: ptr.To[int32](2)}
		s := newProbedService(ctx, "damping", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		Eventually(func(g Gomega) { g.Expect(s.entry(g, "worker-b").Probe).NotTo(BeNil()) }, timeout, interval).Should(Succeed())
		versions := watchMap(ctx, s.key)
		probeOf := workerBProbe

		// gate makes worker-b fail until it is gated, and returns its probe record then.
		gate := func() *omev1beta1.TrafficMapProbe {
			GinkgoHelper()
			s.set("worker-b", modelserver.Unavailable)
			var rec *omev1beta1.TrafficMapProbe
			Eventually(func(g Gomega) {
				rec = s.entry(g, "worker-b").Probe
				g.Expect(rec.Gated).To(BeTrue())
			}, timeout, interval/2).Should(Succeed())
			return rec
		}
		// lift makes worker-b pass until its gate lifts.
		lift := func() {
			GinkgoHelper()
			s.set("worker-b", modelserver.Serve)
			Eventually(func(g Gomega) {
				e := s.entry(g, "worker-b")
				g.Expect(e.Probe.Gated).To(BeFalse())
				g.Expect(e.Weight).To(Equal(int32(1)))
			}, timeout, interval/2).Should(Succeed())
		}

		By("the first gate: successThreshold (1) pass lifts it")
		first := gate()
		Expect(first.DampingFactor).To(BeZero())
		Expect(first.LastLiftTime).To(BeNil(), "never lifted yet")
		lift()
		Expect(s.entry(Default, "worker-b").Probe.LastLiftTime).NotTo(BeNil())

		By("gated again within the window: the factor doubles, and one pass does not lift it")
		second := gate()
		Expect(second.DampingFactor).To(Equal(int32(2)))
		from := len(versions())
		// Exactly one pass: worker-b serves one probe, then fails again. The endpoint
		// records a request in the same step as it reads how to answer it.
		ep := s.endpoints["worker-b"]
		seen := len(ep.Seen())
		s.set("worker-b", modelserver.Serve)
		Eventually(func() int { return len(ep.Seen()) }).WithTimeout(timeout).WithPolling(5 * time.Millisecond).Should(BeNumerically(">", seen))
		s.set("worker-b", modelserver.Unavailable)
		passAt := time.Now()
		// Failures after the pass, counted from 0: the pass was counted. Without it the count
		// would have gone on from the gate's, so a failing record after the pass with at most
		// the gate's count shows the reset (on a loaded machine one write may carry two
		// results, so a given count can be skipped). A lift by the single pass would show
		// as an open gate in the versions checked below.
		Eventually(func(g Gomega) {
			g.Expect(versions()[from:]).To(ContainElement(WithTransform(func(v mapVersion) bool {
				rec := probeOf(v)
				return rec.Result == omev1beta1.ProbeFailing && rec.ConsecutiveFailures >= 1 &&
					rec.ConsecutiveFailures <= second.ConsecutiveFailures && rec.LastProbeTime.After(passAt)
			}, BeTrue())))
		}, timeout, interval).Should(Succeed())
		// No version shows the gate open, and none a new lift: a lift and the gate after it
		// written as one version (on a busy machine) would still have moved lastLiftTime.
		// The pass itself shows in a version only if its write came before the next probe's.
		var seenRecords []string
		for _, v := range versions()[from:] {
			rec := probeOf(v)
			seenRecords = append(seenRecords, fmt.Sprintf("%s %s gated=%t failures=%d", rec.Result, rec.Message, rec.Gated, rec.ConsecutiveFailures))
			Expect(rec.Gated).To(BeTrue(), "a single pass lifted a damped gate: %v", seenRecords)
			Expect(rec.LastLiftTime.Equal(second.LastLiftTime)).To(BeTrue(), "a single pass lifted a damped gate (lastLiftTime %v, then %v): %v",
				second.LastLiftTime, rec.LastLiftTime, seenRecords)
		}
		lift() // two passes in a row
		Expect(s.entry(Default, "worker-b").Probe.DampingFactor).To(Equal(int32(2)), "the factor shows until a quiet window")

		By("gated a third time: maxFactor (2) caps the factor")
		third := gate()
		Expect(third.DampingFactor).To(Equal(int32(2)))
		lift()
	})

	It("under rampUp brings a lifted cluster back in rising steps, and a new gate stops the ramp at once", func(ctx context.Context) {
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](2), ptr.To[int32](1)
		p.RampUp = &metav1.Duration{Duration: 6 * period}
		s := newProbedService(ctx, "ramp", withProbe(p), both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) int32 { return s.entry(g, "worker-b").Weight }, timeout, interval).Should(BeZero())

		By("the gate lifts: worker-b's share climbs round by round to its full weight")
		versions := watchMap(ctx, s.key)
		s.set("worker-b", modelserver.Serve)
		// Every version of the map the watch saw, from the lift to the full weight.
		var steps []rampStep
		Eventually(func(g Gomega) {
			steps = rampSteps(versions())
			g.Expect(steps).NotTo(BeEmpty())
			g.Expect(steps[len(steps)-1]).To(Equal(rampStep{1, 1, 0}))
		}, timeout, interval).Should(Succeed())
		expectRamp(steps, 14)
		// Every version in which worker-b ramps says so in its weightReason.
		ramping := 0
		for _, v := range versions() {
			for _, e := range v.tm.Spec.Entries {
				if e.Cluster == "worker-b" && e.Probe != nil && e.Probe.RampPercent > 0 {
					ramping++
					Expect(e.WeightReason).To(Equal(omev1beta1.WeightRampingUp), "at resourceVersion %s", v.tm.ResourceVersion)
					Expect(e.WeightMessage).To(HavePrefix(fmt.Sprintf("ramping back up after its gate lifted: %d%% of the weight of ", e.Probe.RampPercent)))
				}
			}
		}
		Expect(ramping).To(BeNumerically(">", 0))
		By("a gate during a new ramp ends it at once")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) int32 { return s.entry(g, "worker-b").Weight }, timeout, interval).Should(BeZero())
		s.set("worker-b", modelserver.Serve)
		Eventually(func(g Gomega) int32 { return s.entry(g, "worker-b").Probe.RampPercent }, timeout, interval/4).Should(
			BeNumerically(">=", 29), "the ramp is under way")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			e := s.entry(g, "worker-b")
			g.Expect(e.Probe.Gated).To(BeTrue())
			g.Expect(e.Probe.RampPercent).To(BeZero())
			g.Expect(e.Weight).To(BeZero())
		}, timeout, interval/4).Should(Succeed())
	})
})

// rampSteps are the shares worker-b shows in the versions of the map, from its lift on,
// each change once.
func rampSteps(versions []mapVersion) []rampStep {
	var steps []rampStep
	for _, v := range versions {
		var a, b *omev1beta1.TrafficMapEntry
		for i, e := range v.tm.Spec.Entries {
			switch e.Cluster {
			case "worker-a":
				a = &v.tm.Spec.Entries[i]
			case "worker-b":
				b = &v.tm.Spec.Entries[i]
			}
		}
		if a == nil || b == nil || b.Probe == nil || b.Probe.Gated {
			continue
		}
		step := rampStep{a.Weight, b.Weight, b.Probe.RampPercent}
		if len(steps) == 0 || steps[len(steps)-1] != step {
			steps = append(steps, step)
		}
	}
	return steps
}

// rampStep is a ramping home's share as the map shows it: the weights of the full home and
// of the ramping one, and the ramping one's rampPercent.
type rampStep struct{ full, ramping, percent int32 }

// expectRamp checks the steps a ramp went through, from the lift to the full weight, with
// one full home and one ramping home of equal capacity: the first share is first (the
// share at the lift, period/(rampUp+period)), the share rises at every step and ends at
// 1:1, each weight pair is 100:percent reduced, and there were several steps. The exact
// shares between depend on when each round's probe finished, so they are not fixed here.
func expectRamp(steps []rampStep, first int32) {
	GinkgoHelper()
	Expect(steps).NotTo(BeEmpty())
	Expect(steps[0].percent).To(Equal(first), "the ramp starts at the lift's share: %v", steps)
	Expect(steps[len(steps)-1]).To(Equal(rampStep{1, 1, 0}), "the ramp ends at the full weight: %v", steps)
	// A busy operator may write two rounds of the ramp in one version, so the spec asks for
	// a step between the lift's share and the full weight, not for a version per round.
	Expect(len(steps)).To(BeNumerically(">=", 3), "the weight rose in steps: %v", steps)
	for i, st := range steps[:len(steps)-1] {
		d := gcd(100, st.percent)
		Expect([2]int32{st.full, st.ramping}).To(Equal([2]int32{100 / d, st.percent / d}), "step %d of %v", i, steps)
		if i > 0 {
			Expect(st.percent).To(BeNumerically(">", steps[i-1].percent), "the share only rises: %v", steps)
		}
	}
}

func gcd(a, b int32) int32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
