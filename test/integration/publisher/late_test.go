package publisher

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/publish"
)

var _ = Describe("Gateway API CRDs installed after the manager started", func() {
	It("are picked up without a restart, and the maps published", func(ctx context.Context) {
		cp, err := envfleet.StartCluster("late-gateway-api")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cp.Stop)
		c := cp.Client
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: envfleet.SecretNamespace}})).To(Succeed())
		cfg, err := cp.InstallChartRBAC(ctx, envfleet.SecretNamespace)
		Expect(err).NotTo(HaveOccurred())
		key := client.ObjectKey{Namespace: "late", Name: "chat"}
		Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}})).To(Succeed())
		isvc := envfleet.SourceService(key, []string{"worker-a"}, nil)
		Expect(c.Create(ctx, isvc)).To(Succeed())
		tm := &omev1beta1.TrafficMap{
			ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
			Spec: omev1beta1.TrafficMapSpec{Service: key.Name, ObservedISVCGeneration: isvc.Generation, Entries: []omev1beta1.TrafficMapEntry{
				{Cluster: "worker-a", Endpoint: "http://worker-a.example.test", Weight: 1, Healthy: true},
			}},
		}
		Expect(controllerutil.SetControllerReference(isvc, tm, envfleet.Scheme)).To(Succeed())
		Expect(c.Create(ctx, tm)).To(Succeed())

		stop := startPublisherOn(ctx, cfg, 200*time.Millisecond)
		defer stop()
		Expect(cp.InstallGatewayCRDs()).To(Succeed())
		Eventually(func(g Gomega) {
			got := &omev1beta1.TrafficMap{}
			g.Expect(c.Get(ctx, key, got)).To(Succeed())
			g.Expect(got.Status.Published).To(BeTrue())
		}).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
		route := &gatewayv1.HTTPRoute{}
		Expect(c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: publish.RouteName(key.Namespace, key.Name, "")}, route)).To(Succeed())
		Expect(route.Spec.Rules[0].BackendRefs).To(HaveLen(1))
	})
})
