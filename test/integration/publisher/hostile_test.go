package publisher

import (
	"context"
	"fmt"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// A member writes its copy's status.url, and one cluster's endpoint must not freeze the
// route of every cluster of the service: an endpoint the route could not name is refused
// for that cluster alone (at the source, as a refused home), and a host with a trailing
// dot is the same name as without it. Either way, the other cluster's gate and lift reach
// the route.
var _ = Describe("A member's endpoint the route cannot name as written", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("is published by its canonical name when it has a trailing dot and capitals", func(ctx context.Context) {
		s := newService(ctx, "fqdn", &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedDrain)}, nil)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key,
			fmt.Sprintf("http://Worker-B.example.test.:%s/", s.port("worker-b")), 1, 1)).To(Succeed())

		name := publish.BackendName(s.key.Namespace, s.key.Name, "worker-b")
		Eventually(func() map[string]string {
			out := map[string]string{}
			for _, svc := range backendServices(ctx, s.key) {
				out[svc.Name] = svc.Spec.ExternalName
			}
			return out
		}).WithTimeout(timeout).WithPolling(interval).Should(HaveKeyWithValue(name, "worker-b.example.test"))
		// The backend is applied before the Published condition that reports it.
		Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True Published"))
		s.gateAndLift("worker-a", []string{"worker-a 0", "worker-b 1"}, []string{"worker-a 1", "worker-b 1"})
	})

	DescribeTable("is refused for that cluster alone, and the other cluster's gate and lift reach the route",
		func(ctx context.Context, name, form, reason string) {
			s := newService(ctx, name, &omev1beta1.Routing{Probe: probeSpec(omev1beta1.AllFailedDrain)}, nil)
			Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
			Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, fmt.Sprintf(form, s.port("worker-b")), 1, 1)).To(Succeed())

			refusal := "the status.url of its copy is refused because " + reason + "; fix the copy's status.url"
			Eventually(func(g Gomega) string {
				for _, e := range s.trafficMap(g).Spec.Entries {
					if e.Cluster == "worker-b" {
						return e.Refused
					}
				}
				return ""
			}).WithTimeout(timeout).WithPolling(interval).Should(Equal(refusal))
			Eventually(objectEvents).WithArguments("InferenceService", s.key, "EndpointRefused").WithTimeout(timeout).WithPolling(interval).
				Should(ContainElement("Cluster worker-b left out: the status.url of its copy is refused because " + reason +
					"; it is neither probed nor routed to"))
			Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
			Eventually(s.condition).WithArguments(omev1beta1.TrafficMapPublished).WithTimeout(timeout).WithPolling(interval).
				Should(HavePrefix("True Published"))
			s.gateAndLift("worker-a", []string{"worker-a 0"}, []string{"worker-a 1"})
		},
		// The suite resolves worker_b.example.test, so only the form is at fault.
		Entry("an underscore in the host", "underscore", "http://worker_b.example.test:%s/",
			"its host is neither a DNS name (RFC 1123) nor an IP address"),
		Entry("an empty host", "empty-host", "http://:%s/", "it has no host"),
		Entry("a scheme other than http or https", "scheme", "ftp://worker-b.example.test:%s/", "its scheme is not http or https"),
	)
})

// port is the port of the worker's model server.
func (s *service) port(worker string) string {
	u, err := url.Parse(s.endpoints[worker].URL())
	Expect(err).NotTo(HaveOccurred())
	return u.Port()
}

// gateAndLift makes the worker's model server fail until the route shows gated, then
// serve again until it shows lifted.
func (s *service) gateAndLift(worker string, gated, lifted []string) {
	s.set(worker, modelserver.Unavailable)
	Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(gated))
	s.set(worker, modelserver.Serve)
	Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal(lifted))
}
