package routing

import (
	"context"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// weights are the map's weights by cluster.
func (s *probedService) weights(g Gomega) map[string]int32 {
	out := map[string]int32{}
	for _, e := range s.trafficMap(g).Spec.Entries {
		out[e.Cluster] = e.Weight
	}
	return out
}

var _ = Describe("Weights and the Routable condition", func() {
	It("follow ready replicas and capacity factors, and record placement on the source", func(ctx context.Context) {
		s := newProbedService(ctx, "weights", nil, map[string]int32{"worker-a": 4, "worker-b": 2})
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"worker-a": 2, "worker-b": 1}))

		isvc := &omev1beta1.InferenceService{}
		Expect(fleet.ControlPlane.Client.Get(ctx, s.key, isvc)).To(Succeed())
		Expect(isvc.Status.Placement).NotTo(BeNil())
		Expect(isvc.Status.Placement.Phase).To(Equal(omev1beta1.PlacementPhasePlaced))
		Expect(isvc.Status.Placement.Candidates).To(HaveLen(2))
		Expect(isvc.Status.Placement.Candidates[0].Endpoint).To(Equal(s.endpoints["worker-a"].URL()))

		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{CapacityFactors: map[string]omev1beta1.CapacityFactor{"worker-b": "3"}}
		})
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"worker-a": 2, "worker-b": 3}))
		Expect(s.entry(Default, "worker-b").Capacity.Factor.String()).To(Equal("3"))

		// A change on a workload cluster reaches the map.
		placeCopy(ctx, "worker-a", s.key, s.endpoints["worker-a"].URL(), 4, 1)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"worker-a": 1, "worker-b": 6}))

		// A factor finer than a thousandth rounds up, as OME rounds it: worker-b's two
		// replicas at 0.0005 count as 2 x 0.001 against worker-a's one (exact: 1000 and 1).
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{CapacityFactors: map[string]omev1beta1.CapacityFactor{"worker-b": "0.0005"}}
		})
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"worker-a": 500, "worker-b": 1}))
		Expect(s.entry(Default, "worker-b").Capacity.Factor.String()).To(Equal("500u"))
	})

	It("is NotPlaced when no cluster matches the placement", func(ctx context.Context) {
		s := newProbedService(ctx, "not-placed", nil, map[string]int32{})
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Placement.ClusterAffinity[0].MatchFields[0].Values = []string{"no-such-cluster"}
		})
		Eventually(func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonNotPlaced)))
		}, timeout, interval).Should(Succeed())
		Expect(s.trafficMap(Default).Spec.Entries).To(BeEmpty())
	})

	It("is NoAddressableHome when no copy reports an endpoint", func(ctx context.Context) {
		s := newProbedService(ctx, "no-address", nil, both(1))
		for _, w := range []string{"worker-a", "worker-b"} {
			placeCopy(ctx, w, s.key, "", 1, 1)
		}
		Eventually(func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonNoAddressableHome)))
		}, timeout, interval).Should(Succeed())
	})

	It("is AllHomesUnready when no home has a ready replica", func(ctx context.Context) {
		s := newProbedService(ctx, "unready", nil, both(0))
		Eventually(func(g Gomega) {
			c := s.routable(g)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.TrafficMapReasonAllHomesUnready)))
		}, timeout, interval).Should(Succeed())
		Expect(s.table(Default)).To(HaveEach(ContainSubstring(" 0 false ")))
	})

	It("undoes a hand edit and leaves a map the service does not control alone", func(ctx context.Context) {
		s := newProbedService(ctx, "hand-edit", nil, both(1))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			tm.Spec.Entries[0].Weight = 999
			g.Expect(fleet.ControlPlane.Client.Update(ctx, tm)).To(Succeed())
		}, timeout, interval).Should(Succeed())
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{"worker-a": 1, "worker-b": 1}))

		foreign := &omev1beta1.TrafficMap{
			ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: s.key.Namespace},
			Spec:       omev1beta1.TrafficMapSpec{Service: "foreign"},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, foreign)).To(Succeed())
		other := newSourceServiceIn(ctx, s.key.Namespace, "foreign")
		Eventually(managerLog, timeout, interval).Should(gbytes.Say(regexp.QuoteMeta("TrafficMap "+s.key.Namespace+"/foreign exists but is not controlled by InferenceService UID ") +
			`[0-9a-f-]+: not controlled by the service`))
		Consistently(func(g Gomega) {
			tm := &omev1beta1.TrafficMap{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, other, tm)).To(Succeed())
			g.Expect(tm.Spec.Entries).To(BeEmpty())
			g.Expect(tm.OwnerReferences).To(BeEmpty())
		}, 2*period, interval).Should(Succeed())
	})

	It("deletes the map when the service opts out of routing", func(ctx context.Context) {
		s := newProbedService(ctx, "opt-out", nil, both(1))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing = &omev1beta1.Routing{Enabled: new(bool)}
		})
		Eventually(func() error {
			return fleet.ControlPlane.Client.Get(ctx, s.key, &omev1beta1.TrafficMap{})
		}, timeout, interval).Should(MatchError(ContainSubstring("not found")))
	})
})
