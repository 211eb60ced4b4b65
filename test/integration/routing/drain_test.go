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

func (s *service) drainRows(g Gomega) []drainRow {
	var out []drainRow
	for _, e := range s.trafficMap(g).Spec.Entries {
		out = append(out, drainRow{e.Cluster, e.Weight, e.Healthy, e.DrainRefs})
	}
	return out
}

func (s *service) condition(g Gomega, t string) metav1.Condition {
	c := meta.FindStatusCondition(s.trafficMap(g).Status.Conditions, t)
	g.Expect(c).NotTo(BeNil(), "condition %s", t)
	return *c
}

func (s *service) annotate(ctx context.Context, value *string) {
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
		s := newService(ctx, "drained", nil, map[string]int32{"worker-a": 2, "worker-b": 1})
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
		Expect(s.condition(Default, omev1beta1.TrafficMapOverrideActive)).To(
			conditionIs(metav1.ConditionFalse, "NoOverrides", "no traffic-drain annotation override is configured"))
		Eventually(func(g Gomega) []string { return s.events(g, "HomeUndrained") }, timeout, interval).Should(ContainElements(
			"Cluster worker-a released: no ome.io/traffic-drain override names it any more",
			"Cluster worker-b released: no ome.io/traffic-drain override names it any more"))
	})
})

func ptrTo(s string) *string { return &s }
