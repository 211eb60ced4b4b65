package publisher

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
)

// readyReason is a WorkloadCluster's Ready condition as "Status Reason".
func readyReason(g Gomega, name string) string {
	wc := &omev1beta1.WorkloadCluster{}
	g.Expect(fleet.ControlPlane.Client.Get(context.Background(), client.ObjectKey{Name: name}, wc)).To(Succeed())
	c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
	g.Expect(c).NotTo(BeNil())
	return string(c.Status) + " " + c.Reason
}

var _ = Describe("Members whose API servers stop", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("keep their backends in the route while their model servers answer", func(ctx context.Context) {
		s := newService(ctx, "blind", nil, nil)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		Expect(envfleet.StopAPIServers(fleet.Workers["worker-a"], fleet.Workers["worker-b"])).To(Succeed())
		var restore sync.Once
		start := func() {
			restore.Do(func() {
				for _, w := range []string{"worker-a", "worker-b"} {
					Expect(fleet.Workers[w].StartAPIServer()).To(Succeed())
				}
			})
		}
		DeferCleanup(func() {
			start()
			for _, w := range []string{"worker-a", "worker-b"} {
				Eventually(readyReason).WithArguments(w).WithTimeout(timeout).WithPolling(interval).Should(Equal("True Reachable"))
			}
		})
		for _, w := range []string{"worker-a", "worker-b"} {
			Eventually(readyReason).WithArguments(w).WithTimeout(timeout).WithPolling(interval).Should(Equal("False ConnectionFailed"))
		}
		// The map marks both homes unobserved, and the route keeps both backends.
		Eventually(func(g Gomega) {
			for _, e := range s.trafficMap(g).Spec.Entries {
				g.Expect(e.UnobservedSince).NotTo(BeNil(), e.Cluster)
			}
			g.Expect(s.trafficMap(g).Spec.Entries).To(HaveLen(2))
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Consistently(s.weights).WithTimeout(3 * time.Second).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))

		// Back: the map follows the copies again (each member's watch reconnects on its
		// own backoff, up to half a minute after an outage), so the specs after this one
		// find the members live.
		start()
		for _, w := range []string{"worker-a", "worker-b"} {
			u, err := url.Parse(s.endpoints[w].URL())
			Expect(err).NotTo(HaveOccurred())
			Expect(envfleet.PlaceCopy(ctx, fleet.Workers[w].Client, s.key, fmt.Sprintf("http://%s.example.test:%s", w, u.Port()), 2, 2)).To(Succeed())
		}
		Eventually(func(g Gomega) {
			for _, e := range s.trafficMap(g).Spec.Entries {
				g.Expect(e.UnobservedSince).To(BeNil(), e.Cluster)
				g.Expect(e.Capacity.Ready).To(Equal(int32(2)), e.Cluster)
			}
		}).WithTimeout(2 * timeout).WithPolling(interval).Should(Succeed())
	})
})
