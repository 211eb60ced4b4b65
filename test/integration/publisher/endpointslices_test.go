package publisher

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// sliceRefresh is the suite's addressRefreshInterval: short, so that a changed member
// Gateway shows in the slices within the test's patience, and long enough that the maps
// the suite's other specs leave behind (whose members serve no Gateway, so they fail
// every refresh) stay within the member client's 25 reads a second.
const sliceRefresh = 3 * time.Second

// servingGateway is the name of each service's Gateway on the workers, in its namespace.
const servingGateway = "serving"

// slicesEndpoint is the guide's endpoint with gatewayBackend.endpointSlices on.
func slicesEndpoint() config.Endpoint {
	ep := guideEndpoint()
	ep.EndpointSlices, ep.AddressRefreshInterval = true, sliceRefresh
	return ep
}

// membersServeGateways gets each worker ready for the fallback once: the Gateway API
// CRDs, and the chart's member access with gatewayAddresses for the member's user, so
// that a rule the fallback needs and the chart lacks fails these specs.
var membersServeGateways = false

func prepareMembers(ctx context.Context) {
	if membersServeGateways {
		return
	}
	rules, err := envfleet.ChartMemberRules(ctx, true)
	Expect(err).NotTo(HaveOccurred())
	for _, w := range []string{"worker-a", "worker-b"} {
		Expect(fleet.Workers[w].InstallGatewayCRDs()).To(Succeed())
		Expect(fleet.Workers[w].GrantMemberAccess(ctx, rules)).To(Succeed())
	}
	membersServeGateways = true
}

// memberGateway is the service's serving Gateway on a worker and its HTTPRoute there (named
// as the service, in its namespace, attached to the Gateway), with the status addresses
// given; ips are written as IPAddress, anything else as Hostname. The addresses are from
// the documentation ranges: an EndpointSlice cannot hold loopback ones, and nothing is
// sent to them here.
func memberGateway(ctx context.Context, worker string, key client.ObjectKey, addrs ...string) {
	c := fleet.Workers[worker].Client
	Expect(client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}}))).To(Succeed())
	gw := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: servingGateway, Namespace: key.Namespace},
		Spec: gatewayv1.GatewaySpec{GatewayClassName: "serving", Listeners: []gatewayv1.Listener{{
			Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType,
		}}},
	}
	Expect(client.IgnoreAlreadyExists(c.Create(ctx, gw))).To(Succeed())
	route := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
		Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{
			Name: servingGateway,
		}}}},
	}
	Expect(client.IgnoreAlreadyExists(c.Create(ctx, route))).To(Succeed())
	setGatewayAddresses(ctx, worker, key.Namespace, addrs...)
}

// setGatewayAddresses writes the worker's serving Gateway's status.addresses through the
// status subresource, as the member's gateway controller would.
func setGatewayAddresses(ctx context.Context, worker, namespace string, addrs ...string) {
	Eventually(func(g Gomega) {
		gw := &gatewayv1.Gateway{}
		g.Expect(fleet.Workers[worker].Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: servingGateway}, gw)).To(Succeed())
		gw.Status.Addresses = nil
		for _, a := range addrs {
			t := gatewayv1.IPAddressType
			if strings.ContainsAny(a, "abcdefghijklmnopqrstuvwxyz") && !strings.Contains(a, ":") {
				t = gatewayv1.HostnameAddressType
			}
			gw.Status.Addresses = append(gw.Status.Addresses, gatewayv1.GatewayStatusAddress{Type: ptr.To(t), Value: a})
		}
		g.Expect(fleet.Workers[worker].Client.Status().Update(ctx, gw)).To(Succeed())
	}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
}

// endpointSlices are the service's EndpointSlices on the control plane, by cluster, as
// "name addressType service-name port addr,addr".
func (s *service) endpointSlices(g Gomega) map[string][]string {
	list := &discoveryv1.EndpointSliceList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list,
		client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	out := map[string][]string{}
	for _, es := range list.Items {
		var addrs []string
		for _, e := range es.Endpoints {
			g.Expect(e.Conditions.Ready).To(HaveValue(BeTrue()))
			addrs = append(addrs, e.Addresses...)
		}
		g.Expect(es.Ports).To(HaveLen(1))
		c := es.Labels[publish.LabelCluster]
		out[c] = append(out[c], fmt.Sprintf("%s %s %s %d %s", es.Name, es.AddressType, es.Labels[discoveryv1.LabelServiceName],
			ptr.Deref(es.Ports[0].Port, 0), strings.Join(addrs, ",")))
		slices.Sort(out[c])
	}
	return out
}

// sliceLine is what endpointSlices shows for the backend of cluster's slice of family.
func (s *service) sliceLine(cluster string, family discoveryv1.AddressType, addrs ...string) string {
	name := publish.BackendName(s.key.Namespace, s.key.Name, cluster)
	return fmt.Sprintf("%s %s %s %d %s", publish.SliceName(name, family), family, name, backendPort, strings.Join(addrs, ","))
}

// sliceService creates a namespace on the control plane with the service's serving
// Gateways and routes on both workers, then the service.
func sliceService(ctx context.Context, name string, a, b []string) *service {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
	Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
	key := client.ObjectKey{Namespace: ns.Name, Name: name}
	memberGateway(ctx, "worker-a", key, a...)
	memberGateway(ctx, "worker-b", key, b...)
	return newServiceInNamespace(ctx, ns.Name, name)
}

var _ = Describe("EndpointSlices under gatewayBackend.endpointSlices", func() {
	It("copies each cluster's serving Gateway's IP addresses into slices of its backend Service, and follows them", func(ctx context.Context) {
		prepareMembers(ctx)
		useManager(slicesEndpoint(), config.Publisher{})
		s := sliceService(ctx, "slices", []string{"203.0.113.10", "gw-a.example.test"}, []string{"198.51.100.10"})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string][]string{
			"worker-a": {s.sliceLine("worker-a", discoveryv1.AddressTypeIPv4, "203.0.113.10")},
			"worker-b": {s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.10")},
		}))
		svc := &corev1.Service{}
		Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: s.key.Namespace,
			Name: publish.BackendName(s.key.Namespace, s.key.Name, "worker-a")}, svc)).To(Succeed())
		Expect(svc.Spec.Type).To(Equal(corev1.ServiceTypeExternalName), "the Service stays ExternalName")

		By("republished every refresh interval, an unchanged slice is not written again")
		versions := func(g Gomega) []string {
			list := &discoveryv1.EndpointSliceList{}
			g.Expect(fleet.ControlPlane.Client.List(ctx, list, client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
			var out []string
			for _, es := range list.Items {
				out = append(out, es.Name+"@"+es.ResourceVersion)
			}
			slices.Sort(out)
			return out
		}
		Consistently(versions).WithTimeout(3 * sliceRefresh).WithPolling(interval).Should(Equal(versions(Default)))

		By("worker-a's Gateway moves and gains an IPv6 address: the slices follow within the refresh interval")
		setGatewayAddresses(ctx, "worker-a", s.key.Namespace, "203.0.113.11", "2001:db8::10")
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string][]string{
			"worker-a": {s.sliceLine("worker-a", discoveryv1.AddressTypeIPv4, "203.0.113.11"), s.sliceLine("worker-a", discoveryv1.AddressTypeIPv6, "2001:db8::10")},
			"worker-b": {s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.10")},
		}))

		By("the IPv6 address goes: its slice is pruned")
		setGatewayAddresses(ctx, "worker-a", s.key.Namespace, "203.0.113.11")
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(Equal(map[string][]string{
			"worker-a": {s.sliceLine("worker-a", discoveryv1.AddressTypeIPv4, "203.0.113.11")},
			"worker-b": {s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.10")},
		}))

		By("a slice edited by hand is put back")
		sliceKey := client.ObjectKey{Namespace: s.key.Namespace,
			Name: publish.SliceName(publish.BackendName(s.key.Namespace, s.key.Name, "worker-b"), discoveryv1.AddressTypeIPv4)}
		Eventually(func(g Gomega) {
			es := &discoveryv1.EndpointSlice{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, sliceKey, es)).To(Succeed())
			es.Endpoints[0].Addresses = []string{"192.0.2.99"}
			g.Expect(fleet.ControlPlane.Client.Update(ctx, es)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(HaveKeyWithValue("worker-b",
			[]string{s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.10")}))

		By("turned off: the slices go, the route stays published")
		useManager(guideEndpoint(), config.Publisher{})
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 1", "worker-b 1"}))
	})

	It("is ApplyFailed, with the route's weights kept, while one cluster's addresses cannot be resolved", func(ctx context.Context) {
		prepareMembers(ctx)
		useManager(slicesEndpoint(), config.Publisher{})
		s := sliceService(ctx, "unresolved", []string{"203.0.113.10"}, []string{"198.51.100.10"})
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		// Both homes in the route before anything breaks: a map is published before its
		// second home has joined.
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		ns := s.key.Namespace
		prefix := `resolve backend addresses for cluster "worker-b": `
		applyFailed := "False ApplyFailed: Publisher could not apply the TrafficMap"
		failsWith := func(msg string) {
			GinkgoHelper()
			Eventually(mapEvents).WithArguments(s.key, "ApplyFailed").WithTimeout(timeout).WithPolling(interval).Should(ContainElement(prefix + msg))
			Expect(s.condition(Default, "Published")).To(Equal(applyFailed))
		}
		recovers := func() {
			GinkgoHelper()
			Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		}

		By("worker-b's Gateway reports only a hostname and a metadata address, which the guard refuses")
		setGatewayAddresses(ctx, "worker-b", ns, "gw-b.example.test", "169.254.169.254")
		failsWith("serving Gateway " + ns + "/serving has no IP status addresses: every IP status address is refused: " +
			"destination 169.254.169.254 is link-local and refused by the observer's network guard")

		By("meanwhile worker-a is gated: the map moves, the route keeps its weights")
		s.set("worker-a", modelserver.Unavailable)
		Eventually(func(g Gomega) []int32 {
			var w []int32
			for _, e := range s.trafficMap(g).Spec.Entries {
				w = append(w, e.Weight)
			}
			return w
		}).WithTimeout(timeout).WithPolling(interval).Should(ContainElement(int32(0)))
		Consistently(s.weights).WithTimeout(3 * sliceRefresh).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(s.endpointSlices(Default)).To(HaveKeyWithValue("worker-b", []string{s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.10")}))
		setGatewayAddresses(ctx, "worker-b", ns, "198.51.100.11")
		recovers()
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 0", "worker-b 1"}))
		Eventually(s.endpointSlices).WithTimeout(timeout).WithPolling(interval).Should(HaveKeyWithValue("worker-b",
			[]string{s.sliceLine("worker-b", discoveryv1.AddressTypeIPv4, "198.51.100.11")}))
		s.set("worker-a", modelserver.Serve)

		By("worker-b's serving Gateway is gone")
		gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: servingGateway, Namespace: ns}}
		Expect(fleet.Workers["worker-b"].Client.Delete(ctx, gw)).To(Succeed())
		failsWith(`read serving Gateway ` + ns + `/serving: gateways.gateway.networking.k8s.io "serving" not found`)
		memberGateway(ctx, "worker-b", s.key, "198.51.100.11")
		recovers()

		By("worker-b's serving HTTPRoute is gone")
		route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: s.key.Name, Namespace: ns}}
		Expect(fleet.Workers["worker-b"].Client.Delete(ctx, route)).To(Succeed())
		failsWith(`read serving HTTPRoute ` + ns + `/unresolved: httproutes.gateway.networking.k8s.io "unresolved" not found`)
		memberGateway(ctx, "worker-b", s.key, "198.51.100.11")
		recovers()
	})

	It("refuses the claim when another source's EndpointSlice holds a backend's slice name, the IPv6 one included", func(ctx context.Context) {
		prepareMembers(ctx)
		useManager(slicesEndpoint(), config.Publisher{})
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "slice-taken-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		key := client.ObjectKey{Namespace: ns.Name, Name: "slice-taken"}
		memberGateway(ctx, "worker-a", key, "203.0.113.10")
		memberGateway(ctx, "worker-b", key, "198.51.100.10")
		// Only IPv4 addresses are reported: the IPv6 name is still the publisher's to claim.
		name := publish.SliceName(publish.BackendName(ns.Name, key.Name, "worker-b"), discoveryv1.AddressTypeIPv6)
		Expect(fleet.ControlPlane.Client.Create(ctx, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: ns.Name},
			AddressType: discoveryv1.AddressTypeIPv6,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"2001:db8::1"}}},
		})).To(Succeed())
		s := newServiceInNamespace(ctx, ns.Name, key.Name)
		Eventually(mapEvents).WithArguments(s.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("global backend EndpointSlice " + ns.Name + "/" + name + " belongs to another source"))
		Expect(s.condition(Default, "Published")).To(Equal(claimRejected))
		Expect(s.endpointSlices(Default)).To(BeEmpty(), "nothing is written before every name is claimed")
	})
})
