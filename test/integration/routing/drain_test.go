package routing

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const drainAnnotation = "ome.io/traffic-drain"

// drainRow is one entry as the drain scenario reads it.
type drainRow struct {
	Cluster   string
	Weight    int32
	Healthy   bool
	DrainRefs []string
}

func (s *probedService) drainRows(g Gomega) []drainRow {
	var out []drainRow
	for _, e := range s.trafficMap(g).Spec.Entries {
		out = append(out, drainRow{e.Cluster, e.Weight, e.Healthy, e.DrainRefs})
	}
	return out
}

func (s *probedService) condition(g Gomega, t string) metav1.Condition {
	c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, t)
	g.Expect(c).NotTo(BeNil(), "condition %s", t)
	return *c
}

func (s *probedService) annotate(ctx context.Context, value *string) {
	s.update(ctx, func(isvc *omev1beta1.InferenceService) {
		if value == nil {
			delete(isvc.Annotations, drainAnnotation)
			return
		}
		if isvc.Annotations == nil {
			isvc.Annotations = map[string]string{}
		}
		isvc.Annotations[drainAnnotation] = *value
	})
}

func conditionIs(status metav1.ConditionStatus, reason, message string) OmegaMatcher {
	return And(
		HaveField("Status", status),
		HaveField("Reason", reason),
		HaveField("Message", message),
	)
}

var _ = Describe("Manual traffic drains", func() {
	It("holds a drained cluster at 0, reports it, freezes on a bad annotation and releases on removal", func(ctx context.Context) {
		s := newProbedService(ctx, "drained", nil, map[string]int32{"worker-a": 2, "worker-b": 1})
		Eventually(s.drainRows).WithTimeout(timeout).WithPolling(interval).Should(Equal([]drainRow{
			{"worker-a", 2, true, nil}, {"worker-b", 1, true, nil},
		}))
		Eventually(func(g Gomega) metav1.Condition { return s.condition(g, omev1beta1.TrafficMapOverrideActive) }, timeout, interval).Should(
			conditionIs(metav1.ConditionFalse, "NoOverrides", "no traffic-drain annotation override is configured"))

		By("draining worker-a")
		s.annotate(ctx, ptrTo(`{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`))
		Eventually(s.drainRows).WithTimeout(timeout).WithPolling(interval).Should(Equal([]drainRow{
			{"worker-a", 0, true, []string{"maintenance-a"}}, {"worker-b", 1, true, nil},
		}))
		Eventually(func(g Gomega) metav1.Condition { return s.condition(g, omev1beta1.TrafficMapOverrideActive) }, timeout, interval).Should(
			conditionIs(metav1.ConditionTrue, "OverridesApplied",
				"1 of 1 traffic-drain annotation override(s) active across 1 route arm(s); inspect spec.entries[].drainRefs"))
		Expect(s.routable(Default)).To(conditionIs(metav1.ConditionTrue, "Routable", "1 of 2 home(s) take traffic"))
		Eventually(func(g Gomega) []string { return s.events(g, "HomeDrained") }, timeout, interval).Should(
			ContainElement("Cluster worker-a held at weight 0 by ome.io/traffic-drain override(s) maintenance-a"))

		By("draining worker-b too, and a cluster that is not a home")
		s.annotate(ctx, ptrTo(`{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"},`+
			`"b":{"cluster":"worker-b","reason":"r"},"typo":{"cluster":"worker-q","reason":"r"}}`))
		Eventually(func(g Gomega) metav1.Condition { return s.routable(g) }, timeout, interval).Should(
			conditionIs(metav1.ConditionFalse, "TrafficDrain", "manual traffic-drain overrides set all 2 route arm(s) to zero"))
		Expect(s.condition(Default, omev1beta1.TrafficMapOverrideActive)).To(
			conditionIs(metav1.ConditionTrue, "OverridesApplied",
				"2 of 3 traffic-drain annotation override(s) active across 2 route arm(s); inspect spec.entries[].drainRefs"))

		By("freezing the map on a malformed annotation")
		s.annotate(ctx, ptrTo(`{"maintenance-a":{"cluster":"worker-a"}}`))
		const refusal = `parse ome.io/traffic-drain: override "maintenance-a" reason must be non-empty`
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(refusal))
		Eventually(managerLog).WithTimeout(timeout).Should(gbytesSay(refusal))
		frozen := s.drainRows(Default)
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 3, 3)
		Consistently(s.drainRows, 3*time.Second, interval).Should(Equal(frozen), "a frozen map takes no change")

		By("removing the annotation")
		s.annotate(ctx, nil)
		Eventually(s.drainRows).WithTimeout(timeout).WithPolling(interval).Should(Equal([]drainRow{
			{"worker-a", 2, true, nil}, {"worker-b", 3, true, nil},
		}))
		// The status is its own write after the spec's, so it may lag the rows.
		Eventually(func(g Gomega) {
			g.Expect(s.condition(g, omev1beta1.TrafficMapOverrideActive)).To(
				conditionIs(metav1.ConditionFalse, "NoOverrides", "no traffic-drain annotation override is configured"))
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) []string { return s.events(g, "HomeUndrained") }, timeout, interval).Should(ContainElements(
			"Cluster worker-a released: no ome.io/traffic-drain override names it any more",
			"Cluster worker-b released: no ome.io/traffic-drain override names it any more"))
	})
})

// A bad drain annotation freezes the map, gates and all; the frozen map keeps saying how
// many homes its probe gates, so that OMERoutingHomeGated does not resolve while traffic
// is still held off the cluster. The reconciler stops the prober when it refuses, and the
// prober's Forget must not take the reconciler's gauges with it.
var _ = Describe("A map frozen by a bad drain annotation", func() {
	It("keeps its gated-homes series while it keeps its gate", func(ctx context.Context) {
		s := newProbedService(ctx, "drain-frozen-gauge", nil, both(1))
		gateWorkerB(s)
		Eventually(func(g Gomega) float64 { return s.mapGauge(g, "ome_routing_gated_homes") }, timeout, interval).Should(Equal(1.0))

		s.annotate(ctx, ptrTo(`{"maintenance-a":{"cluster":"worker-a"}}`))
		const refusal = `parse ome.io/traffic-drain: override "maintenance-a" reason must be non-empty`
		Eventually(func(g Gomega) []string { return s.events(g, "RoutingPolicyRefused") }, timeout, interval).Should(ContainElement(refusal))
		Expect(s.mapGauge(Default, "ome_routing_settings_refused")).To(Equal(1.0))
		// Every reconcile of the frozen map refuses again and stops the prober again; the
		// gate stays in the map, and so does its series.
		Consistently(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.Gated).To(BeTrue())
			g.Expect(s.mapGauge(g, "ome_routing_gated_homes")).To(Equal(1.0), "ome_routing_gated_homes of the frozen map")
		}, 3*period, interval).Should(Succeed())

		// Removing the annotation unfreezes the map; its gauges are set from the next write.
		s.annotate(ctx, nil)
		Eventually(func(g Gomega) float64 { return s.mapGauge(g, "ome_routing_settings_refused") }, timeout, interval).Should(Equal(0.0))
		Expect(s.mapGauge(Default, "ome_routing_gated_homes")).To(Equal(1.0))
	})
})

func ptrTo(s string) *string { return &s }
