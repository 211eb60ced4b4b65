package publisher

import (
	"context"
	"fmt"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/publisher"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// A member reports a host for its copy. For a service without a probe the map gives it
// the weight of its ready replicas, and the global gateway would send users' requests
// wherever the name points. The publisher's guard resolves the host at publish time and
// leaves out of the route every host it refuses. (With a probe, the probe's own refusal
// takes the home's weight away too; the numeric forms here would pass a probe, which
// resolves them through the suite's names.)
var _ = Describe("The publish guard", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	DescribeTable("leaves a refused host out of the route while the map gives it weight",
		func(ctx context.Context, host, reason string) {
			s := newService(ctx, "guarded", &omev1beta1.Routing{Probe: &omev1beta1.RoutingProbe{Disabled: true}}, nil)
			Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

			u, err := url.Parse(s.endpoints["worker-b"].URL())
			Expect(err).NotTo(HaveOccurred())
			Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, fmt.Sprintf("http://%s:%s", host, u.Port()), 1, 1)).To(Succeed())

			// The map: worker-b at the new host, with weight 1.
			Eventually(func(g Gomega) {
				for _, e := range s.trafficMap(g).Spec.Entries {
					if e.Cluster == "worker-b" {
						g.Expect(e.Endpoint).To(HavePrefix("http://" + host + ":"))
						g.Expect(e.Weight).To(Equal(int32(1)))
						g.Expect(e.Refused).To(BeEmpty())
					}
				}
			}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
			// The route: worker-b is out, and its backend is gone.
			Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
			Eventually(func(g Gomega) []string { return s.publishedObjects(g) }).WithTimeout(timeout).WithPolling(interval).
				ShouldNot(ContainElement(ContainSubstring(publish.BackendName(s.key.Namespace, s.key.Name, "worker-b"))))
			Eventually(mapEvents).WithArguments(s.key, publisher.EventBackendRefused).WithTimeout(timeout).WithPolling(interval).
				Should(ContainElement(HavePrefix("Cluster worker-b left out of the route: " + reason)))
			Expect(s.condition(Default, omev1beta1.TrafficMapPublished)).To(HavePrefix("True Published"))
			for _, svc := range backendServices(ctx, s.key) {
				Expect(svc.Spec.ExternalName).NotTo(Equal(host))
			}

			// Back at an accepted host, worker-b returns to the route.
			Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, fmt.Sprintf("http://worker-b.example.test:%s", u.Port()), 1, 1)).To(Succeed())
			Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		},
		Entry("a name for the metadata service", "metadata.example.test",
			`host "metadata.example.test" resolves to 169.254.169.254: destination 169.254.169.254 is link-local and refused by the observer's network guard`),
		Entry("a name for a private address, allowPrivateNetworks off", "private.example.test",
			`host "private.example.test" resolves to 10.0.0.7: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)`),
		Entry("127.1", "127.1", `host "127.1" ends in a number, which resolvers read as an IPv4 address`),
		Entry("0x7f.1", "0x7f.1", `host "0x7f.1" ends in a number`),
		Entry("2130706433", "2130706433", `host "2130706433" ends in a number`),
		Entry("0177.0.0.1", "0177.0.0.1", `host "0177.0.0.1" ends in a number`),
		Entry("0", "0", `host "0" ends in a number`),
		Entry("localhost", "localhost", `host "localhost" is reserved for loopback`),
	)
})

// A resolver outage must not take a healthy cluster out of the route, not even across a
// restart, when the new process has judged no host yet: a host the published backends
// already name stays in, since the publication that wrote them accepted it.
var _ = Describe("The publish guard restarted while the resolver fails", func() {
	It("keeps a published cluster in the route", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		s := newService(ctx, "resolver-down", &omev1beta1.Routing{Probe: &omev1beta1.RoutingProbe{Disabled: true}}, nil)
		g0 := s.settled(ctx)

		const host = "worker-b.example.test"
		useManagerWith(managerSettings{endpoint: guideEndpoint(), publisher: config.Publisher{}, unresolvable: []string{host}})
		// A new map generation, which the restarted publisher publishes with worker-b's
		// host unresolved.
		u, err := url.Parse(s.endpoints["worker-a"].URL())
		Expect(err).NotTo(HaveOccurred())
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-a"].Client, s.key, fmt.Sprintf("http://worker-a.example.test:%s", u.Port()), 2, 2)).To(Succeed())
		s.publishedAfter(g0)
		// The first generation after g0 may be the routing reconciler's (a home's serving
		// state moved once the restarted publisher said Published again); the copy's new
		// capacity follows it.
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 2", "worker-b 1"}))
		Expect(string(managerLog.Contents())).To(MatchRegexp(
			`Keeping a published backend whose host cannot be resolved now: an earlier publication accepted it\t\{.*"host": "` + host + `"`))
		Expect(mapEvents(s.key, publisher.EventBackendRefused)).To(BeEmpty())
	})
})

// backendServices are the backend Services published for the service.
func backendServices(ctx context.Context, key client.ObjectKey) []corev1.Service {
	list := &corev1.ServiceList{}
	Expect(fleet.ControlPlane.Client.List(ctx, list, client.MatchingLabels(publish.Labels(key.Namespace, key.Name)))).To(Succeed())
	return list.Items
}

// Only the cluster's own backend shows that an earlier publication accepted a host. A
// Service anywhere else that carries the map's labels is anyone's: whoever can write one
// must not keep a host whose lookups fail (a slow authoritative server they run) in
// another tenant's route.
var _ = Describe("A decoy backend in another namespace", func() {
	It("keeps nothing in the route", func(ctx context.Context) {
		const host = "decoy.example.test"
		useManagerWith(managerSettings{endpoint: guideEndpoint(), publisher: config.Publisher{}, unresolvable: []string{host}})
		s := newService(ctx, "decoyed", &omev1beta1.Routing{Probe: &omev1beta1.RoutingProbe{Disabled: true}}, nil)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "decoy-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		labels := publish.Labels(s.key.Namespace, s.key.Name)
		labels[publish.LabelCluster] = "worker-b"
		decoy := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: publish.BackendName(s.key.Namespace, s.key.Name, "worker-b"), Labels: labels},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: host,
				Ports: []corev1.ServicePort{{Port: backendPort}}},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, decoy)).To(Succeed())
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-b"].Client, s.key, fmt.Sprintf("http://%s:%s", host, s.port("worker-b")), 1, 1)).To(Succeed())

		Eventually(mapEvents).WithArguments(s.key, publisher.EventBackendRefused).WithTimeout(timeout).WithPolling(interval).
			Should(ContainElement(HavePrefix(fmt.Sprintf("Cluster worker-b left out of the route: host %q could not be resolved", host))))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1"}))
		for _, svc := range backendServices(ctx, s.key) {
			if svc.Namespace == s.key.Namespace {
				Expect(svc.Spec.ExternalName).NotTo(Equal(host))
			}
		}
	})
})
