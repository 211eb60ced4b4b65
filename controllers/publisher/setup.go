package publisher

import (
	"context"
	"fmt"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/controllers/recorder"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// routeHostnameIndex indexes the cached HTTPRoutes by each of their hostnames, so that
// the hostname-ownership check reads the few routes with the plan's hostname instead of
// every route in the cluster.
const routeHostnameIndex = "spec.hostnames"

// publishedSelector picks the objects the publisher writes, whichever service they are
// for. The caches of backend Services and Envoy Gateway Backends hold only these.
var publishedSelector = labels.SelectorFromSet(labels.Set{publish.LabelManagedBy: publish.ManagedByValue})

// gatewayAPIRecheck is how often a manager that started before the Gateway API CRDs were
// installed looks for them again.
const gatewayAPIRecheck = 10 * time.Second

// Options are the publisher's settings.
type Options struct {
	// RoutingEnabled is the installation's routing.enabled.
	RoutingEnabled bool
	// Endpoint and Publisher say where the publisher writes each map.
	Endpoint  config.Endpoint
	Publisher config.Publisher
	// Observer is the shared HTTP client, whose network guard and resolver check each
	// backend's address.
	Observer *observer.Observer
	// GatewayAPIRecheck is how often a manager started without the Gateway API CRDs looks
	// for them; zero means gatewayAPIRecheck.
	GatewayAPIRecheck time.Duration
	// Members reaches the workload clusters, for the Gateway addresses of the EndpointSlice
	// fallback; nil when the publisher runs alone, which then reports every cluster as not
	// connected under the fallback.
	Members MemberAccess
}

// Setup registers the publisher: controllers.Setup calls it, and it calls register now or,
// on a control plane without Gateway API HTTPRoutes, once they are served. Without
// HTTPRoutes there is nothing to publish into, and a watch on them would keep the manager
// from starting: the manager then looks for them every gatewayAPIRecheck
// (opts.GatewayAPIRecheck in tests) and registers the publisher once they are served,
// without a restart.
func Setup(mgr ctrl.Manager, opts Options) error {
	served, err := httpRoutesServed(mgr)
	switch {
	case err != nil:
		return err
	case served:
		return register(mgr, opts)
	}
	every := opts.GatewayAPIRecheck
	if every <= 0 {
		every = gatewayAPIRecheck
	}
	ctrl.Log.WithName("setup").Info("Gateway API HTTPRoutes are not served here; TrafficMaps are published once they are",
		"checkEvery", every.String())
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		return wait.PollUntilContextCancel(ctx, every, false, func(context.Context) (bool, error) {
			served, err := httpRoutesServed(mgr)
			if err != nil {
				// Tried again at the next check: the manager runs on without publishing
				// meanwhile, as it did before it started looking.
				ctrl.Log.WithName("setup").V(1).Info("Looking for the Gateway API failed", "error", err.Error())
			}
			if !served {
				return false, nil
			}
			ctrl.Log.WithName("setup").Info("Gateway API HTTPRoutes are served now")
			return true, register(mgr, opts)
		})
	}))
}

// httpRoutesServed says whether the control plane serves Gateway API HTTPRoutes.
func httpRoutesServed(mgr ctrl.Manager) (bool, error) {
	route := schema.GroupKind{Group: gatewayv1.GroupName, Kind: "HTTPRoute"}
	if _, err := mgr.GetRESTMapper().RESTMapping(route, gatewayv1.GroupVersion.Version); err != nil {
		if meta.IsNoMatchError(err) {
			return false, nil
		}
		return false, fmt.Errorf("look up Gateway API HTTPRoutes: %w", err)
	}
	return true, nil
}

// register builds the publisher on a control plane that serves HTTPRoutes, with the
// caches of the optional kinds served there, and adds it to the manager with its indexes
// and watches. It is the only way a publisher is made, so that none runs without its
// guard and recorder.
func register(mgr ctrl.Manager, opts Options) error {
	log := ctrl.Log.WithName("setup")
	backends := map[schema.GroupKind]cache.Cache{}
	var served []string
	for _, k := range publish.BackendKinds {
		if !k.Optional {
			served = append(served, string(k.Setting))
			continue
		}
		c, err := optionalCache(mgr, k.GVK)
		if err != nil {
			return err
		}
		if c != nil {
			backends[k.GVK.GroupKind()] = c
			served = append(served, string(k.Setting))
		}
	}
	policies, err := optionalCache(mgr, tlsPolicyGVK)
	if err != nil {
		return err
	}
	trafficPolicies, err := optionalCache(mgr, trafficPolicyGVK)
	if err != nil {
		return err
	}
	log.Info("Setting up the TrafficMap publisher", "publisher", "gatewayapi", "globalGateway", opts.Endpoint.GlobalGateway,
		"backendKind", opts.Endpoint.Backend(), "backendTLS", opts.Endpoint.BackendTLS, "resyncInterval", opts.Publisher.Resync().String(),
		"backendKindsServed", served, "backendTLSPoliciesServed", policies != nil,
		"backendTrafficPoliciesServed", trafficPolicies != nil,
		"endpointSlices", opts.Endpoint.EndpointSlices)
	// The operator's recorder, not the manager's: each refusal, failure and withdrawal
	// is its own Event with its own cause (see controllers/recorder).
	rec, err := recorder.ForManager(mgr, "ome-publisher")
	if err != nil {
		return err
	}
	r := &Reconciler{
		Client:         mgr.GetClient(),
		Reader:         mgr.GetAPIReader(),
		Recorder:       rec,
		RoutingEnabled: opts.RoutingEnabled,
		Endpoint:       opts.Endpoint,
		Publisher:      opts.Publisher,
		Backends:       make(map[schema.GroupKind]client.Reader, len(backends)),
		guard:          newPublishGuard(opts.Observer.Guard(), opts.Observer.LookupHost, opts.Publisher.Resync()),
	}
	if opts.Endpoint.EndpointSlices {
		// Members are read only with the fallback on: the member access it needs (get on
		// Gateways and HTTPRoutes) is granted only then.
		r.addresses = newAddressResolver(opts.Members, opts.Observer.Guard(), opts.Endpoint.AddressRefreshInterval)
	}
	for gk, c := range backends {
		r.Backends[gk] = c
	}
	// Set only when served: a nil cache.Cache in the interface would not read as nil.
	if policies != nil {
		r.Policies = policies
	}
	if trafficPolicies != nil {
		r.TrafficPolicies = trafficPolicies
	}
	return r.watch(mgr, backends, policies, trafficPolicies)
}

// optionalCache is a cache of the publisher's own objects of a kind the control plane
// may not serve (Envoy Gateway Backends and BackendTrafficPolicies, BackendTLSPolicies),
// added to the manager, or nil when the kind is not served. Such kinds get a cache of
// their own because the manager's cannot name a kind that may not exist; one installed
// later is seen after a restart.
func optionalCache(mgr ctrl.Manager, gvk schema.GroupVersionKind) (cache.Cache, error) {
	if _, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("look up %s: %w", gvk.GroupKind(), err)
	}
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultLabelSelector: publishedSelector,
	})
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", gvk.GroupKind(), err)
	}
	return c, mgr.Add(startedWithCaches{c})
}

// startedWithCaches makes the manager start a cache of ours with its own, before the
// controllers and whether or not it leads, as it does for its cache.
type startedWithCaches struct{ cache.Cache }

func (c startedWithCaches) GetCache() cache.Cache { return c.Cache }

// CacheByObject are the manager's cache settings for the publisher's kinds: the
// backends (of the kinds not optional) and EndpointSlices it holds are the publisher's own. (Routes are all
// cached: the hostname check must see other sources' routes.) EndpointSlices are cached
// with the fallback off too, so that turning it off finds the slices to delete.
func CacheByObject() map[client.Object]cache.ByObject {
	out := map[client.Object]cache.ByObject{&discoveryv1.EndpointSlice{}: {Label: publishedSelector}}
	for _, k := range publish.BackendKinds {
		if !k.Optional {
			out[k.New().(client.Object)] = cache.ByObject{Label: publishedSelector}
		}
	}
	return out
}

// Workers is how many maps the publisher works on at once. At steady state each
// reconcile is one status write; at fleet size one worker spends its time waiting for
// those answers, and a gate waits behind the write in flight.
const Workers = 4

// RefreshWorkers is how many of them may write maps whose route does not change at once;
// the others are kept for maps whose route does (see priority.Lane).
var RefreshWorkers = priority.RefreshWorkers(Workers)

// watch adds the publisher to mgr: Workers workers, leader only (controller-runtime's
// default for controllers), watching the maps, their services and what it wrote. backends
// are the caches of the optional backend kinds served, policies the cache of
// BackendTLSPolicies and trafficPolicies that of BackendTrafficPolicies, nil when they
// are not served.
func (r *Reconciler) watch(mgr ctrl.Manager, backends map[schema.GroupKind]cache.Cache, policies, trafficPolicies cache.Cache) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &gatewayv1.HTTPRoute{}, routeHostnameIndex, routeHostnames); err != nil {
		return fmt.Errorf("index HTTPRoutes by hostname: %w", err)
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &omev1beta1.InferenceService{}, templateHostIndex, r.templateHosts); err != nil {
		return fmt.Errorf("index InferenceServices by template hostname: %w", err)
	}
	if err := indexClaimedTargets(mgr.GetFieldIndexer()); err != nil {
		return err
	}
	r.lane = priority.NewLane(Workers)
	b := ctrl.NewControllerManagedBy(mgr).
		Named("publisher").
		Watches(&omev1beta1.TrafficMap{}, mapEventHandler(r.lane), builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, finalizerOrDeletionChanged{}))).
		// A service's map has its name: its annotations (the global host) and its routing
		// switch change the publication.
		Watches(&omev1beta1.InferenceService{}, &handler.EnqueueRequestForObject{},
			builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		// A service whose template hostname an annotated route holds takes it back: that
		// route's map is refused (globalhost.go).
		Watches(&omev1beta1.InferenceService{}, handler.EnqueueRequestsFromMapFunc(r.mapsHoldingTemplateHost),
			builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		// A route or backend edited or deleted by hand is put back.
		Watches(&gatewayv1.HTTPRoute{}, handler.EnqueueRequestsFromMapFunc(mapOfPublished)).
		Watches(&discoveryv1.EndpointSlice{}, handler.EnqueueRequestsFromMapFunc(mapOfPublished)).
		WithOptions(controller.Options{MaxConcurrentReconciles: Workers, UsePriorityQueue: ptr.To(true)})
	for _, k := range publish.BackendKinds {
		obj := k.New().(client.Object)
		switch c := backends[k.GVK.GroupKind()]; {
		case !k.Optional:
			b = b.Watches(obj, handler.EnqueueRequestsFromMapFunc(mapOfPublished))
		case c != nil:
			b = b.WatchesRawSource(source.Kind[client.Object](c, obj, handler.EnqueueRequestsFromMapFunc(mapOfPublished)))
		}
	}
	if policies != nil {
		b = b.WatchesRawSource(source.Kind[client.Object](policies, &gatewayv1.BackendTLSPolicy{}, handler.EnqueueRequestsFromMapFunc(mapOfPublished)))
	}
	if trafficPolicies != nil {
		b = b.WatchesRawSource(source.Kind[client.Object](trafficPolicies, unstructuredOf(trafficPolicyGVK), handler.EnqueueRequestsFromMapFunc(mapOfPublished)))
	}
	return b.Complete(r)
}

func routeHostnames(obj client.Object) []string {
	route, ok := obj.(*gatewayv1.HTTPRoute)
	if !ok {
		return nil
	}
	out := make([]string, len(route.Spec.Hostnames))
	for i, h := range route.Spec.Hostnames {
		out[i] = string(h)
	}
	return out
}

// mapOfPublished is the TrafficMap an object the publisher wrote publishes, from its labels.
func mapOfPublished(_ context.Context, obj client.Object) []ctrl.Request {
	l := obj.GetLabels()
	if l[publish.LabelManagedBy] != publish.ManagedByValue || l[publish.LabelService] == "" || l[publish.LabelServiceNamespace] == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: l[publish.LabelServiceNamespace], Name: l[publish.LabelService]}}}
}

// finalizerOrDeletionChanged passes updates that start a deletion or change finalizers.
type finalizerOrDeletionChanged struct{ predicate.Funcs }

func (finalizerOrDeletionChanged) Update(e event.UpdateEvent) bool {
	return e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero() ||
		len(e.ObjectOld.GetFinalizers()) != len(e.ObjectNew.GetFinalizers())
}
