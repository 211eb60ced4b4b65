package routing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/controllers/workloadcluster"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// FieldManager is the field manager of every write the operator makes.
const FieldManager = "ome-routing"

// memberPendingRetry is how soon a service waiting for a member connection is looked at
// again.
const memberPendingRetry = time.Second

// Reconciler keeps the TrafficMap of every routed source InferenceService on the
// control plane. It is the only writer of TrafficMaps: the prober hands it results and it
// merges them into the map.
type Reconciler struct {
	// lane keeps a worker free for gates and lifts (see priority.Lane); SetupWithManager
	// makes it, and a reconciler without one holds nothing back.
	lane *priority.Lane

	Client   client.Client
	Recorder events.EventRecorder
	Members  *workloadcluster.Members
	Prober   *probing.Prober
	Poller   *probing.Poller
	// Signal reads the traffic signal for the services whose probe sets a passiveGate;
	// nil, or one without a source, reads every home as Unknown.
	Signal *probing.SignalPoller
	// Load reads the model servers' load for the services that balance by it; nil, or one
	// without a source, reads every home as Unknown.
	Load *probing.LoadPoller
	// InstallationLoadBalancing is the installation's routing.loadBalancing, validated;
	// nil when it sets none.
	InstallationLoadBalancing *loadbalance.Policy
	// RouteNamespace is endpoint.routeNamespace: where the publisher writes the routes,
	// empty for each service's own namespace. The traffic signal's queries name the route.
	RouteNamespace string
	// RoutingEnabled is the installation's routing.enabled.
	RoutingEnabled bool
	// InstallationProbe is the installation's probe, nil when it sets none.
	InstallationProbe *probe.Policy
	// InstallationFailover is the installation's routing.failover, validated; nil when it
	// sets none.
	InstallationFailover *omev1beta1.RoutingFailover
	// Limits are the observer limits a service's probe must respect.
	Limits probe.Limits
	// FieldManager names the writer in managedFields; empty means FieldManager. Tests that
	// run several managers give each its own, to tell their writes apart.
	FieldManager string
	// APIReader reads straight from the API server, past the cache: to confirm that a
	// service the cache no longer has is gone, and to build again after a conflict.
	APIReader client.Reader

	// fresh holds the services whose last write conflicted (see retryConflict).
	fresh sync.Map
	// written remembers the map versions this reconciler wrote, whose watch events it
	// skips (see own_writes.go).
	written ownWrites
	// applied remembers the clusters each map holds at weight 0, for TrafficApplied
	// (see applied.go).
	applied appliedTracker
	// counters remembers what the gateway's counters last said of each map's homes at
	// weight 0, for the serving states written with the next spec (verdict.go).
	counters counterMemory
	// Capacity is the installation's capacity poll, nil when it sets none.
	Capacity *capacity.Policy
	// CapacityLimits are the observer limits a service's capacity poll must respect.
	CapacityLimits capacity.Limits
	// RecordInterval is how long a quiet probe round may go unwritten (see
	// trafficmap.QuietRound); zero writes every round.
	RecordInterval time.Duration
	// ObservationGrace is placement.observationGrace: how long the homes on a member the
	// manager cannot read keep their entries (see keepUnobserved).
	ObservationGrace time.Duration
	// BackendPort is the port the global route sends to (endpoint.backendPort) while the
	// installation publishes routes, 0 when it does not; an entry whose probe goes to
	// another port says so (see trafficmap.PortWarning).
	BackendPort int32
}

// +kubebuilder:rbac:groups=ome.io,resources=inferenceservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=ome.io,resources=inferenceservices/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=ome.io,resources=trafficmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=ome.io,resources=trafficmaps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// routed says whether the service takes part in routing: the installation has routing
// on, the service is placed, and it has not opted out.
func (r *Reconciler) routed(isvc *omev1beta1.InferenceService) bool {
	if !r.RoutingEnabled || isvc.Spec.Placement == nil {
		return false
	}
	rt := isvc.Spec.Routing
	return rt == nil || rt.Enabled == nil || *rt.Enabled
}

// routingPolicy resolves the service's probe and parses its capacity factors. Its errors
// carry the prefixes users grep for.
func (r *Reconciler) routingPolicy(isvc *omev1beta1.InferenceService) (probe.Resolution, map[string]resource.Quantity, error) {
	var serviceProbe *omev1beta1.RoutingProbe
	if isvc.Spec.Routing != nil {
		serviceProbe = isvc.Spec.Routing.Probe
	}
	res, err := probe.Resolve(r.InstallationProbe, serviceProbe, r.Limits)
	if err != nil {
		return res, nil, err
	}
	factors, errs := trafficmap.ParseCapacityFactors(capacityFactors(isvc))
	if len(errs) > 0 {
		// One line per problem, each with the prefix users grep for.
		for i, e := range errs {
			errs[i] = fmt.Errorf("validate routing policy: %w", e)
		}
		return res, nil, errors.Join(errs...)
	}
	return res, factors, nil
}

// refuse freezes a service whose routing settings are refused: no probing, and its map's
// spec (or the lack of a map) stays exactly as it is until the settings are fixed. The map
// says so in its SettingsAccepted condition and the gauge, both set before the event, so
// that whoever reads the event finds the map already saying it is frozen.
func (r *Reconciler) refuse(ctx context.Context, isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, err error) error {
	key := client.ObjectKeyFromObject(isvc)
	r.stopObserving(key)
	ctrl.LoggerFrom(ctx).Error(err, "Refusing routing settings; the TrafficMap is frozen", "InferenceService", klog.KObj(isvc))
	setSettingsRefused(key, true)
	var writeErr error
	if current != nil {
		writeErr = r.writeFrozenStatus(ctx, current, err)
	}
	r.announceRefused(isvc, err)
	return writeErr
}

// shadow reports whether the service's probe is in Shadow mode.
func shadow(res probe.Resolution) bool {
	return res.Mode == probe.ModePolicy && res.Policy.Shadow()
}

func allFailedPolicy(res probe.Resolution) omev1beta1.AllFailedPolicy {
	if res.Mode != probe.ModePolicy {
		return ""
	}
	return res.Policy.AllFailedPolicy
}

// SetupWithManager registers the reconciler and its watches: the sources, their maps, the
// WorkloadClusters, the copies on every member, and the prober's results.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, workers int) error {
	r.lane = priority.NewLane(workers)
	return ctrl.NewControllerManagedBy(mgr).
		Named("routing").
		For(&omev1beta1.InferenceService{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, drainAnnotationChanged()))).
		Watches(&omev1beta1.TrafficMap{}, r.written.skipOwn(pendingRunsFirst(r.lane, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(),
			&omev1beta1.InferenceService{}, handler.OnlyControllerOwner()))), builder.WithPredicates(routingInputChanged{})).
		Watches(&omev1beta1.WorkloadCluster{}, handler.EnqueueRequestsFromMapFunc(r.allSources)).
		WatchesRawSource(source.Channel(r.Members.Events(), &handler.EnqueueRequestForObject{})).
		WatchesRawSource(source.TypedChannel(r.Prober.Events(), probeNoticeHandler(r.lane))).
		WatchesRawSource(source.Channel(r.Poller.Events(), &handler.EnqueueRequestForObject{})).
		WatchesRawSource(source.Channel(r.Signal.Events(), &handler.EnqueueRequestForObject{})).
		WatchesRawSource(source.Channel(r.Load.Events(), &handler.EnqueueRequestForObject{})).
		// The priority queue is controller-runtime's default; it is named because the
		// prober's notices depend on it (see priority.go).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, UsePriorityQueue: ptr.To(true)}).
		Complete(r)
}

// allSources enqueues every placed service: a cluster's readiness or labels can change
// the candidates of any of them.
func (r *Reconciler) allSources(ctx context.Context, _ client.Object) []ctrl.Request {
	list := &omev1beta1.InferenceServiceList{}
	if err := r.Client.List(ctx, list); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "List InferenceServices")
		return nil
	}
	reqs := make([]ctrl.Request, 0, len(list.Items))
	for i := range list.Items {
		if list.Items[i].Spec.Placement != nil {
			reqs = append(reqs, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
}
