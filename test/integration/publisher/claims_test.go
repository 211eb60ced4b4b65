package publisher

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

var _ = Describe("Maps that want one hostname at once", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("publish it for one of them only, although the publisher's workers run together", func(ctx context.Context) {
		const host = "contended.example.com"
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "contended-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		var all []*service
		for i := range 4 {
			all = append(all, newServiceAt(ctx, client.ObjectKey{Namespace: ns.Name, Name: fmt.Sprintf("svc-%d", i)}, nil,
				map[string]string{publish.GlobalHostAnnotation: host}))
		}
		reasons := func(g Gomega) []string {
			var out []string
			for _, s := range all {
				out = append(out, s.condition(g, "Published"))
			}
			return out
		}
		Eventually(reasons).WithTimeout(timeout).WithPolling(interval).Should(And(
			ContainElement(publishedTrue), HaveEach(Or(Equal(publishedTrue), Equal(claimRejected)))))
		Expect(reasons(Default)).To(ContainElement(publishedTrue), "one map holds the hostname")
		Expect(countTrue(reasons(Default))).To(Equal(1), "maps published under %s: %v", host, reasons(Default))
		routes := &gatewayv1.HTTPRouteList{}
		Expect(fleet.ControlPlane.Client.List(ctx, routes, client.InNamespace(ns.Name))).To(Succeed())
		Expect(routes.Items).To(HaveLen(1), "routes for %s", host)
	})
})

func countTrue(reasons []string) int {
	n := 0
	for _, r := range reasons {
		if r == publishedTrue {
			n++
		}
	}
	return n
}
