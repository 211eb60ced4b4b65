package dataplane

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

// failoverBatch and failoverPoints are the measure of a spill through the data
// plane: 400 requests, each cluster within 3 percentage points of the map's share.
const (
	failoverBatch  = 400
	failoverPoints = 3.0
)

// Real requests follow the tiers: haproxy knows nothing of them, only the weights the
// operator computed, so the spill it applies is the operator's.
var _ = Describe("Requests through haproxy under ordered failover", func() {
	It("stay in the preferred tier while it is healthy, and spill to the next by the map's shares as it degrades", func(ctx context.Context) {
		all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
		setFailover(ctx, &omev1beta1.RoutingFailover{Tiers: []omev1beta1.FailoverTier{
			{Name: "east", Clusters: []string{"worker-a", "worker-b"}},
			{Name: "west", Clusters: []string{"worker-c"}},
		}})
		DeferCleanup(func(ctx context.Context) {
			set(modelserver.Serve, workers...)
			setFailover(ctx, nil)
			expectRouting(ctx, all)
		})

		By("east is whole: worker-c stands by and gets no request")
		expectShares(ctx, map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 0}, "east 100%, west 0%")

		By("worker-b (2 of east's 5 replicas) is gated: east is 60% healthy, 84 points, and west takes 16%")
		set(modelserver.Unavailable, "worker-b")
		expectShares(ctx, map[string]int32{"worker-a": 21, "worker-b": 0, "worker-c": 4}, "east 84%, west 16%")

		By("worker-b recovers: west stands by again")
		set(modelserver.Serve, "worker-b")
		expectShares(ctx, map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 0}, "east 100%, west 0%")
	})
})

// expectShares waits until the map and the route have the weights and the map records the
// tier split, and then checks a batch of failoverBatch requests: none fails, none reaches a
// cluster of weight 0, and each cluster's share is within failoverPoints of its weight's.
func expectShares(ctx context.Context, want map[string]int32, summary string) {
	GinkgoHelper()
	Eventually(func(g Gomega) string {
		tm, err := env.TrafficMap(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(tm.Spec.Failover).NotTo(BeNil())
		return tm.Spec.Failover.Summary
	}).WithTimeout(timeout).WithPolling(interval).Should(Equal(summary))
	awaitRouting(ctx, want)
	t, got := send(ctx, failoverBatch)
	Expect(t.Failed()).To(BeZero(), "requests that failed through the gateway: %s", t)
	var total int32
	for _, w := range want {
		total += w
	}
	for c, w := range want {
		share := 100 * float64(w) / float64(total)
		measured := 100 * float64(got[c]) / failoverBatch
		if w == 0 {
			Expect(got[c]).To(BeZero(), "%s has weight 0 and got requests: %v", c, got)
			continue
		}
		Expect(measured).To(BeNumerically("~", share, failoverPoints), "%s's share of %d requests with weights %v: %v", c, failoverBatch, want, got)
	}
	AddReportEntry("failover split", fmt.Sprintf("%s: %v", summary, got))
}

// setFailover replaces the service's failover setting; nil removes it.
func setFailover(ctx context.Context, f *omev1beta1.RoutingFailover) {
	GinkgoHelper()
	updateService(ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Failover = f })
}
