package routing

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// withHostileFactors is the service with framework.HostileCapacityFactors, which the API
// server now refuses; an object stored before it did is written through
// framework.CreateUnvalidated.
func withHostileFactors(isvc *omev1beta1.InferenceService) *unstructured.Unstructured {
	GinkgoHelper()
	u, err := framework.WithCapacityFactors(isvc, framework.HostileCapacityFactors)
	Expect(err).NotTo(HaveOccurred())
	return u
}

// reflectorBackoffCap is the longest client-go's reflector waits before it lists and watches
// again after a failure (its backoff manager's cap), while failures came within the last two
// minutes.
const reflectorBackoffCap = 30 * time.Second

// hostileRefusal is the reconciler's error for the hostile factors, as its event's note
// says it: the field, the rule, the value, with the newline between the two errors escaped
// as the note escapes every control character.
const hostileRefusal = `validate routing policy: spec.routing.capacityFactors["worker-a"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "1e1.5"` + `\x0a` +
	`validate routing policy: spec.routing.capacityFactors["worker-b"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "1e999999999999"`

// storeHostileService stores a source service with the hostile factors beside the others and
// deletes it when the spec ends.
func storeHostileService(ctx context.Context, name string) client.ObjectKey {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
	Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
	key := client.ObjectKey{Namespace: ns.Name, Name: name}
	for _, w := range []string{"worker-a", "worker-b"} {
		placeCopy(ctx, w, key, "http://127.0.0.1:9/", 1, 1)
	}
	isvc := withHostileFactors(envfleet.SourceService(key, []string{"worker-a", "worker-b"}, nil))
	Expect(framework.CreateUnvalidated(ctx, fleet.ControlPlane.Client, "inferenceservices.ome.io", isvc)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(fleet.ControlPlane.Client.Delete(ctx, isvc)).To(Succeed()) })
	return key
}

// storeHostileCopy stores an InferenceService with the hostile factors on a member, where the
// manager's cache of that member lists it; it is no copy of a routed service.
func storeHostileCopy(ctx context.Context, worker string) {
	GinkgoHelper()
	c := fleet.Workers[worker].Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "stray-"}}
	Expect(c.Create(ctx, ns)).To(Succeed())
	stray := withHostileFactors(&omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "stray"}})
	Expect(framework.CreateUnvalidated(ctx, c, "inferenceservices.ome.io", stray)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(c.Delete(ctx, stray)).To(Succeed()) })
}

var _ = Describe("A capacity factor the API server once admitted", func() {
	It("refuses only its own service, naming it; the others gate and lift, also after a restart", func(ctx context.Context) {
		healthy := newProbedService(ctx, "healthy", nil, both(1))
		Eventually(healthy.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))

		hostile := &probedService{key: storeHostileService(ctx, "hostile")}
		storeHostileCopy(ctx, "worker-a")

		// The running manager still sees every change: a gate, and a new service. Storing
		// the hostile copy swapped worker-a's CRD schema twice, which closes every watch of
		// its InferenceServices; the member cache's reflector watches again after its
		// backoff, which a recent outage of worker-a's API server (another spec's) can
		// have grown to client-go's cap of 30 s, so the new service's worker-a copy may
		// take that long to be seen.
		gateWorkerB(healthy)
		later := newProbedService(ctx, "later", nil, both(1))
		Eventually(later.table).WithTimeout(reflectorBackoffCap + timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))

		// The hostile service alone is refused, and says which service, field and rule.
		Eventually(func(g Gomega) []string { return hostile.events(g, routing.EventRoutingPolicyRefused) }, timeout, interval).
			Should(ContainElement(hostileRefusal))
		Eventually(managerLog, timeout, interval).Should(gbytesSay(`"InferenceService": {"name":"hostile","namespace":"` + hostile.key.Namespace + `"}`))
		Expect(fleet.ControlPlane.Client.Get(ctx, hostile.key, &omev1beta1.TrafficMap{})).NotTo(Succeed(), "a refused service gets no map")

		// A restarted manager lists both objects and syncs its caches: the gate lifts.
		restartManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16)
		healthy.set("worker-b", modelserver.Serve)
		Eventually(healthy.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"worker-a 1 true Passing HTTP 200",
			"worker-b 1 true Passing HTTP 200",
		}))
		Eventually(managerLog, timeout, interval).Should(gbytesSay(`got "1e1.5"`))
		Consistently(func() error {
			return fleet.ControlPlane.Client.Get(ctx, hostile.key, &omev1beta1.TrafficMap{})
		}, 2*period, interval).ShouldNot(Succeed())
	})
})
