package monitoring

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/test/framework"
)

// hostileKey is the source service with framework.HostileCapacityFactors that the suite
// stores before the manager starts.
var hostileKey = client.ObjectKey{Namespace: "hostile", Name: "hostile"}

// hostileRefusal is the first line of the manager's error for hostileKey.
const hostileRefusal = `validate routing policy: spec.routing.capacityFactors["worker-a"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "1e1.5"`

// storeHostile stores, under an open schema, the source service hostileKey with a copy on
// worker-a, and an InferenceService with the same factors on worker-a that no source
// names: the objects a manager of the previous release could not list.
func storeHostile(ctx context.Context) {
	GinkgoHelper()
	Expect(controlPlane().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hostileKey.Namespace}})).To(Succeed())
	Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-a"].Client, hostileKey, "http://127.0.0.1:9/", 1, 1)).To(Succeed())
	source, err := framework.WithCapacityFactors(envfleet.SourceService(hostileKey, []string{"worker-a"}, nil), framework.HostileCapacityFactors)
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.CreateUnvalidated(ctx, controlPlane(), "inferenceservices.ome.io", source)).To(Succeed())

	member := fleet.Workers["worker-a"].Client
	Expect(member.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stray"}})).To(Succeed())
	stray, err := framework.WithCapacityFactors(&omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "stray", Name: "stray"}},
		framework.HostileCapacityFactors)
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.CreateUnvalidated(ctx, member, "inferenceservices.ome.io", stray)).To(Succeed())
	storeLowerCaseConditionTime(ctx, member, client.ObjectKeyFromObject(stray))

	// The same time on a service of the control plane, which the manager's own cache lists.
	Expect(controlPlane().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stray"}})).To(Succeed())
	straySource := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: "stray", Name: "stray"}}
	Expect(controlPlane().Create(ctx, straySource)).To(Succeed())
	storeLowerCaseConditionTime(ctx, controlPlane(), client.ObjectKeyFromObject(straySource))
}

// storeLowerCaseConditionTime gives a service a condition whose lastTransitionTime has a
// lower-case t and z: the schema's date-time format takes it, metav1.Time does not, so a
// manager of the previous release could not list the cluster's services.
func storeLowerCaseConditionTime(ctx context.Context, c client.Client, key client.ObjectKey) {
	GinkgoHelper()
	isvc := &omev1beta1.InferenceService{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	patch := []byte(`{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Hostile","message":"","lastTransitionTime":"2026-01-01t00:00:00z"}]}}`)
	Expect(c.Status().Patch(ctx, isvc, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(omev1beta1.GroupVersion.WithKind("InferenceService"))
	Expect(c.Get(ctx, key, stored)).To(Succeed())
	conditions, _, _ := unstructured.NestedSlice(stored.Object, "status", "conditions")
	Expect(conditions).To(ContainElement(HaveKeyWithValue("lastTransitionTime", "2026-01-01t00:00:00z")), "the API server kept the time as written")
}

var _ = Describe("A manager binary started beside a service it cannot route", func() {
	It("syncs its caches, routes and gates the others, and refuses that service alone, naming it", func(ctx context.Context) {
		ep, err := modelserver.StartEndpoint(nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ep.Close)
		key := client.ObjectKey{Namespace: "healthy", Name: "healthy"}
		Expect(controlPlane().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: key.Namespace}})).To(Succeed())
		Expect(envfleet.PlaceCopy(ctx, fleet.Workers["worker-a"].Client, key, ep.URL(), 1, 1)).To(Succeed())
		Expect(controlPlane().Create(ctx, envfleet.SourceService(key, []string{"worker-a"}, nil))).To(Succeed())
		entry := func(g Gomega) omev1beta1.TrafficMapEntry {
			tm := &omev1beta1.TrafficMap{}
			g.Expect(controlPlane().Get(ctx, key, tm)).To(Succeed())
			g.Expect(tm.Spec.Entries).To(HaveLen(1))
			g.Expect(tm.Spec.Entries[0].Probe).NotTo(BeNil())
			return tm.Spec.Entries[0]
		}
		Eventually(func(g Gomega) {
			g.Expect(entry(g).Probe.Result).To(Equal(omev1beta1.ProbePassing))
			g.Expect(entry(g).Weight).To(Equal(int32(1)))
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(interval).Should(Succeed(), "manager log:\n%s", managerLog.Contents())
		Expect(ep.Set(modelserver.Unavailable)).To(Succeed())
		Eventually(func(g Gomega) { g.Expect(entry(g).Probe.Gated).To(BeTrue()) }).
			WithContext(ctx).WithTimeout(timeout).WithPolling(interval).Should(Succeed())

		Eventually(func(g Gomega) []string {
			list := &corev1.EventList{}
			g.Expect(controlPlane().List(ctx, list, client.InNamespace(hostileKey.Namespace))).To(Succeed())
			var messages []string
			for _, e := range list.Items {
				if e.InvolvedObject.Name == hostileKey.Name && e.Reason == "RoutingPolicyRefused" && e.Type == corev1.EventTypeWarning {
					messages = append(messages, e.Message)
				}
			}
			return messages
		}).WithContext(ctx).WithTimeout(timeout).WithPolling(interval).Should(ContainElement(ContainSubstring(hostileRefusal)))
		Expect(string(managerLog.Contents())).To(And(
			ContainSubstring(`"InferenceService":{"name":"hostile","namespace":"hostile"}`),
			ContainSubstring(`got \"1e1.5\"`),
		))
		Expect(controlPlane().Get(ctx, hostileKey, &omev1beta1.TrafficMap{})).NotTo(Succeed(), "a refused service gets no map")
	})
})
