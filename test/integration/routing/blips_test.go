package routing

import (
	"context"
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

// hasEntry reports whether the service's map has an entry for cluster.
func (s *probedService) hasEntry(g Gomega, cluster string) bool {
	for _, e := range s.trafficMap(g).Spec.Entries {
		if e.Cluster == cluster {
			return true
		}
	}
	return false
}

var _ = Describe("A home that leaves the map for a moment", func() {
	It("comes back with its gate, which only passing probes lift", func(ctx context.Context) {
		s := newProbedService(ctx, "blip", nil, both(1))
		gateWorkerB(s)

		// worker-b's copy loses its URL for a moment (a rollout, say): the home leaves the
		// map. Meanwhile its endpoint recovers.
		placeCopy(ctx, "worker-b", s.key, "", 1, 1)
		Eventually(func(g Gomega) bool { return s.hasEntry(g, "worker-b") }, timeout, interval).Should(BeFalse())
		s.set("worker-b", modelserver.Serve)
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

var _ = Describe("A home that leaves the map and comes back under a new leader", func() {
	It("comes back with its gate: the departed home's record is kept in the map, not only in the old leader's memory", func(ctx context.Context) {
		s := newProbedService(ctx, "blip-new-leader", nil, both(1))
		gateWorkerB(s)

		// worker-b's home leaves the map (its member turned ConnectionFailed, or its copy
		// lost its URL), and while it is away the leader changes: the new one never
		// probed it.
		placeCopy(ctx, "worker-b", s.key, "", 1, 1)
		Eventually(func(g Gomega) bool { return s.hasEntry(g, "worker-b") }, timeout, interval).Should(BeFalse())
		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 1, 1)

		// Still failing, it comes back gated, at weight 0, and stays so.
		Eventually(func(g Gomega) bool { return s.hasEntry(g, "worker-b") }, timeout, interval/4).Should(BeTrue())
		e := s.entry(Default, "worker-b")
		Expect(e.Probe).NotTo(BeNil(), "the home came back without its probe state")
		Expect(e.Probe.Gated).To(BeTrue(), "the home came back ungated")
		Expect(e.Weight).To(BeZero())
		Consistently(func(g Gomega) bool { return s.entry(g, "worker-b").Probe.Gated }, 3*period, interval).Should(BeTrue())
		tm := s.trafficMap(Default)
		Expect(tm.Annotations).NotTo(HaveKey(routing.DepartedProbesAnnotation), "a returned home's record leaves the annotation")
	})
})

// pointAtNothing makes the worker's kubeconfig Secret point at a loopback port where no
// API server answers, and returns a function that puts the real one back.
func pointAtNothing(ctx context.Context, worker string) func() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	dead := ln.Addr().String()
	Expect(ln.Close()).To(Succeed())

	key := client.ObjectKey{Namespace: envfleet.SecretNamespace, Name: worker + "-kubeconfig"}
	secret := &corev1.Secret{}
	Expect(fleet.ControlPlane.Client.Get(ctx, key, secret)).To(Succeed())
	real := secret.Data[omev1beta1.DefaultKubeConfigKey]
	cfg, err := clientcmd.Load(real)
	Expect(err).NotTo(HaveOccurred())
	for _, c := range cfg.Clusters {
		c.Server = "https://" + dead
	}
	broken, err := clientcmd.Write(*cfg)
	Expect(err).NotTo(HaveOccurred())
	secret.Data[omev1beta1.DefaultKubeConfigKey] = broken
	Expect(fleet.ControlPlane.Client.Update(ctx, secret)).To(Succeed())
	return func() {
		Eventually(func() error {
			s := &corev1.Secret{}
			if err := fleet.ControlPlane.Client.Get(context.Background(), key, s); err != nil {
				return err
			}
			s.Data[omev1beta1.DefaultKubeConfigKey] = real
			return fleet.ControlPlane.Client.Update(context.Background(), s)
		}, timeout, interval).Should(Succeed())
	}
}

var _ = Describe("A member that cannot be reached after a restart", func() {
	It("keeps its entries as last written and holds up no other member's homes", func(ctx context.Context) {
		s := newProbedService(ctx, "unreachable", nil, map[string]int32{"worker-a": 1, "worker-b": 1})
		s.set("worker-b", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe).NotTo(BeNil())
			g.Expect(s.entry(g, "worker-b").Probe.Gated).To(BeTrue())
			g.Expect(s.entry(g, "worker-a").Probe).NotTo(BeNil())
		}, timeout, interval).Should(Succeed())

		// worker-b's API server stops answering while the manager is down; the new one
		// cannot connect to it, and with a long grace keeps it Ready meanwhile.
		stopManager()
		restore := pointAtNothing(ctx, "worker-b")
		grace := memberGrace
		memberGrace = 10 * time.Minute
		DeferCleanup(func() {
			restore()
			memberGrace = grace
			restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
			Eventually(func(g Gomega) {
				wc := &omev1beta1.WorkloadCluster{}
				g.Expect(fleet.ControlPlane.Client.Get(context.Background(), client.ObjectKey{Name: "worker-b"}, wc)).To(Succeed())
				c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
				g.Expect(c).NotTo(BeNil())
				g.Expect(c.Reason).To(Equal(string(omev1beta1.WorkloadClusterReasonReachable)))
			}, timeout, interval).Should(Succeed())
		})
		before := s.entry(Default, "worker-b")
		stopManager = startManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)

		// worker-a is probed and written as usual: its failure shows within a few periods.
		s.set("worker-a", modelserver.Unavailable)
		Eventually(func(g Gomega) {
			p := s.entry(g, "worker-a").Probe
			g.Expect(p.Result).To(Equal(omev1beta1.ProbeFailing))
		}, timeout, interval).Should(Succeed())
		// worker-b's entry is exactly as last written, gate included.
		Expect(s.entry(Default, "worker-b")).To(Equal(before))
		Expect(managerLog).To(gbytesSay("Keeping the entries of unconnected members as last written"))
		wc := &omev1beta1.WorkloadCluster{}
		Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: "worker-b"}, wc)).To(Succeed())
		Expect(meta.IsStatusConditionTrue(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)).To(BeTrue(),
			"worker-b must still be Ready for this test to show anything")
	})
})
