package routing

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/pkg/config"
)

// warnedHomes is the map's status.warnedHomes (-o wide's WARNINGS), -1 when not written.
func (s *probedService) warnedHomes(g Gomega) int32 {
	return ptr.Deref(s.trafficMap(g).Status.WarnedHomes, -1)
}

// occurrences counts the events with the given reason on the object of kind with the
// service's name, each event's series included: the events API folds repeats of one event
// into a series on one object.
func (s *probedService) occurrences(g Gomega, kind, reason string) int32 {
	list := &corev1.EventList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(s.key.Namespace))).To(Succeed())
	var n int32
	for _, e := range list.Items {
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == s.key.Name && e.Reason == reason {
			count := max(1, e.Count)
			if e.Series != nil {
				count = max(count, e.Series.Count)
			}
			n += count
		}
	}
	return n
}

// The probe follows the copy's status.url, port included, while the global route sends to
// endpoint.backendPort: a home probed on another port says so, on its entry and in one
// event per change, and keeps its weight.
var _ = Describe("A home probed on another port than the route's", func() {
	It("carries a warning on its entry and one ProbePortMismatch event per change", func(ctx context.Context) {
		s := newProbedService(ctx, "port-mismatch", nil, both(1))
		portOf := func(worker string) int {
			u, err := url.Parse(s.endpoints[worker].URL())
			Expect(err).NotTo(HaveOccurred())
			p, err := strconv.Atoi(u.Port())
			Expect(err).NotTo(HaveOccurred())
			return p
		}
		routePort, otherPort := portOf("worker-a"), portOf("worker-b")
		// The installation publishes to worker-a's model server port: worker-b's probes go
		// to another.
		stopManager()
		stopManager, _ = launchManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16, managerSetup{
			endpoint: config.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: int32(routePort)}})
		DeferCleanup(func() { restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })

		warning := fmt.Sprintf("the probe goes to port %d (the port of the copy's status.url), the global route to port %d (endpoint.backendPort): "+
			"a passing probe does not show that port %d answers", otherPort, routePort, routePort)
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(
			Equal([]string{"worker-a 1 true Passing HTTP 200", "worker-b 1 true Passing HTTP 200"}), "a warning moves no weight")
		Eventually(func(g Gomega) string { return s.entry(g, "worker-b").Warning }).WithTimeout(timeout).WithPolling(interval).Should(Equal(warning))
		Expect(s.entry(Default, "worker-a").Warning).To(BeEmpty())
		Eventually(s.warnedHomes).WithTimeout(timeout).WithPolling(interval).Should(Equal(int32(1)), "-o wide's WARNINGS")
		for _, kind := range []string{"InferenceService", "TrafficMap"} {
			Eventually(func(g Gomega) []string { return s.eventsOn(g, kind, routing.EventProbePortMismatch) }).WithTimeout(timeout).WithPolling(interval).
				Should(Equal([]string{"Cluster worker-b: " + warning}), kind)
		}

		// Probe rounds go by (worker-b's lastProbeTime moves three times): no more events.
		probed := func(g Gomega) string {
			p := s.entry(g, "worker-b").Probe
			g.Expect(p).NotTo(BeNil())
			g.Expect(p.LastProbeTime).NotTo(BeNil())
			return p.LastProbeTime.String()
		}
		for range 3 {
			last := probed(Default)
			Eventually(probed).WithTimeout(timeout).WithPolling(interval).ShouldNot(Equal(last))
		}
		Expect(s.occurrences(Default, "InferenceService", routing.EventProbePortMismatch)).To(Equal(int32(1)))
		Expect(s.occurrences(Default, "TrafficMap", routing.EventProbePortMismatch)).To(Equal(int32(1)))

		// worker-b's copy moves to the route's port: the warning goes.
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-a"].URL(), 1, 1)
		Eventually(func(g Gomega) string { return s.entry(g, "worker-b").Warning }).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Eventually(s.warnedHomes).WithTimeout(timeout).WithPolling(interval).Should(BeZero())
		// And back: a new warning, a second event.
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 1, 1)
		Eventually(func(g Gomega) string { return s.entry(g, "worker-b").Warning }).WithTimeout(timeout).WithPolling(interval).Should(Equal(warning))
		Eventually(func(g Gomega) int32 { return s.occurrences(g, "InferenceService", routing.EventProbePortMismatch) }).
			WithTimeout(timeout).WithPolling(interval).Should(Equal(int32(2)))
	})
})
