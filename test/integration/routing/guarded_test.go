package routing

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/pkg/probe"
)

// laggingCache stands in for the manager's cache in front of the real control plane: it
// can miss every InferenceService (a cache that lost an object for a moment), and it can
// serve the TrafficMap it first read long after the API server holds a newer one (a cache
// that has not caught up). Every other call goes to the API server. It records the
// preconditions of every delete.
type laggingCache struct {
	client.Client
	missServices bool

	mu         sync.Mutex
	staleMaps  map[client.ObjectKey]*omev1beta1.TrafficMap
	lagMaps    bool
	deleteOpts []client.DeleteOptions
}

func (c *laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch o := obj.(type) {
	case *omev1beta1.InferenceService:
		if c.missServices {
			return apierrors.NewNotFound(schema.GroupResource{Group: "ome.io", Resource: "inferenceservices"}, key.Name)
		}
	case *omev1beta1.TrafficMap:
		c.mu.Lock()
		defer c.mu.Unlock()
		if stale, ok := c.staleMaps[key]; ok && c.lagMaps {
			stale.DeepCopyInto(o)
			return nil
		}
		if err := c.Client.Get(ctx, key, o, opts...); err != nil {
			return err
		}
		if c.lagMaps {
			c.staleMaps[key] = o.DeepCopy()
		}
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *laggingCache) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.mu.Lock()
	var o client.DeleteOptions
	o.ApplyOptions(opts)
	c.deleteOpts = append(c.deleteOpts, o)
	c.mu.Unlock()
	return c.Client.Delete(ctx, obj, opts...)
}

// failingReader is an API server that answers every read with a timeout.
type failingReader struct{ client.Reader }

func (failingReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return apierrors.NewServerTimeout(schema.GroupResource{Group: "ome.io", Resource: "inferenceservices"}, "get", 1)
}

// handReconciler is a routing reconciler outside any manager, reading through cache and
// straight from the control plane, with a prober that is never started: the tests drive
// each reconcile and read the probe states back with Sync. Its poller, never started
// either, is there because the reconciler forgets a gone service's capacity windows too.
func handReconciler(cache client.Client, prober *probing.Prober) *routing.Reconciler {
	return &routing.Reconciler{
		Client:            cache,
		APIReader:         fleet.ControlPlane.Client,
		Recorder:          events.NewFakeRecorder(100),
		Members:           workloadcluster.NewMembers(envfleet.Scheme, time.Second, nil),
		Prober:            prober,
		Poller:            probing.NewPoller(nil, 1),
		RoutingEnabled:    true,
		InstallationProbe: installationProbe(omev1beta1.AllFailedPreserveTraffic),
		Limits:            probe.Limits{MinPeriod: time.Second},
	}
}

// newSource creates a namespace and a source service in it placed on workers.
func newSource(ctx context.Context, name string, workers []string, routing *omev1beta1.Routing) *omev1beta1.InferenceService {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}
	Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
	isvc := envfleet.SourceService(client.ObjectKey{Namespace: ns.Name, Name: name}, workers, routing)
	Expect(fleet.ControlPlane.Client.Create(ctx, isvc)).To(Succeed())
	return isvc
}

// mapOf creates a TrafficMap controlled by isvc with one entry.
func mapOf(ctx context.Context, isvc *omev1beta1.InferenceService) *omev1beta1.TrafficMap {
	tm := &omev1beta1.TrafficMap{
		ObjectMeta: metav1.ObjectMeta{Name: isvc.Name, Namespace: isvc.Namespace},
		Spec: omev1beta1.TrafficMapSpec{Service: isvc.Name, Mode: omev1beta1.PlacementModeAll, Entries: []omev1beta1.TrafficMapEntry{
			{Cluster: "worker-a", Endpoint: "http://a.example.test", Weight: 1, Healthy: true},
		}},
	}
	Expect(controllerutil.SetControllerReference(isvc, tm, envfleet.Scheme)).To(Succeed())
	Expect(fleet.ControlPlane.Client.Create(ctx, tm)).To(Succeed())
	return tm
}

// touch writes the map on the API server, as another writer would, so that a copy read
// before is stale.
func touch(ctx context.Context, key client.ObjectKey) {
	tm := &omev1beta1.TrafficMap{}
	Expect(fleet.ControlPlane.Client.Get(ctx, key, tm)).To(Succeed())
	tm.Labels = map[string]string{"touched": "yes"}
	Expect(fleet.ControlPlane.Client.Update(ctx, tm)).To(Succeed())
}

var _ = Describe("Reads and writes the API server guards", func() {
	BeforeEach(func() {
		// The suite's manager would reconcile these services too: only the hand-driven
		// reconciler may touch them.
		stopManager()
		stopManager = func() {}
		DeferCleanup(func() { stopManager = startManager(installationProbe(omev1beta1.AllFailedPreserveTraffic), 16) })
	})

	It("keeps a service's probe state when only the cache has lost the service", func(ctx context.Context) {
		isvc := newSource(ctx, "cache-hiccup", []string{"worker-a"}, nil)
		key := client.ObjectKeyFromObject(isvc)
		policy := *installationProbe(omev1beta1.AllFailedPreserveTraffic)
		digest := probe.Digest(policy)
		last := metav1.Now()
		gated := &omev1beta1.TrafficMapProbe{PolicyDigest: digest, Result: omev1beta1.ProbeFailing, Message: "HTTP 503",
			Gated: true, ConsecutiveFailures: 3, LastProbeTime: &last}
		prober := probing.NewProber(nil, 1)
		home := probing.ProbeTarget{Cluster: "worker-a", Endpoint: "http://a.example.test"}
		withRecord := home
		withRecord.Persisted = gated
		Expect(prober.Sync(key, isvc.UID, policy, digest, []probing.ProbeTarget{withRecord})["worker-a"].Gated).To(BeTrue())

		cache := &laggingCache{Client: fleet.ControlPlane.Client, missServices: true}
		r := handReconciler(cache, prober)
		log := gbytes.NewBuffer()
		logCtx := logf.IntoContext(ctx, zap.New(zap.WriteTo(log), zap.UseDevMode(true)))
		res, err := r.Reconcile(logCtx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeNumerically(">", 0), "a service the API server still has is looked at again")
		Expect(prober.Sync(key, isvc.UID, policy, digest, []probing.ProbeTarget{home})["worker-a"].Gated).To(BeTrue(),
			"the cache's word alone must not drop the gate")
		Expect(log).To(gbytesSay("The cache does not have a service the API server has; keeping its probe state"))

		// An API server that cannot say either way keeps the state too, and says why.
		unsure := handReconciler(cache, prober)
		unsure.APIReader = failingReader{}
		_, err = unsure.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).To(MatchError(HavePrefix("confirm InferenceService " + key.String() + " is gone: ")))
		Expect(prober.Sync(key, isvc.UID, policy, digest, []probing.ProbeTarget{home})["worker-a"].Gated).To(BeTrue())

		// Once the API server agrees, the state goes.
		Expect(fleet.ControlPlane.Client.Delete(ctx, isvc)).To(Succeed())
		Eventually(func() error { return fleet.ControlPlane.Client.Get(ctx, key, &omev1beta1.InferenceService{}) }, timeout, interval).
			Should(Satisfy(apierrors.IsNotFound))
		res, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeZero())
		st := prober.Sync(key, isvc.UID, policy, digest, []probing.ProbeTarget{home})["worker-a"]
		Expect(st.Gated || st.Probed).To(BeFalse(), "a service that is gone has its state forgotten")
	})

	It("deletes only the map it read, and retries a conflict from a fresh read", func(ctx context.Context) {
		isvc := newSource(ctx, "guarded-delete", []string{"worker-a"}, &omev1beta1.Routing{Enabled: ptr.To(false)})
		key := client.ObjectKeyFromObject(isvc)
		tm := mapOf(ctx, isvc)
		cache := &laggingCache{Client: fleet.ControlPlane.Client, lagMaps: true, staleMaps: map[client.ObjectKey]*omev1beta1.TrafficMap{}}
		r := handReconciler(cache, probing.NewProber(nil, 1))

		// The cache serves the map as first read; someone writes it meanwhile.
		Expect(cache.Get(ctx, key, &omev1beta1.TrafficMap{})).To(Succeed())
		touch(ctx, key)
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeNumerically(">", 0), "a conflict is retried")
		Expect(fleet.ControlPlane.Client.Get(ctx, key, &omev1beta1.TrafficMap{})).To(Succeed(), "a map written since it was read must not be deleted")
		Expect(cache.deleteOpts).To(HaveLen(1))
		Expect(cache.deleteOpts[0].Preconditions).NotTo(BeNil())
		Expect(cache.deleteOpts[0].Preconditions.UID).To(HaveValue(Equal(tm.UID)))
		Expect(cache.deleteOpts[0].Preconditions.ResourceVersion).To(HaveValue(Equal(tm.ResourceVersion)))

		// The cache still lags; the retry reads the map from the API server and deletes it.
		res, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeZero())
		Expect(fleet.ControlPlane.Client.Get(ctx, key, &omev1beta1.TrafficMap{})).To(Satisfy(apierrors.IsNotFound))
	})

	It("retries a conflicting update from a fresh read, never writing the stale copy", func(ctx context.Context) {
		// Placed on a cluster that does not exist: the map has no entries to reach.
		isvc := newSource(ctx, "guarded-update", []string{"no-such-cluster"}, nil)
		key := client.ObjectKeyFromObject(isvc)
		mapOf(ctx, isvc)
		cache := &laggingCache{Client: fleet.ControlPlane.Client, lagMaps: true, staleMaps: map[client.ObjectKey]*omev1beta1.TrafficMap{}}
		r := handReconciler(cache, probing.NewProber(nil, 1))
		Expect(cache.Get(ctx, key, &omev1beta1.TrafficMap{})).To(Succeed())
		touch(ctx, key)

		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeNumerically(">", 0), "a conflict is retried")
		tm := &omev1beta1.TrafficMap{}
		Expect(fleet.ControlPlane.Client.Get(ctx, key, tm)).To(Succeed())
		Expect(tm.Spec.Entries).To(HaveLen(1), "the stale copy was not written")

		res, err = r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.RequeueAfter).To(BeZero())
		Expect(fleet.ControlPlane.Client.Get(ctx, key, tm)).To(Succeed())
		Expect(tm.Spec.Entries).To(BeEmpty())
		Expect(tm.Labels).To(HaveKeyWithValue("touched", "yes"), "the newer object was built on, not overwritten")
	})
})
