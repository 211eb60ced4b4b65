package publisher

import (
	"context"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
)

// A cluster whose gate lifts under rampUp comes back into Envoy's cluster in steps: Envoy
// Gateway's translator, fed the live objects round after round, shows worker-b's share of
// the locality weights rising to an even split.
var _ = Describe("Envoy Gateway's view of a ramp", func() {
	It("follows the ramp: worker-b's weight rises over the rounds after its gate lifts", func(ctx context.Context) {
		egctl := os.Getenv("EGCTL")
		if egctl == "" {
			Skip("EGCTL is not set (make test builds bin/egctl-<version> and sets it)")
		}
		ensureEnvoyGateway(ctx)
		useManager(envoyEndpoint(false), config.Publisher{})
		p := probeSpec(omev1beta1.AllFailedPreserveTraffic)
		// Twenty rounds of ramp, so that the translator (a second or so a run here, several
		// on a loaded machine) sees more than one.
		p.RampUp = &metav1.Duration{Duration: 20 * period}
		s := newService(ctx, "ramp", &omev1beta1.Routing{Probe: p}, nil)
		envoy := func(g Gomega) map[string]uint32 { return envoyWeights(ctx, g, egctl, s) }
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))

		By("worker-b is gated: it drops out of Envoy's cluster")
		s.set("worker-b", modelserver.Unavailable)
		Eventually(envoy).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string]uint32{"worker-a": 1}))

		By("the gate lifts: Envoy's share for worker-b climbs round by round")
		s.set("worker-b", modelserver.Serve)
		var shares []float64 // worker-b's share of Envoy's weights, as it changes
		Eventually(func(g Gomega) {
			w := envoy(g)
			g.Expect(w).To(HaveKey("worker-b"), "not lifted yet")
			share := float64(w["worker-b"]) / float64(w["worker-a"]+w["worker-b"])
			if len(shares) == 0 || shares[len(shares)-1] != share {
				shares = append(shares, share)
			}
			g.Expect(w).To(Equal(map[string]uint32{"worker-a": 1, "worker-b": 1}))
		}, 2*timeout, interval).Should(Succeed())
		// The last share is the even split; before it, the share only rose, from a part of
		// it: a cluster back at its whole weight at once would show 0.5 alone. Each
		// translator run takes a while, so the first view may come some rounds in, and a
		// loaded machine sees fewer of the steps.
		Expect(shares[len(shares)-1]).To(Equal(0.5))
		Expect(len(shares)).To(BeNumerically(">=", 2), "Envoy saw the weight rise in steps: %v", shares)
		Expect(shares[0]).To(BeNumerically("<", 0.45), "Envoy's first view of worker-b is a part of its share: %v", shares)
		for i := 1; i < len(shares); i++ {
			Expect(shares[i]).To(BeNumerically(">", shares[i-1]), "the share only rises: %v", shares)
		}
		GinkgoWriter.Printf("worker-b's share of Envoy's weights over the ramp: %v\n", shares)
	})
})
