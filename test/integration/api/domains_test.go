package api

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

const (
	domainFormMessage   = "an allowed endpoint domain must be a lowercase DNS name such as worker-a.example.com, without a wildcard, scheme, port or trailing dot"
	domainNumberMessage = "an allowed endpoint domain must not end in a number: resolvers read such a name as an IPv4 address"
)

// workloadClusterWithDomains is a WorkloadCluster with the given allowedEndpointDomains.
func workloadClusterWithDomains(domains ...omev1beta1.EndpointDomain) *omev1beta1.WorkloadCluster {
	return &omev1beta1.WorkloadCluster{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "wlc-domains-"},
		Spec: omev1beta1.WorkloadClusterSpec{
			ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
				SecretRef: omev1beta1.SecretReference{Name: "worker-a-kubeconfig", Namespace: "ome"},
			}},
			AllowedEndpointDomains: domains,
		},
	}
}

var _ = Describe("WorkloadCluster spec.allowedEndpointDomains admission", func() {
	DescribeTable("on CREATE and on UPDATE of a cluster without a list",
		func(ctx context.Context, domain string, wantMessage string) {
			err := k8s.Create(ctx, workloadClusterWithDomains(omev1beta1.EndpointDomain(domain)))
			plain := workloadClusterWithDomains()
			Expect(k8s.Create(ctx, plain)).To(Succeed())
			plain.Spec.AllowedEndpointDomains = []omev1beta1.EndpointDomain{omev1beta1.EndpointDomain(domain)}
			updateErr := k8s.Update(ctx, plain)
			for _, e := range []error{err, updateErr} {
				if wantMessage == "" {
					Expect(e).NotTo(HaveOccurred())
					continue
				}
				expectInvalid(e, "spec.allowedEndpointDomains[0]", wantMessage)
			}
		},
		Entry("a domain", "worker-a.example.com", ""),
		Entry("a single label", "internal", ""),
		Entry("digits inside a label", "worker-1.example.com", ""),
		Entry("a label starting with a digit", "1worker.example.com", ""),
		Entry("upper case", "Worker-A.example.com", domainFormMessage),
		Entry("a wildcard", "*.example.com", domainFormMessage),
		Entry("a scheme", "https://worker-a.example.com", domainFormMessage),
		Entry("a port", "worker-a.example.com:443", domainFormMessage),
		Entry("a trailing dot", "worker-a.example.com.", domainFormMessage),
		Entry("a leading dot", ".example.com", domainFormMessage),
		Entry("a label ending in a hyphen", "worker-.example.com", domainFormMessage),
		Entry("an IPv4 address", "10.0.0.1", domainNumberMessage),
		Entry("a numeric last label", "example.123", domainNumberMessage),
		Entry("a short numeric form", "127.1", domainNumberMessage),
		Entry("a bare number", "2130706433", domainNumberMessage),
		Entry("a hex last label", "example.0x7f", domainNumberMessage),
		Entry("an IPv6 address", "fd00::1", domainFormMessage),
		Entry("over 253 characters", strings.Repeat("a.", 126)+"ab", "Too long"),
	)

	It("refuses a domain listed twice and more than 64 domains", func(ctx context.Context) {
		expectInvalid(k8s.Create(ctx, workloadClusterWithDomains("worker-a.example.com", "worker-a.example.com")),
			"spec.allowedEndpointDomains[1]", "Duplicate value")
		many := make([]omev1beta1.EndpointDomain, 65)
		for i := range many {
			many[i] = omev1beta1.EndpointDomain(strings.Repeat("a", i+1) + ".example.com")
		}
		expectInvalid(k8s.Create(ctx, workloadClusterWithDomains(many...)), "spec.allowedEndpointDomains", "must have at most 64 items")
		Expect(k8s.Create(ctx, workloadClusterWithDomains(many[:64]...))).To(Succeed())
	})
})
