package routing

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/modelserver"
)

// kubectl runs the real kubectl against the control plane and returns what it printed.
func kubectl(args ...string) string {
	bin := os.Getenv("KUBECTL")
	if bin == "" {
		Skip("KUBECTL is not set: these specs read the map the way a person does, with kubectl")
	}
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, fleet.ControlPlane.KubeConfig, 0o600)).To(Succeed())
	out, err := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	return string(out)
}

// noTrafficColumn is the NO-TRAFFIC column of `kubectl get trafficmap NAME -o wide`: the
// one command that answers "why does this cluster get no traffic?". It is the last
// column, so its value runs from the header's position to the end of the line.
func (s *probedService) noTrafficColumn() string {
	out := kubectl("get", "trafficmap", s.key.Name, "-n", s.key.Namespace, "-o", "wide")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	Expect(lines).To(HaveLen(2), out)
	at := strings.Index(lines[0], "NO-TRAFFIC")
	Expect(at).To(BeNumerically(">", 0), out)
	Expect(strings.HasSuffix(strings.TrimSpace(lines[0]), "NO-TRAFFIC")).To(BeTrue(), "NO-TRAFFIC is the last column: %s", out)
	if len(lines[1]) <= at {
		return ""
	}
	return strings.TrimSpace(lines[1][at:])
}

// mapEvents are the notes of the events with the given reason on the service's TrafficMap.
func (s *probedService) mapEvents(g Gomega, reason string) []string {
	return s.eventsOn(g, "TrafficMap", reason)
}

// expectNoTraffic waits until the NO-TRAFFIC column says the cause and worker-a still
// takes traffic: the answer names worker-b alone.
func (s *probedService) expectNoTraffic(matcher OmegaMatcher) {
	Eventually(s.noTrafficColumn).WithTimeout(timeout).WithPolling(interval).Should(matcher)
	Expect(s.entry(Default, "worker-a").Weight).To(BeNumerically(">", 0))
	Expect(s.noTrafficColumn()).NotTo(ContainSubstring("worker-a"))
}

// Each case of "why does worker-b get no traffic?" is answered by one command, with the
// cause in full, and the transition is an event on the TrafficMap as well as on the
// service.
var _ = Describe("Why worker-b gets no traffic", func() {
	It("is gated: the probe's failures, on the map's events and in describe", func(ctx context.Context) {
		s := newProbedService(ctx, "why-gated", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		Expect(s.entry(Default, "worker-b").WeightReason).To(Equal(omev1beta1.WeightRouted))
		gateWorkerB(s)
		s.expectNoTraffic(And(
			HavePrefix("worker-b Gated: gated by the routing probe after "),
			HaveSuffix(" failure(s) in a row; last probe Failing: HTTP 503")))
		Expect(s.entry(Default, "worker-b").WeightReason).To(Equal(omev1beta1.WeightGated))
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeGated) }, timeout, interval).Should(
			ConsistOf("Cluster worker-b gated after 3 probe failures in a row: HTTP 503"))
		Expect(s.events(Default, routing.EventHomeGated)).To(HaveLen(1), "the service's event stays, beside the map's")
		Expect(kubectl("describe", "trafficmap", s.key.Name, "-n", s.key.Namespace)).To(
			MatchRegexp(`Warning\s+HomeGated\s+.*Cluster worker-b gated after 3 probe failures in a row: HTTP 503`))
		Expect(managerLog).To(gbytesSay(`"reason": "HomeGated"`))

		s.set("worker-b", modelserver.Serve)
		Eventually(s.noTrafficColumn).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeUngated) }, timeout, interval).Should(
			ConsistOf("Cluster worker-b gate lifted: it passed successThreshold probes in a row; last probe Passing: HTTP 200"))
	})

	It("is drained", func(ctx context.Context) {
		s := newProbedService(ctx, "why-drained", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		s.annotate(ctx, ptr.To(`{"maintenance-b":{"cluster":"worker-b","reason":"planned"}}`))
		s.expectNoTraffic(Equal("worker-b Drained: held at weight 0 by traffic-drain override(s) maintenance-b"))
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeDrained) }, timeout, interval).Should(
			ConsistOf("Cluster worker-b held at weight 0 by ome.io/traffic-drain override(s) maintenance-b"))
	})

	It("is capped at 0 by its capacity report, which is an event", func(ctx context.Context) {
		s := newProbedService(ctx, "why-capped", &omev1beta1.Routing{Capacity: capacitySpec()}, both(1))
		s.endpoints["worker-a"].SetServable(1)
		s.endpoints["worker-b"].SetServable(1)
		Eventually(func(g Gomega) string { return s.capacityOf(g, "worker-b") }, timeout, interval).Should(ContainSubstring("reported=1"))
		s.endpoints["worker-b"].SetServable(0)
		s.expectNoTraffic(Equal("worker-b CapacityCapped: capped at 0 replicas by its capacity report"))
		capped := "Cluster worker-b capped at 0 replicas by its capacity report: it takes no traffic until a report above 0"
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeCapacityCapped) }, timeout, interval).Should(
			ConsistOf(capped))
		Expect(s.events(Default, routing.EventHomeCapacityCapped)).To(ConsistOf(capped), "one on the service, beside the map's")

		s.endpoints["worker-b"].SetServable(1)
		Eventually(s.noTrafficColumn).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeCapacityRestored) }, timeout, interval).Should(
			ConsistOf("Cluster worker-b is no longer capped at 0 by its capacity report: 1 allocated replica(s) count"))
	})

	It("has no ready replica, then no endpoint, then no copy", func(ctx context.Context) {
		s := newProbedService(ctx, "why-unready", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 1, 0)
		s.expectNoTraffic(Equal("worker-b NoReadyReplicas: no ready replica: its copy reports 0 ready of 1 allocated (a copy that is not IngressReady counts none)"))

		// Without a status.url the cluster leaves the map, and the map says why.
		placeCopy(ctx, "worker-b", s.key, "", 1, 1)
		noEndpoint := "worker-b NoEndpoint: its copy of InferenceService " + s.key.String() + " reports no status.url yet"
		s.expectNoTraffic(Equal(noEndpoint))
		Expect(s.trafficMap(Default).Status.ExcludedClusters).To(Equal([]omev1beta1.ExcludedCluster{{Cluster: "worker-b",
			Reason: omev1beta1.ExcludedNoEndpoint, Message: "its copy of InferenceService " + s.key.String() + " reports no status.url yet"}}))
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeLeft) }, timeout, interval).Should(
			ConsistOf("Cluster worker-b left the map and takes no traffic: NoEndpoint: its copy of InferenceService " + s.key.String() +
				" reports no status.url yet"))

		Expect(fleet.Workers["worker-b"].Client.Delete(ctx, &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: s.key.Name}})).To(Succeed())
		s.expectNoTraffic(Equal("worker-b NoCopy: the cluster holds no copy of InferenceService " + s.key.String()))
	})

	It("is unreachable: it leaves the map with the WorkloadCluster's reason, and rejoins it", func(ctx context.Context) {
		s := newProbedService(ctx, "why-unreachable", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		restore := pointAtNothing(ctx, "worker-b")
		restored := false
		DeferCleanup(func() {
			if !restored {
				restore()
			}
		})
		s.expectNoTraffic(HavePrefix("worker-b ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): "))
		Expect(s.hasEntry(Default, "worker-b")).To(BeFalse())
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeLeft) }, timeout, interval).Should(
			ConsistOf(HavePrefix("Cluster worker-b left the map and takes no traffic: ClusterUnreachable: WorkloadCluster Ready is False (ConnectionFailed): ")))
		Expect(s.trafficMap(Default).Status.Homes).To(Equal(ptr.To[int32](1)))

		restore()
		restored = true
		Eventually(s.noTrafficColumn).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(s.trafficMap(Default).Status.ExcludedClusters).To(BeEmpty())
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeJoined) }, timeout, interval).Should(
			ConsistOf(HavePrefix("Cluster worker-b joined the map with weight ")))
	})

	It("is refused: the observer's guard does not send its probe", func(ctx context.Context) {
		s := newProbedService(ctx, "why-not-sent", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(HaveLen(2))
		placeCopy(ctx, "worker-b", s.key, "http://10.0.0.7:8080", 1, 1)
		s.expectNoTraffic(Equal("worker-b ProbeNotSent: probe not sent: destination 10.0.0.7 is in a private network and refused " +
			"by the observer's network guard (routing.observer.allowPrivateNetworks is off)"))
		Eventually(func(g Gomega) []string { return s.mapEvents(g, routing.EventHomeRefused) }, timeout, interval).Should(
			ConsistOf(HavePrefix("Cluster worker-b takes no traffic: the operator refuses it: probe not sent: ")))
	})
})

var _ = Describe("A gate lifted by a new status.url", func() {
	It("says the endpoint changed, not the probe policy", func(ctx context.Context) {
		s := newProbedService(ctx, "lift-url", nil, both(1))
		gateWorkerB(s)
		moved, err := modelserver.StartEndpoint(nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(moved.Close)
		placeCopy(ctx, "worker-b", s.key, moved.URL(), 1, 1)
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeUngated) }, timeout, interval).Should(
			ContainElement("Cluster worker-b gate lifted: its endpoint (the status.url of its copy) changed, so its probe record starts over"))
		Expect(s.events(Default, routing.EventHomeUngated)).NotTo(ContainElement(ContainSubstring("probe policy")))
	})
})
