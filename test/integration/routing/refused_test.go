package routing

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
)

// A home the operator itself refuses takes no traffic, and says so loudly: in its entry,
// in Routable's message, in an event and in the map's count; a real Unknown answer (a 301,
// see probe_test.go) still moves nothing.
var _ = Describe("A home the operator refuses", func() {
	// The suite's observer allows loopback only, so an endpoint on a private address is
	// refused by the guard before any connection is opened.
	const privateURL = "http://10.0.0.7:8080"
	const guardRefusal = "probe not sent: destination 10.0.0.7 is in a private network and refused by the observer's network guard (routing.observer.allowPrivateNetworks is off)"

	It("gets weight 0 when the network guard refuses its probe, with the setting to change named everywhere", func(ctx context.Context) {
		s := newProbedService(ctx, "refused-guard", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		placeCopy(ctx, "worker-b", s.key, privateURL, 4, 4)

		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 0 false Unknown " + guardRefusal,
		}))
		Expect(s.entry(Default, "worker-b").Refused).To(Equal(guardRefusal))
		Expect(s.entry(Default, "worker-b").Probe.Gated).To(BeFalse(), "a refusal is not a gate")
		Eventually(func(g Gomega) metav1.Condition { return s.routable(g) }, timeout, interval).Should(And(
			HaveField("Status", metav1.ConditionTrue),
			HaveField("Reason", string(omev1beta1.TrafficMapReasonRoutable)),
			HaveField("Message", "1 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: worker-b: "+guardRefusal),
		))
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeRefused) }, timeout, interval).Should(
			ContainElement("Cluster worker-b takes no traffic: the operator refuses it: " + guardRefusal))
		Expect(ptr.Deref(s.trafficMap(Default).Status.RefusedHomes, -1)).To(Equal(int32(1)))

		// Every home refused: False, with its own reason, not a capacity one. (A scheme
		// other than http or https is refused at the source, before any probe.)
		placeCopy(ctx, "worker-a", s.key, "ftp://model.example.test", 1, 1)
		Eventually(func(g Gomega) metav1.Condition { return s.routable(g) }, timeout, interval).Should(And(
			HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", string(omev1beta1.TrafficMapReasonEndpointRefused)),
			HaveField("Message", `no home takes traffic; 2 home(s) refused by the operator, with weight 0: `+
				`worker-a: the status.url of its copy is refused because its scheme is not http or https; fix the copy's status.url; worker-b: `+guardRefusal),
		))

		// Back to endpoints the operator may reach: the refusals lift.
		placeCopy(ctx, "worker-a", s.key, s.endpoints["worker-a"].URL(), 1, 1)
		placeCopy(ctx, "worker-b", s.key, s.endpoints["worker-b"].URL(), 1, 1)
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		Expect(s.entry(Default, "worker-b").Refused).To(BeEmpty())
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeRefusalLifted) }, timeout, interval).Should(
			ContainElement("Cluster worker-b is no longer refused"))
		Eventually(func(g Gomega) int32 { return ptr.Deref(s.trafficMap(g).Status.RefusedHomes, -1) }, timeout, interval).Should(BeZero())
	})

	It("gets weight 0, and no probe, when its host is outside its cluster's allowedEndpointDomains", func(ctx context.Context) {
		s := newProbedService(ctx, "refused-domain", nil, both(1))
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		setAllowedDomains(ctx, "worker-b", "worker-b.example.com")
		DeferCleanup(setAllowedDomains, "worker-b")

		refusal := `host "127.0.0.1" is outside the WorkloadCluster's spec.allowedEndpointDomains [worker-b.example.com]; add its domain there if the cluster serves under it`
		Eventually(func(g Gomega) {
			e := s.entry(g, "worker-b")
			g.Expect(e.Weight).To(BeZero())
			g.Expect(e.Healthy).To(BeFalse())
			g.Expect(e.Refused).To(Equal(refusal))
			g.Expect(e.Probe).To(BeNil(), "a home outside its domains is not probed")
		}, timeout, interval).Should(Succeed())
		Eventually(func(g Gomega) string { return s.routable(g).Message }, timeout, interval).Should(
			Equal("1 of 2 home(s) take traffic; 1 home(s) refused by the operator, with weight 0: worker-b: " + refusal))
		sent := s.endpoints["worker-b"].Requests()
		Consistently(func() int64 { return s.endpoints["worker-b"].Requests() }, 3*period, interval).Should(Equal(sent),
			"no request goes to a home outside its domains")

		// A domain that covers the host lets it back in: 127.0.0.1 is not a name, so the
		// list is emptied instead, which leaves the guard alone to decide.
		setAllowedDomains(ctx, "worker-b")
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
	})
})

// setAllowedDomains sets a suite WorkloadCluster's spec.allowedEndpointDomains.
func setAllowedDomains(ctx context.Context, name string, domains ...omev1beta1.EndpointDomain) {
	Eventually(func(g Gomega) {
		wc := &omev1beta1.WorkloadCluster{}
		g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: name}, wc)).To(Succeed())
		wc.Spec.AllowedEndpointDomains = domains
		g.Expect(fleet.ControlPlane.Client.Update(ctx, wc)).To(Succeed())
	}, timeout, interval).Should(Succeed())
}
