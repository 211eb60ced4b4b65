package routing

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/modelserver"
)

var _ = Describe("The shared observer", func() {
	It("never has more than maxConcurrentRequests in flight, and every home is still probed", func(ctx context.Context) {
		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 1)
		DeferCleanup(func() { restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })

		// Ten homes whose answers take a while, so that without the cap their probes
		// would overlap.
		shared := &modelserver.InFlight{}
		var services []*probedService
		for i := range 5 {
			s := newProbedService(ctx, fmt.Sprintf("capped-%d", i), nil, both(1))
			for w, old := range s.endpoints {
				ep, err := modelserver.StartEndpoint(shared)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(ep.Close)
				ep.SetDelay(20 * time.Millisecond)
				old.Close()
				s.endpoints[w] = ep
				placeCopy(ctx, w, s.key, ep.URL(), 1, 1)
			}
			services = append(services, s)
		}
		first := map[string]time.Time{}
		Eventually(func(g Gomega) {
			for _, s := range services {
				for _, w := range []string{"worker-a", "worker-b"} {
					e := s.entry(g, w)
					g.Expect(e.Endpoint).To(Equal(s.endpoints[w].URL()))
					g.Expect(e.Probe).NotTo(BeNil())
					first[s.key.String()+w] = e.Probe.LastProbeTime.Time
				}
			}
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) {
			for _, s := range services {
				for _, w := range []string{"worker-a", "worker-b"} {
					g.Expect(s.entry(g, w).Probe.LastProbeTime.Time).To(BeTemporally(">", first[s.key.String()+w]))
				}
			}
		}, timeout, interval).Should(Succeed())
		Expect(shared.Max()).To(Equal(int64(1)))
	})
})

var _ = Describe("A workload cluster that stops answering", func() {
	It("turns not Ready while the other cluster's routing goes on", func(ctx context.Context) {
		s := newProbedService(ctx, "member-down", nil, map[string]int32{"worker-a": 1, "worker-c": 1})
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-c 1 true Passing HTTP 200",
		}))

		// Stopped and started again at the spec's end (cutOff), so that the specs after it
		// find the fleet whole: the failover specs route over worker-c too.
		cutOff("worker-c")
		Eventually(func(g Gomega) {
			wc := &omev1beta1.WorkloadCluster{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: "worker-c"}, wc)).To(Succeed())
			c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(string(omev1beta1.WorkloadClusterReasonConnectionFailed)))
			// The message says what failed: the /version check, and why.
			g.Expect(c.Message).To(And(HavePrefix("GET /version: "), ContainSubstring("connection refused")))
		}, timeout, interval).Should(Succeed())

		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
		}))
		before := s.entry(Default, "worker-a").Probe.LastProbeTime.Time
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-a").Probe.LastProbeTime.Time).To(BeTemporally(">", before))
		}, timeout, interval).Should(Succeed())

		// worker-a's own cluster is still Ready.
		wc := &omev1beta1.WorkloadCluster{}
		Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: "worker-a"}, wc)).To(Succeed())
		Expect(meta.IsStatusConditionTrue(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)).To(BeTrue())
	})
})
