package routing

import (
	"cmp"
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

const regionLabel = "topology.kubernetes.io/region"

// labelCluster sets a label on a worker's WorkloadCluster, and takes it off again when the
// spec ends.
func labelCluster(ctx context.Context, worker, key, value string) {
	GinkgoHelper()
	patch := func(ctx context.Context, value *string) {
		Eventually(func(g Gomega) {
			wc := &omev1beta1.WorkloadCluster{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: worker}, wc)).To(Succeed())
			before := wc.DeepCopy()
			if value == nil {
				delete(wc.Labels, key)
			} else {
				metav1.SetMetaDataLabel(&wc.ObjectMeta, key, *value)
			}
			g.Expect(fleet.ControlPlane.Client.Patch(ctx, wc, client.MergeFrom(before))).To(Succeed())
		}, timeout, interval).Should(Succeed())
	}
	patch(ctx, &value)
	// The spec's context is done by the time its cleanups run; a cleanup gets its own.
	DeferCleanup(func(ctx context.Context) { patch(ctx, nil) })
}

// eastWest is a failover setting of two tiers: east names worker-a and worker-b, west
// selects the clusters of region west (worker-c and worker-d, once labelled).
func eastWest() *omev1beta1.RoutingFailover {
	return &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{
		{Name: "east", Clusters: []string{"worker-a", "worker-b"}},
		{Name: "west", ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{regionLabel: "west"}}},
	}}
}

// westShare is the percent of the traffic the map gives worker-c and worker-d.
func westShare(tm *omev1beta1.TrafficMap) float64 {
	var west, all int32
	for _, e := range tm.Spec.Entries {
		all += e.Weight
		if e.Cluster == "worker-c" || e.Cluster == "worker-d" {
			west += e.Weight
		}
	}
	if all == 0 {
		return 0
	}
	return 100 * float64(west) / float64(all)
}

var _ = Describe("Ordered failover", func() {
	four := map[string]int32{"worker-a": 1, "worker-b": 1, "worker-c": 1, "worker-d": 1}

	It("fills the preferred tier first, spills 30% when half of it is gated and all when all of it is, and returns through the ramp", func(ctx context.Context) {
		labelCluster(ctx, "worker-c", regionLabel, "west")
		labelCluster(ctx, "worker-d", regionLabel, "west")
		p := framework.GuideProbe(period, 500*time.Millisecond, omev1beta1.AllFailedPreserveTraffic)
		p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](1), ptr.To[int32](1)
		p.RampUp = &metav1.Duration{Duration: 6 * period}
		s := newProbedService(ctx, "failover", &omev1beta1.Routing{Probe: p, Failover: eastWest()}, four)

		By("all healthy: east takes everything, west stands by")
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{
			"worker-a": 1, "worker-b": 1, "worker-c": 0, "worker-d": 0}))
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(tm.Spec.Failover).NotTo(BeNil())
			g.Expect(tm.Spec.Failover.Summary).To(Equal("east 100%, west 0%"))
			g.Expect(s.entry(g, "worker-c").WeightReason).To(Equal(omev1beta1.WeightStandby))
			g.Expect(s.entry(g, "worker-c").Tier).To(Equal("west"))
			g.Expect(s.entry(g, "worker-a").Tier).To(Equal("east"))
		}, timeout, interval).Should(Succeed())

		By("worker-a gated, half of east: west takes 30%")
		s.set("worker-a", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			tm := s.trafficMap(g)
			g.Expect(westShare(tm)).To(BeNumerically("~", 30, 1), "weights %v", s.weights(g))
			g.Expect(tm.Spec.Failover.Summary).To(Equal("east 70%, west 30%"))
			g.Expect(s.entry(g, "worker-d").WeightReason).To(Equal(omev1beta1.WeightSpilled))
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) []string { return s.events(g, "TrafficSpilled") }, timeout, interval).Should(ContainElement(
			"Traffic spills to tier west, which now takes 30%: east at health 70 of 100"))

		By("worker-b gated too: west takes all of it")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{
			"worker-a": 0, "worker-b": 0, "worker-c": 1, "worker-d": 1}))

		By("both lift: east ramps back up, so west's share falls in steps to 0")
		versions := watchMap(ctx, s.key)
		s.set("worker-a", modelserver.Serve)
		s.set("worker-b", modelserver.Serve)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]int32{
			"worker-a": 1, "worker-b": 1, "worker-c": 0, "worker-d": 0}))
		var between []float64
		for _, v := range versions() {
			if share := westShare(v.tm); share > 0 && share < 100 {
				between = append(between, share)
			}
		}
		Expect(between).NotTo(BeEmpty(), "west's share goes from 100%% to 0%% through the ramp, not at once")
		Expect(slices.IsSortedFunc(between, func(a, b float64) int { return cmp.Compare(b, a) })).To(BeTrue(),
			"west's share only falls while east ramps up: %v", between)
		Eventually(func(g Gomega) []string { return s.events(g, "TrafficReturned") }, timeout, interval).Should(ContainElement(
			"Tier west takes no traffic again: the tiers before it take all of it (east at health 100 of 100)"))
	})

	It("freezes the map while a cluster is in two tiers, and goes on once it is in one", func(ctx context.Context) {
		s := newProbedService(ctx, "failover-overlap", &omev1beta1.Routing{Failover: eastWest()}, four)
		Eventually(func(g Gomega) {
			g.Expect(s.weights(g)).To(Equal(map[string]int32{"worker-a": 1, "worker-b": 1, "worker-c": 0, "worker-d": 0}))
			g.Expect(s.entry(g, "worker-c").Tier).To(Equal(omev1beta1.UnlistedTier), "west selects nothing: c and d are unlisted, behind it")
		}, timeout, interval).Should(Succeed())

		labelCluster(ctx, "worker-a", regionLabel, "west")
		Eventually(func(g Gomega) {
			c := s.condition(g, omev1beta1.TrafficMapSettingsAccepted)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring("validate routing policy: spec.routing.failover: cluster worker-a is in tiers east and west"))
		}, timeout, interval).Should(Succeed())
		Expect(s.weights(Default)).To(Equal(map[string]int32{"worker-a": 1, "worker-b": 1, "worker-c": 0, "worker-d": 0}), "the frozen map keeps its weights")

		s.update(ctx, func(isvc *omev1beta1.InferenceService) {
			isvc.Spec.Routing.Failover.Tiers[0].Clusters = []string{"worker-b"}
		})
		Eventually(func(g Gomega) {
			g.Expect(s.condition(g, omev1beta1.TrafficMapSettingsAccepted).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(s.entry(g, "worker-a").Tier).To(Equal("west"))
			g.Expect(s.weights(g)).To(Equal(map[string]int32{"worker-a": 0, "worker-b": 1, "worker-c": 0, "worker-d": 0}))
		}, timeout, interval).Should(Succeed())
	})
})
