package publisher

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers"
	"github.com/ome-routing/operator/controllers/publisher"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/framework"
)

// fleetMaps is how many maps the priority spec publishes.
const fleetMaps = 16

var _ = Describe("A gate among many maps", func() {
	It("reaches its route before the refreshes queued ahead of it", func(ctx context.Context) {
		// The publisher runs alone here, so that the spec writes the maps itself: the
		// routing reconciler would write them again.
		if running != nil {
			running.stop()
			running = nil
		}
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "many-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		c := fleet.ControlPlane.Client
		names := make([]string, fleetMaps)
		for i := range names {
			names[i] = fmt.Sprintf("svc-%02d", i)
			key := client.ObjectKey{Namespace: ns.Name, Name: names[i]}
			isvc := envfleet.SourceService(key, []string{"worker-a", "worker-b"}, nil)
			Expect(c.Create(ctx, isvc)).To(Succeed())
			tm := &omev1beta1.TrafficMap{
				ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace},
				Spec: omev1beta1.TrafficMapSpec{Service: key.Name, ObservedISVCGeneration: isvc.Generation, Entries: []omev1beta1.TrafficMapEntry{
					{Cluster: "worker-a", Endpoint: "http://worker-a.example.test", Weight: 1, Healthy: true},
					{Cluster: "worker-b", Endpoint: "http://worker-b.example.test", Weight: 1, Healthy: true},
				}},
			}
			Expect(controllerutil.SetControllerReference(isvc, tm, envfleet.Scheme)).To(Succeed())
			Expect(c.Create(ctx, tm)).To(Succeed())
		}
		stop := startPublisherOnly(ctx)
		defer stop()
		published := func(g Gomega) {
			for _, name := range names {
				tm := &omev1beta1.TrafficMap{}
				g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, tm)).To(Succeed())
				g.Expect(tm.Status.Published).To(BeTrue(), name)
				g.Expect(tm.Status.ObservedTrafficMapGeneration).To(Equal(tm.Generation), name)
			}
		}
		Eventually(published).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		// Keep every worker that may take a refresh on a map's status write (a refresh: a
		// new generation, the same route), queue a refresh for every other map but the
		// last, then a gate for the last.
		held := requests.Hold(publisherStatusWrite(ns.Name))
		defer held.Release()
		edit := func(name string, mutate func(*omev1beta1.TrafficMap)) {
			tm := &omev1beta1.TrafficMap{}
			Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: name}, tm)).To(Succeed())
			mutate(tm)
			Expect(c.Update(ctx, tm)).To(Succeed())
		}
		refresh := func(tm *omev1beta1.TrafficMap) { tm.Spec.Entries[0].Healthy = !tm.Spec.Entries[0].Healthy }
		busy := names[:publisher.RefreshWorkers]
		for _, name := range busy {
			edit(name, refresh)
		}
		Eventually(held.Waiting).WithTimeout(timeout).WithPolling(interval).Should(BeEquivalentTo(publisher.RefreshWorkers))
		requests.Reset()
		queued := names[publisher.RefreshWorkers : fleetMaps-1]
		for _, name := range queued {
			edit(name, refresh)
		}
		gated := names[fleetMaps-1]
		edit(gated, func(tm *omev1beta1.TrafficMap) { tm.Spec.Entries[1].Weight, tm.Spec.Entries[1].Healthy = 0, false })

		// The refreshes hold every worker they may take, and the rest wait for the other
		// workers; the gate goes to one of those, and its route is written while every
		// refresh is still held.
		routeName := publish.RouteName(ns.Name, gated, "")
		Eventually(func(g Gomega) int32 {
			r := &gatewayv1.HTTPRoute{}
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: routeName}, r)).To(Succeed())
			g.Expect(r.Spec.Rules[0].BackendRefs).To(HaveLen(2))
			return ptr.Deref(r.Spec.Rules[0].BackendRefs[1].Weight, -1)
		}).WithTimeout(timeout).WithPolling(interval).Should(BeZero())
		Expect(held.Waiting()).To(BeNumerically(">=", publisher.RefreshWorkers), "the refreshes were let go before the gate was written")
		for _, r := range requests.Log() {
			Expect(publisherStatusWrite(ns.Name)(r) && r.Name != gated).To(BeFalse(), "a refresh was written before the gated route: %s", r.Name)
			if r.Verb == "PATCH" && r.Resource == "httproutes" && r.Name == routeName {
				break
			}
		}
		held.Release()
		Eventually(published).WithTimeout(timeout).WithPolling(interval).Should(Succeed())
	})
})

// startPublisherOnly runs a manager with the publisher alone, as the chart's
// ServiceAccount, its requests recorded; it returns its stop.
func startPublisherOnly(ctx context.Context) func() {
	return startPublisherOn(ctx, requests.Wrap(managerConfig), 0)
}

// startPublisherOn runs a manager with the publisher alone against the API server of cfg,
// with the guide's endpoint settings, looking for the Gateway API every recheck (zero: the
// manager's default); it returns its stop.
func startPublisherOn(_ context.Context, cfg *rest.Config, recheck time.Duration) func() {
	// The observer is the publish guard's resolver and guard: the suite's names, loopback open.
	observer := framework.ObserverSettings()
	observer.MaxConcurrentRequests, observer.MaxResponseBytes = 1, 1
	m, err := testEnv.StartManager(config.Config{Endpoint: guideEndpoint(), Routing: config.Routing{Enabled: true, Observer: observer}},
		framework.WithConfig(cfg), framework.WithHosts(hosts), framework.PublisherOnly(), framework.WithLog(GinkgoWriter),
		framework.WithControllers(func(o *controllers.Options) { o.GatewayAPIRecheck = recheck }))
	Expect(err).NotTo(HaveOccurred())
	return func() { Expect(m.Stop()).To(Succeed()) }
}
