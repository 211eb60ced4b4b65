package publisher

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/pkg/config"
)

// Finalizer holds a published TrafficMap until the publisher has removed its
// route and backends.
const Finalizer = "ome.io/trafficmap-publisher"

// ownerCatchUpGrace is how long a map may lag behind its InferenceService's generation
// before the publisher calls it InvalidOwner. Every edit of a service leaves its map a
// generation behind until the routing reconciler has written it again, which is a wait,
// not a failure; a map that stays behind is one the routing reconciler refused to update
// (the service's new settings are invalid), and OME reports that as InvalidOwner. The
// publisher does not: such a map says it is frozen (see frozen), and Published stays.
const ownerCatchUpGrace = 15 * time.Second

// Reconciler writes each TrafficMap into a Gateway API HTTPRoute on the control
// plane, with one backend per workload cluster, for the global gateway to spread the
// service's traffic by the map's weights. It reads the map's spec, which only the routing
// reconciler writes, and writes only its own status fields and conditions. It runs on the
// leader only, with Workers workers: the queue never hands one map to two of
// them, and the names two maps could both want (a route's name, a hostname on a Gateway)
// are claimed in memory the workers share (memory.go), so two writers never
// race for one route.
//
// Every probe round moves each map's generation, so at fleet size the publisher is handed
// every map every round. Such a round costs it one status write and nothing else: it reads
// what it published from the cache, writes a route or backend only when the plan differs
// from it, and looks for stale objects only when the plan's set of objects changed or at
// the resync. Maps whose weights changed go ahead of maps whose only news is a new
// generation (see priority.go).
type Reconciler struct {
	// Client writes, and reads the maps, services, routes and backend Services from the
	// manager's cache (see CacheOptions: the Services cached are the publisher's own).
	Client client.Client
	// Backends reads the backends of the optional kinds (publish.BackendKindSpec), the
	// publisher's own, from a cache of their own, by kind; a kind the control plane does
	// not serve has none (see register).
	Backends map[schema.GroupKind]client.Reader
	// Policies reads BackendTLSPolicies, the publisher's own, from a cache of their own;
	// nil when the control plane does not serve them.
	Policies client.Reader
	// TrafficPolicies reads Envoy Gateway BackendTrafficPolicies, the publisher's own, from
	// a cache of their own; nil when the control plane does not serve them, and then no
	// route gets one.
	TrafficPolicies client.Reader
	// Reader reads around the cache, where a decision must see the live object: before a
	// name the cache does not hold is claimed (a foreign object at that name, or one of
	// ours the cache has not caught up with), and when a deleted map's objects are removed.
	Reader   client.Reader
	Recorder events.EventRecorder
	// RoutingEnabled is the installation's routing.enabled: with routing off, the
	// publisher only removes what it published.
	RoutingEnabled bool
	Endpoint       config.Endpoint
	Publisher      config.Publisher
	// now is the clock of condition transition times and of the resync; time.Now when nil.
	now func() time.Time

	// memory is what the publisher last published for each map (memory.go).
	memory publications
	// lane keeps a worker free for maps whose route changes (see priority.Lane); watch
	// makes it, and a reconciler without one holds nothing back.
	lane *priority.Lane
	// guard decides which entries' hosts may be published (guard.go). Setup builds it
	// from the observer, so that a route refuses what a probe refuses; there is no
	// publisher without one.
	guard *publishGuard
	// addresses resolves the workload clusters' Gateway addresses for the EndpointSlice
	// fallback (addresses.go); nil with the fallback off.
	addresses *addressResolver
	// routeRetryDropped says the API server dropped a route's retry (retry.go).
	routeRetryDropped atomic.Bool
}

// +kubebuilder:rbac:groups=ome.io,resources=trafficmaps,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=ome.io,resources=trafficmaps/status,verbs=get;patch
// +kubebuilder:rbac:groups=ome.io,resources=inferenceservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=gateway.envoyproxy.io,resources=backends,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=backendtlspolicies,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=gateway.envoyproxy.io,resources=backendtrafficpolicies,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch;create;patch;delete

// unpublish removes everything published for the map and records reason (Unpublished or
// Withdrawn) with no route. A withdrawn map is looked at again at the resync, as a
// published one is; an unpublished one waits for the routing reconciler to delete it.
func (r *Reconciler) unpublish(ctx context.Context, tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason) (ctrl.Result, error) {
	key := client.ObjectKeyFromObject(tm)
	if err := r.removeAll(ctx, r.cached(), key, nil); err != nil {
		return r.fail(ctx, tm, omev1beta1.TrafficMapReasonApplyFailed, err, true)
	}
	r.memory.unpublished(key)
	err := r.record(ctx, tm, reason, nil)
	if reason == omev1beta1.TrafficMapReasonWithdrawn {
		return r.resync(err)
	}
	return ctrl.Result{}, err
}

// refuseHost removes what was published for a map whose annotated hostname is refused:
// a route left at that hostname would keep it from the service it belongs to.
func (r *Reconciler) refuseHost(ctx context.Context, tm *omev1beta1.TrafficMap, cause error) (ctrl.Result, error) {
	key := client.ObjectKeyFromObject(tm)
	if err := r.removeAll(ctx, r.cached(), key, nil); err != nil {
		return r.fail(ctx, tm, omev1beta1.TrafficMapReasonApplyFailed, err, true)
	}
	r.memory.unpublished(key)
	gone := tm.DeepCopy()
	gone.Status.GatewayRef = nil // nothing stands any more
	return r.fail(ctx, gone, omev1beta1.TrafficMapReasonGlobalHostRefused, cause, false)
}

func (r *Reconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// finalize removes what was published for a deleted map, then lets it go. It lists what
// to remove around the cache: an object written a moment ago must not be left behind
// because the cache has not seen it yet.
func (r *Reconciler) finalize(ctx context.Context, tm *omev1beta1.TrafficMap) error {
	if !controllerutil.ContainsFinalizer(tm, Finalizer) {
		return nil
	}
	if err := r.record(ctx, tm, omev1beta1.TrafficMapReasonFinalizing, tm.Status.GatewayRef); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	err := r.drainStale(ctx, tm, "")
	if err == nil {
		err = r.removeAll(ctx, r.live(), client.ObjectKeyFromObject(tm), nil)
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "TrafficMap publisher finalization failed", "trafficMap", klog.KObj(tm))
		return err
	}
	r.memory.forget(client.ObjectKeyFromObject(tm))
	forgetPublicationFallback(client.ObjectKeyFromObject(tm))
	before := tm.DeepCopy()
	controllerutil.RemoveFinalizer(tm, Finalizer)
	return client.IgnoreNotFound(r.Client.Patch(ctx, tm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}),
		client.FieldOwner(mapstatus.PublisherStatusManager)))
}

func (r *Reconciler) ensureFinalizer(ctx context.Context, tm *omev1beta1.TrafficMap) error {
	if controllerutil.ContainsFinalizer(tm, Finalizer) {
		return nil
	}
	before := tm.DeepCopy()
	controllerutil.AddFinalizer(tm, Finalizer)
	return r.Client.Patch(ctx, tm, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}),
		client.FieldOwner(mapstatus.PublisherStatusManager))
}

// invalidOwner is a map whose binding to its service is wrong, as opposed to one whose
// service could not be read.
type invalidOwner struct{ msg string }

func (e *invalidOwner) Error() string { return e.msg }

func rejectOwner(format string, args ...any) error {
	return &invalidOwner{msg: fmt.Sprintf(format, args...)}
}

// ownerBehind is a map built from another generation of its service than the one the
// publisher sees: an invalid owner only once it has lasted past ownerCatchUpGrace.
type ownerBehind struct {
	invalidOwner
	generation int64
}

// owner is the map's InferenceService, nil when it is gone. The map must be controlled
// by it, name it, come from its UID and be built from its current generation.
func (r *Reconciler) owner(ctx context.Context, tm *omev1beta1.TrafficMap) (*omev1beta1.InferenceService, error) {
	isvc := &omev1beta1.InferenceService{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(tm), isvc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	ref := metav1.GetControllerOf(tm)
	switch {
	case ref == nil || ref.UID != isvc.UID || ref.Kind != "InferenceService" || ref.APIVersion != omev1beta1.GroupVersion.String():
		return nil, rejectOwner("TrafficMap %s/%s exists but is not controlled by InferenceService UID %q", tm.Namespace, tm.Name, isvc.UID)
	case tm.Spec.Service != isvc.Name:
		return nil, rejectOwner("TrafficMap %s/%s names service %q, not %q", tm.Namespace, tm.Name, tm.Spec.Service, isvc.Name)
	case tm.Status.SourceUID != "" && tm.Status.SourceUID != string(isvc.UID):
		return nil, rejectOwner("TrafficMap %s/%s source UID %q does not match InferenceService UID %q",
			tm.Namespace, tm.Name, tm.Status.SourceUID, isvc.UID)
	case isvc.DeletionTimestamp.IsZero() && tm.Spec.ObservedISVCGeneration != isvc.Generation:
		return nil, &ownerBehind{generation: isvc.Generation, invalidOwner: invalidOwner{msg: fmt.Sprintf(
			"TrafficMap %s/%s was built from generation %d of InferenceService %s/%s, which is at %d",
			tm.Namespace, tm.Name, tm.Spec.ObservedISVCGeneration, isvc.Namespace, isvc.Name, isvc.Generation)}}
	}
	return isvc, nil
}

// publishable says whether the service takes part in routing, so its map is published.
func publishable(isvc *omev1beta1.InferenceService) bool {
	if !isvc.DeletionTimestamp.IsZero() || isvc.Spec.Placement == nil {
		return false
	}
	rt := isvc.Spec.Routing
	return rt == nil || rt.Enabled == nil || *rt.Enabled
}

func publishedReason(tm *omev1beta1.TrafficMap) omev1beta1.TrafficMapConditionReason {
	for _, c := range tm.Status.Conditions {
		if c.Type == omev1beta1.TrafficMapPublished {
			return omev1beta1.TrafficMapConditionReason(c.Reason)
		}
	}
	return ""
}
