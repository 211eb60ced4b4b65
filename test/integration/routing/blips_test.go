package routing

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/framework"
)

// hasEntry reports whether the service's map has an entry for cluster.
func (s *service) hasEntry(g Gomega, cluster string) bool {
	for _, e := range s.trafficMap(g).Spec.Entries {
		if e.Cluster == cluster {
			return true
		}
	}
	return false
}

var _ = Describe("A home that leaves the map for a moment", func() {
	It("comes back with its gate, which only passing probes lift", func(ctx context.Context) {
		s := newService(ctx, "blip", nil, both(1))
		gateWorkerB(s)

		// worker-b's copy loses its URL for a moment (a rollout, say): the home leaves the
		// map. Meanwhile its endpoint recovers.
		placeCopy(ctx, "worker-b", s.key, "", 1, 1)
		Eventually(func(g Gomega) bool { return s.hasEntry(g, "worker-b") }, timeout, interval).Should(BeFalse())
		s.set("worker-b", framework.Serve)
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 1, 1)

		// From the moment it is back it is gated, until successThreshold passes lift it.
		Eventually(func(g Gomega) bool { return s.hasEntry(g, "worker-b") }, timeout, interval/4).Should(BeTrue())
		e := s.entry(Default, "worker-b")
		Expect(e.Probe).NotTo(BeNil(), "the home came back without its probe state")
		Expect(e.Probe.Gated).To(BeTrue(), "the home came back ungated")
		Expect(e.Weight).To(BeZero())
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-b").Probe
			g.Expect(p.Gated).To(BeFalse())
			g.Expect(p.Result).To(Equal(omev1beta1.ProbePassing))
		}, timeout, interval).Should(Succeed())
	})
})
