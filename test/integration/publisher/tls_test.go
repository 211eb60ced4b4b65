package publisher

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// tlsEndpoint is the guide's endpoint with gatewayBackend.tls on.
func tlsEndpoint() config.Endpoint {
	ep := guideEndpoint()
	ep.BackendTLS = true
	return ep
}

// tlsPolicies are the service's BackendTLSPolicies, as "name target-kind/target-name
// hostname CA", by cluster.
func (s *service) tlsPolicies(g Gomega) map[string]string {
	list := &gatewayv1.BackendTLSPolicyList{}
	g.Expect(fleet.ControlPlane.Client.List(context.Background(), list, client.InNamespace(s.key.Namespace),
		client.MatchingLabels(publish.Labels(s.key.Namespace, s.key.Name)))).To(Succeed())
	out := map[string]string{}
	for _, p := range list.Items {
		g.Expect(p.Spec.TargetRefs).To(HaveLen(1))
		t := p.Spec.TargetRefs[0]
		out[p.Labels[publish.LabelCluster]] = fmt.Sprintf("%s %s/%s %s %s", p.Name, t.Kind, t.Name, p.Spec.Validation.Hostname,
			ptr.Deref(p.Spec.Validation.WellKnownCACertificates, ""))
	}
	return out
}

var _ = Describe("BackendTLSPolicies under gatewayBackend.tls", func() {
	It("writes one per backend Service, targeting it with the cluster's hostname and the system's CAs, and deletes them when TLS is turned off", func(ctx context.Context) {
		useManager(tlsEndpoint(), config.Publisher{})
		s := newService(ctx, "tls", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		want := map[string]string{}
		// The first publication may hold one cluster only, if the other's copy reached the
		// map a moment later: wait for both backends.
		Eventually(func(g Gomega) {
			for _, w := range []string{"worker-a", "worker-b"} {
				name := publish.BackendName(s.key.Namespace, "tls", w)
				svc := &corev1.Service{}
				g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: s.key.Namespace, Name: name}, svc)).To(Succeed())
				want[w] = fmt.Sprintf("%s Service/%s %s System", name, name, svc.Spec.ExternalName)
			}
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(s.tlsPolicies).WithTimeout(timeout).WithPolling(interval).Should(Equal(want))

		By("a policy edited by hand is put back")
		name := publish.BackendName(s.key.Namespace, "tls", "worker-a")
		Eventually(func(g Gomega) {
			p := &gatewayv1.BackendTLSPolicy{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: s.key.Namespace, Name: name}, p)).To(Succeed())
			p.Spec.Validation.Hostname = "elsewhere.example.test"
			g.Expect(fleet.ControlPlane.Client.Update(ctx, p)).To(Succeed())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		Eventually(s.tlsPolicies).WithTimeout(timeout).WithPolling(interval).Should(Equal(want))

		By("TLS turned off: the policies go, the route stays published")
		useManager(guideEndpoint(), config.Publisher{})
		Eventually(s.tlsPolicies).WithTimeout(timeout).WithPolling(interval).Should(BeEmpty())
		Expect(s.condition(Default, "Published")).To(Equal(publishedTrue))
		Expect(s.weights(Default)).To(Equal([]string{"worker-a 1", "worker-b 1"}))
	})

	It("refuses the claim when another source's BackendTLSPolicy holds a backend's name", func(ctx context.Context) {
		useManager(tlsEndpoint(), config.Publisher{})
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tls-taken-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		name := publish.BackendName(ns.Name, "tls-taken", "worker-b")
		Expect(fleet.ControlPlane.Client.Create(ctx, &gatewayv1.BackendTLSPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name},
			Spec: gatewayv1.BackendTLSPolicySpec{
				TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{
					Kind: "Service", Name: gatewayv1.ObjectName(name)}}},
				Validation: gatewayv1.BackendTLSPolicyValidation{Hostname: "mine.example.test",
					WellKnownCACertificates: ptr.To(gatewayv1.WellKnownCACertificatesSystem)},
			},
		})).To(Succeed())
		s := newServiceInNamespace(ctx, ns.Name, "tls-taken")
		Eventually(mapEvents).WithArguments(s.key, "ClaimRejected").WithTimeout(timeout).WithPolling(interval).Should(
			ContainElement("global BackendTLSPolicy " + ns.Name + "/" + name + " belongs to another source"))
		Expect(s.condition(Default, "Published")).To(Equal(claimRejected))
	})
})
