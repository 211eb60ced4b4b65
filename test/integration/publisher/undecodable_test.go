package publisher

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
)

// The publisher watches InferenceServices too: a service whose factors resource.Quantity
// cannot read (stored before the schema refused them) must not stop another's route.
var _ = Describe("A service whose capacity factors the API server once admitted", func() {
	BeforeEach(func() { useManager(guideEndpoint(), config.Publisher{}) })

	It("gets no route, and another service's route follows its gates throughout", func(ctx context.Context) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "hostile-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		hostileKey := client.ObjectKey{Namespace: ns.Name, Name: "hostile"}
		hostile, err := framework.WithCapacityFactors(envfleet.SourceService(hostileKey, []string{"worker-a", "worker-b"}, nil),
			framework.HostileCapacityFactors)
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.CreateUnvalidated(ctx, fleet.ControlPlane.Client, "inferenceservices.ome.io", hostile)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(fleet.ControlPlane.Client.Delete(ctx, hostile)).To(Succeed()) })

		s := newService(ctx, "beside", nil, nil)
		Eventually(s.condition).WithArguments("Published").WithTimeout(timeout).WithPolling(interval).Should(Equal(publishedTrue))
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		s.set("worker-b", modelserver.Unavailable)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 0"}))
		s.set("worker-b", modelserver.Serve)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))

		routes := &gatewayv1.HTTPRouteList{}
		Expect(fleet.ControlPlane.Client.List(ctx, routes, client.InNamespace(hostileKey.Namespace))).To(Succeed())
		Expect(routes.Items).To(BeEmpty(), "a refused service has no map, so no route")
	})
})
