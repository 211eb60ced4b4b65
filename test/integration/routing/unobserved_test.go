package routing

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

// cutOff stops the workers' API servers, all at once (envfleet.StopAPIServers), as an
// upgrade or a firewall would, leaving the endpoints of their copies serving. The returned
// functions start each again; the spec's end does so too, if the spec has not, and waits
// for the member to be Ready again, so that the specs after it find the fleet whole.
func cutOff(workers ...string) map[string]func() {
	GinkgoHelper()
	var clusters []*envfleet.Cluster
	for _, w := range workers {
		clusters = append(clusters, fleet.Workers[w])
	}
	Expect(envfleet.StopAPIServers(clusters...)).To(Succeed())
	restore := map[string]func(){}
	for _, w := range workers {
		restore[w] = sync.OnceFunc(func() { Expect(fleet.Workers[w].StartAPIServer()).To(Succeed()) })
		DeferCleanup(func() {
			restore[w]()
			expectReady(w, metav1.ConditionTrue, string(omev1beta1.WorkloadClusterReasonReachable))
		})
	}
	return restore
}

// metricsRegistry holds the routing and member metrics of the in-process managers, which
// register them nowhere else.
var metricsRegistry = sync.OnceValue(func() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	Expect(controllers.RegisterMetrics(reg)).To(Succeed())
	return reg
})

// mapGauge is the value of the service's series of a per-map gauge, -1 when it has none.
func (s *probedService) mapGauge(g Gomega, name string) float64 {
	families, err := metricsRegistry().Gather()
	g.Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["namespace"] == s.key.Namespace && labels["name"] == s.key.Name {
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

var _ = Describe("Members the control plane cannot read", func() {
	It("keep their homes while their probe decides, and only the last ones outlive the grace", func(ctx context.Context) {
		s := newProbedService(ctx, "unobserved", nil, map[string]int32{"worker-a": 1, "worker-b": 2})
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 2 true Passing HTTP 200",
		}))
		Eventually(func(g Gomega) float64 { return s.mapGauge(g, "ome_routing_unobserved_homes") }, timeout, interval).Should(BeZero())

		// Both members' API servers stop; their model servers go on answering.
		restore := cutOff("worker-a", "worker-b")
		expectReady("worker-a", metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed))
		expectReady("worker-b", metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonConnectionFailed))

		// The map keeps both homes at their weights, and each entry says since when its
		// cluster has not been observed.
		Eventually(func(g Gomega) {
			for w, weight := range map[string]int32{"worker-a": 1, "worker-b": 2} {
				e := s.entry(g, w)
				g.Expect(e.UnobservedSince).NotTo(BeNil(), w)
				g.Expect(e.Weight).To(Equal(weight), w)
				g.Expect(e.WeightReason).To(Equal(omev1beta1.WeightUnobserved), w)
				g.Expect(e.WeightMessage).To(HavePrefix("not observed since "+e.UnobservedSince.UTC().Format(time.RFC3339)), w)
			}
			g.Expect(s.routable(g).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(s.mapGauge(g, "ome_routing_unobserved_homes")).To(Equal(2.0))
			g.Expect(s.events(g, "HomeUnobserved")).To(ContainElements(
				HavePrefix("Cluster worker-a is not observed since "), HavePrefix("Cluster worker-b is not observed since ")))
			g.Expect(s.eventsOn(g, "TrafficMap", "HomeUnobserved")).To(HaveLen(2))
		}, timeout, interval).Should(Succeed())

		// Their probes go on, and a failing one gates at once, as on any home.
		probed := s.entry(Default, "worker-b").Probe.LastProbeTime.Time
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.LastProbeTime.Time).To(BeTemporally(">", probed))
		}, timeout, interval).Should(Succeed())
		gateWorkerB(s)
		Eventually(func(g Gomega) {
			b := s.entry(g, "worker-b")
			g.Expect(b.Weight).To(BeZero())
			g.Expect(b.WeightReason).To(Equal(omev1beta1.WeightGated))
			g.Expect(b.UnobservedSince).NotTo(BeNil())
			g.Expect(s.entry(g, "worker-a").Weight).To(Equal(int32(1)))
		}, timeout, interval).Should(Succeed())
		s.set("worker-b", modelserver.Serve)
		Eventually(func(g Gomega) {
			g.Expect(s.entry(g, "worker-b").Probe.Gated).To(BeFalse())
			g.Expect(s.entry(g, "worker-b").Weight).To(Equal(int32(2)))
		}, timeout, interval).Should(Succeed())

		// Past the grace both stay: every home is unobserved.
		since := s.entry(Default, "worker-b").UnobservedSince.Time
		Consistently(func(g Gomega) {
			g.Expect(s.table(g)).To(Equal([]string{
				"worker-a 1 true Passing HTTP 200",
				"worker-b 2 true Passing HTTP 200",
			}))
		}, observationGrace+2*period, interval).Should(Succeed())
		Expect(time.Now()).To(BeTemporally(">", since.Add(observationGrace)), "the spec waited past the grace")

		// worker-a's API server comes back: worker-a is observed again, and worker-b, past
		// its grace, leaves with an event that says why.
		restore["worker-a"]()
		Eventually(func(g Gomega) {
			g.Expect(s.table(g)).To(Equal([]string{"worker-a 1 true Passing HTTP 200"}))
			g.Expect(s.entry(g, "worker-a").UnobservedSince).To(BeNil())
			g.Expect(s.events(g, "HomeObserved")).To(ContainElement(HavePrefix("Cluster worker-a is observed again")))
			g.Expect(s.events(g, "HomeLeft")).To(ContainElement(And(
				HavePrefix("Cluster worker-b left the map and takes no traffic: ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): "),
				HaveSuffix("; not observed since "+since.UTC().Format(time.RFC3339)+", longer than placement.observationGrace ("+
					observationGrace.String()+"), while another home takes traffic"))))
			g.Expect(s.mapGauge(g, "ome_routing_unobserved_homes")).To(BeZero())
		}, timeout, interval).Should(Succeed())

		// With worker-b back too, the map follows both copies again: worker-b rejoins, at
		// the capacity its copy reports now. (A member's watch reconnects on client-go's
		// reflector backoff after an outage: up to 30 s, and up to twice that with its
		// jitter, so the wait allows three times the suite's timeout; a loaded make test
		// once took longer than two.)
		restore["worker-b"]()
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 3, 3)
		placeCopy(ctx, "worker-a", s.key, s.endpoints["worker-a"].URL(), 2, 2)
		Eventually(s.table).WithTimeout(3 * timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 2 true Passing HTTP 200",
			"worker-b 3 true Passing HTTP 200",
		}))
	})
})
