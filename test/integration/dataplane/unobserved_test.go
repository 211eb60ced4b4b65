package dataplane

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/traffic"
)

// readyReasons are the workers' Ready conditions as "Status Reason".
func readyReasons(ctx context.Context) func(Gomega) []string {
	return func(g Gomega) []string {
		var out []string
		for _, w := range workers {
			wc := &omev1beta1.WorkloadCluster{}
			g.Expect(env.Fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: w}, wc)).To(Succeed())
			c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
			g.Expect(c).NotTo(BeNil())
			out = append(out, string(c.Status)+" "+c.Reason)
		}
		return out
	}
}

var _ = Describe("Requests through haproxy while the control plane cannot read any member", func() {
	It("keep flowing by the weights: the members' homes stay in the route, unobserved", func(ctx context.Context) {
		all := map[string]int32{"worker-a": 3, "worker-b": 2, "worker-c": 1}
		expectRouting(ctx, all)

		// Every member's API server stops under a steady load; the model servers go on.
		// A member turns ConnectionFailed only after the manager's member grace (30 s
		// after its health checks start failing, which they do every 15 s).
		load := env.Traffic.StartLoad(ctx, loadRate, loadRate*int(4*timeout.Seconds()))
		var clusters []*envfleet.Cluster
		for _, w := range workers {
			clusters = append(clusters, env.Fleet.Workers[w])
		}
		Expect(envfleet.StopAPIServers(clusters...)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			for _, c := range clusters {
				Expect(c.StartAPIServer()).To(Succeed())
			}
			Eventually(readyReasons(ctx)).WithTimeout(2 * timeout).WithPolling(interval).Should(HaveEach("True Reachable"))
		})
		Eventually(readyReasons(ctx)).WithTimeout(2 * timeout).WithPolling(interval).Should(HaveEach("False ConnectionFailed"))
		Eventually(func(g Gomega) {
			tm, err := env.TrafficMap(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(tm.Spec.Entries).To(HaveLen(len(workers)))
			for _, e := range tm.Spec.Entries {
				g.Expect(e.UnobservedSince).NotTo(BeNil(), e.Cluster)
				g.Expect(e.WeightReason).To(Equal(omev1beta1.WeightUnobserved), e.Cluster)
			}
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		awaitRouting(ctx, all)

		t := traffic.TallyOf(load.Stop())
		Expect(t.Failed()).To(BeZero(), "requests across the outage that failed through the gateway: %s", t)
		Expect(t.Refused).To(BeEmpty(), "no cluster failed a request: %s", t)
		batch, got := send(ctx, batchSize)
		expectSplit(batch, got, all)
		AddReportEntry("across the outage", t.String())
	})
})
