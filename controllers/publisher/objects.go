package publisher

import (
	"context"
	"errors"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/publish"
)

// actionPublish is the event action of the publisher's events.
const actionPublish = "Publish"

// claimRejected is a name or hostname that belongs to someone else: the publisher never
// overwrites it, and waits for a change or the resync instead of retrying.
type claimRejected struct{ msg string }

func (e *claimRejected) Error() string { return e.msg }

func rejectClaim(format string, args ...any) error {
	return &claimRejected{msg: fmt.Sprintf(format, args...)}
}

// isClaimRejected says whether err is a refused claim rather than a failed read.
func isClaimRejected(err error) bool {
	var c *claimRejected
	return errors.As(err, &c)
}

// httpRouteGVK is the kind of the routes the publisher writes.
var httpRouteGVK = schema.GroupVersionKind{Group: gatewayv1.GroupName, Version: gatewayv1.GroupVersion.Version, Kind: "HTTPRoute"}

// tlsPolicyGVK is Gateway API's BackendTLSPolicy (standard channel since v1.4), which
// the publisher writes under endpoint.gatewayBackend.tls.
var tlsPolicyGVK = schema.GroupVersionKind{Group: gatewayv1.GroupName, Version: gatewayv1.GroupVersion.Version, Kind: publish.KindTLSPolicy}

// trafficPolicyGVK is Envoy Gateway's BackendTrafficPolicy, which the publisher writes
// for a route's retry budget on Envoy Gateway Backends.
var trafficPolicyGVK = schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion, Kind: publish.KindTrafficPolicy}

// publishedReaders are where the publisher reads the objects it writes, by kind: the
// manager's cache (or the API server, around it), and for the kinds a control plane may
// not serve (optional backend kinds, BackendTLSPolicies, BackendTrafficPolicies), their
// own caches (or the API server); none for a kind that is not served.
type publishedReaders struct {
	objects         client.Reader
	backends        map[schema.GroupKind]client.Reader // the optional backend kinds served
	policies        client.Reader
	trafficPolicies client.Reader
}

// cached reads the published objects from the caches.
func (r *Reconciler) cached() publishedReaders {
	return publishedReaders{objects: r.Client, backends: r.Backends, policies: r.Policies, trafficPolicies: r.TrafficPolicies}
}

// live reads the published objects from the API server.
func (r *Reconciler) live() publishedReaders {
	out := publishedReaders{objects: r.Reader, backends: make(map[schema.GroupKind]client.Reader, len(r.Backends))}
	for gk := range r.Backends {
		out.backends[gk] = r.Reader
	}
	if r.Policies != nil {
		out.policies = r.Reader
	}
	if r.TrafficPolicies != nil {
		out.trafficPolicies = r.Reader
	}
	return out
}

// backendReader is where readers read backends of kind k; nil for an optional kind the
// control plane does not serve.
func (readers publishedReaders) backendReader(k publish.BackendKindSpec) client.Reader {
	if k.Optional {
		return readers.backends[k.GVK.GroupKind()]
	}
	return readers.objects
}

// errTLSPolicyNotServed is why a plan with BackendTLSPolicies cannot be published on a
// control plane that does not serve them; the claim is refused, as OME refuses it.
var errTLSPolicyNotServed = errors.New("the control plane does not serve BackendTLSPolicy (" + gatewayv1.GroupName + "/" + gatewayv1.GroupVersion.Version +
	"): install Gateway API v1.4 or later, standard channel, and restart the manager")

// preflight checks that every name the plan writes is free or already ours, and that no
// other route holds the hostname on the same Gateway. It returns each object as it is
// now, in the order of objects, nil where there is none.
func (r *Reconciler) preflight(ctx context.Context, plan publish.Plan, objects []publish.Object) ([]map[string]any, error) {
	live := make([]map[string]any, len(objects))
	route := len(objects) - 1
	var err error
	if live[route], err = r.claimable(ctx, objects[route], plan); err != nil {
		return nil, err
	}
	if err := r.hostnameFree(ctx, plan); err != nil {
		return nil, err
	}
	for i := range objects[:route] {
		if live[i], err = r.claimable(ctx, objects[i], plan); err != nil {
			return nil, err
		}
	}
	return live, nil
}

// claimable reads the object the plan writes at o's name: absent, or labelled as the
// plan's service's and not terminating, or it belongs to another source. The cache has
// the answer at steady state; where it has no object, the API server is asked once, since
// a foreign object (which the cache of Services does not hold) or one just written may be
// there.
func (r *Reconciler) claimable(ctx context.Context, o publish.Object, plan publish.Plan) (map[string]any, error) {
	key := types.NamespacedName{Namespace: o.Object.GetNamespace(), Name: o.Object.GetName()}
	obj, err := r.read(ctx, r.cached(), o.Object.GroupVersionKind(), key)
	if err == nil && obj == nil {
		obj, err = r.read(ctx, r.live(), o.Object.GroupVersionKind(), key)
	}
	switch {
	case errors.Is(err, errTLSPolicyNotServed):
		// No retry helps before the CRD is installed and the manager restarted.
		return nil, rejectClaim("read global %s %s: %v", o.Kind, key, err)
	case err != nil:
		return nil, fmt.Errorf("read global %s %s: %w", o.Kind, key, err)
	case obj == nil:
		return nil, nil
	}
	if !publish.OwnedBy(obj.GetLabels(), plan.Labels[publish.LabelServiceNamespace], plan.Labels[publish.LabelService]) {
		return nil, rejectClaim("global %s %s belongs to another source", o.Kind, key)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return nil, rejectClaim("global %s %s is terminating", o.Kind, key)
	}
	return obj.Object, nil
}

// read is the object of kind gvk at key as readers see it, nil when there is none (or
// its kind is not served).
func (r *Reconciler) read(ctx context.Context, readers publishedReaders, gvk schema.GroupVersionKind, key types.NamespacedName) (*unstructured.Unstructured, error) {
	var obj client.Object
	reader := readers.objects
	if k, ok := publish.BackendKindByGroupKind(gvk.GroupKind()); ok {
		obj, reader = k.New().(client.Object), readers.backendReader(k)
	} else {
		switch gvk {
		case httpRouteGVK:
			obj = &gatewayv1.HTTPRoute{}
		case endpointSliceGVK:
			obj = &discoveryv1.EndpointSlice{}
		case tlsPolicyGVK:
			if readers.policies == nil {
				// Only a plan with policies reads one: it cannot be published here.
				return nil, errTLSPolicyNotServed
			}
			obj, reader = &gatewayv1.BackendTLSPolicy{}, readers.policies
		case trafficPolicyGVK:
			// Only a plan made while the kind is served has one, so a nil reader (not
			// served) reads as nothing there.
			obj, reader = unstructuredOf(trafficPolicyGVK), readers.trafficPolicies
		default:
			return nil, fmt.Errorf("the publisher writes no %s", gvk.GroupKind())
		}
	}
	if reader == nil {
		return nil, nil // The kind's CRD is not installed: there is nothing of that kind.
	}
	if err := reader.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// claim takes the plan's route name and its hostname on its Gateway for the map, among
// the publisher's workers: the cache cannot tell two workers publishing at once that the
// other has just taken a name.
func (r *Reconciler) claim(ctx context.Context, key types.NamespacedName, plan publish.Plan) error {
	gwNamespace := plan.Namespace
	if plan.Gateway.Namespace != nil {
		gwNamespace = string(*plan.Gateway.Namespace)
	}
	route := client.ObjectKeyFromObject(plan.Route)
	host := "hostname " + gwNamespace + "/" + string(plan.Gateway.Name) + " " + plan.Hostname
	name, holder, ok := r.memory.claim(key, route, []string{"route " + route.String(), host})
	switch {
	case ok:
		return nil
	case name == host && !plan.Annotated && r.heldByAnnotation(ctx, holder.owner, plan.Hostname):
		return waitForAnnotated(plan.Hostname, holder.route)
	case name == host:
		return rejectClaim("Gateway hostname %q on %s/%s is already published by HTTPRoute %s",
			plan.Hostname, gwNamespace, plan.Gateway.Name, holder.route)
	}
	return rejectClaim("global HTTPRoute %s belongs to another source", route)
}

// hostnameFree refuses a hostname that another source's route already publishes on the
// plan's Gateway: two routes with one hostname would split its traffic. The routes with
// the hostname come from the cache's index (see indexRouteHostnames).
func (r *Reconciler) hostnameFree(ctx context.Context, plan publish.Plan) error {
	routes := &gatewayv1.HTTPRouteList{}
	if err := r.Client.List(ctx, routes, client.MatchingFields{routeHostnameIndex: plan.Hostname}); err != nil {
		return fmt.Errorf("list HTTPRoutes for Gateway hostname ownership: %w", err)
	}
	gwNamespace := plan.Namespace
	if plan.Gateway.Namespace != nil {
		gwNamespace = string(*plan.Gateway.Namespace)
	}
	for i := range routes.Items {
		other := &routes.Items[i]
		if publish.OwnedBy(other.Labels, plan.Labels[publish.LabelServiceNamespace], plan.Labels[publish.LabelService]) {
			continue
		}
		for _, p := range other.Spec.ParentRefs {
			ns := other.Namespace
			if p.Namespace != nil {
				ns = string(*p.Namespace)
			}
			if (p.Group == nil || *p.Group == gatewayv1.GroupName) && (p.Kind == nil || *p.Kind == "Gateway") &&
				ns == gwNamespace && p.Name == plan.Gateway.Name {
				if holder := mapOfPublished(ctx, other); len(holder) == 1 && !plan.Annotated &&
					r.heldByAnnotation(ctx, holder[0].NamespacedName, plan.Hostname) {
					return waitForAnnotated(plan.Hostname, client.ObjectKeyFromObject(other))
				}
				return rejectClaim("Gateway hostname %q on %s/%s is already published by HTTPRoute %s/%s",
					plan.Hostname, gwNamespace, plan.Gateway.Name, other.Namespace, other.Name)
			}
		}
	}
	return nil
}

// apply writes, in order, every object that is not already what the plan says, with
// server-side apply under the publisher's field manager. live holds the objects as they
// are (nil where absent). It returns the objects as they stand after: the API server's
// answer where it wrote, live elsewhere.
func (r *Reconciler) apply(ctx context.Context, objects []publish.Object, live []map[string]any) ([]map[string]any, error) {
	standing := make([]map[string]any, len(objects))
	for i, o := range objects {
		if live[i] != nil && publish.UpToDate(o.Object.Object, live[i]) {
			standing[i] = live[i]
			continue
		}
		// The API server's answer is decoded into u.
		u := o.Object.DeepCopy()
		if err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
			client.FieldOwner(mapstatus.PublisherStatusManager), client.ForceOwnership); err != nil {
			return nil, fmt.Errorf("apply global %s %s/%s: %w", o.Kind, o.Object.GetNamespace(), o.Object.GetName(), err)
		}
		standing[i] = u.Object
	}
	return standing, nil
}

// removeAll deletes every route and backend labelled as the service's (the map's
// namespace and name), in any namespace, except the objects in keep, as readers list
// them. Routes go first, so that no route names a backend that is gone.
func (r *Reconciler) removeAll(ctx context.Context, readers publishedReaders, key types.NamespacedName, keep map[objectRef]bool) error {
	objs, err := listPublished(ctx, readers, key)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if keep[objectRef{gvk.GroupVersion().String(), gvk.Kind, obj.GetNamespace(), obj.GetName()}] {
			continue
		}
		if route, ok := obj.(*gatewayv1.HTTPRoute); ok {
			// Drained first (journal.go): a deletion held up by someone's finalizer
			// must not leave the route sending traffic.
			if err := r.drainRoute(ctx, route); err != nil {
				return err
			}
			continue
		}
		uid := obj.GetUID()
		if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("delete %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// listPublished lists the objects published for the map at key, as readers have them:
// routes first, then BackendTrafficPolicies, BackendTLSPolicies, EndpointSlices, and the
// backends of every kind, so that removeAll deletes what names a backend before the
// backend.
func listPublished(ctx context.Context, readers publishedReaders, key types.NamespacedName) ([]client.Object, error) {
	selector := client.MatchingLabels(publish.Labels(key.Namespace, key.Name))
	type kindList struct {
		reader client.Reader
		list   client.ObjectList
		kind   schema.GroupVersionKind
	}
	lists := []kindList{
		{readers.objects, &gatewayv1.HTTPRouteList{}, httpRouteGVK},
		{readers.trafficPolicies, unstructuredListOf(trafficPolicyGVK), trafficPolicyGVK},
		{readers.policies, &gatewayv1.BackendTLSPolicyList{}, tlsPolicyGVK},
		{readers.objects, &discoveryv1.EndpointSliceList{}, endpointSliceGVK},
	}
	for _, k := range publish.BackendKinds {
		lists = append(lists, kindList{readers.backendReader(k), k.NewList(), k.GVK})
	}
	var out []client.Object
	for _, l := range lists {
		if l.reader == nil {
			continue // The kind's CRD is not installed: there is nothing of that kind.
		}
		if err := l.reader.List(ctx, l.list, selector); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, fmt.Errorf("list published objects of %s: %w", key, err)
		}
		objs, err := listObjects(l.list, l.kind)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// publishedHosts reads, from the caches, the host that each cluster's own backend for the
// map at key names: the backend at the name and namespace the plan gives that cluster,
// labelled as the map's and the cluster's, and applied by the publisher's field manager.
// Only such a backend shows a host an earlier publication accepted; a Service or Backend
// elsewhere that carries the same labels proves nothing, since whoever can write objects
// in some namespace can label them.
func (r *Reconciler) publishedHosts(key types.NamespacedName) publishedHostsFunc {
	return func(ctx context.Context, clusters []string) (map[string]string, error) {
		namespace := key.Namespace
		if r.Endpoint.RouteNamespace != "" {
			namespace = r.Endpoint.RouteNamespace
		}
		gvk := publish.BackendKindOf(r.Endpoint.Backend()).GVK
		hosts := map[string]string{}
		for _, cluster := range clusters {
			name := types.NamespacedName{Namespace: namespace, Name: publish.BackendName(key.Namespace, key.Name, cluster)}
			obj, err := r.read(ctx, r.cached(), gvk, name)
			if err != nil {
				return nil, err
			}
			if obj == nil || !ownBackend(obj, key, cluster) {
				continue
			}
			if h := backendHosts(obj); len(h) == 1 {
				hosts[cluster] = observer.CanonicalHost(h[0])
			}
		}
		return hosts, nil
	}
}

// ownBackend says whether obj is the publisher's backend for cluster in the map at key:
// labelled so, and applied by the publisher's field manager.
func ownBackend(obj *unstructured.Unstructured, key types.NamespacedName, cluster string) bool {
	if !publish.OwnedBy(obj.GetLabels(), key.Namespace, key.Name) || obj.GetLabels()[publish.LabelCluster] != cluster {
		return false
	}
	for _, m := range obj.GetManagedFields() {
		if m.Manager == mapstatus.PublisherStatusManager && m.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}

// backendHosts are the hosts a published backend sends to: an ExternalName Service's
// name, an Envoy Gateway Backend's FQDN endpoints.
func backendHosts(obj *unstructured.Unstructured) []string {
	if name, ok, _ := unstructured.NestedString(obj.Object, "spec", "externalName"); ok {
		return []string{name}
	}
	endpoints, _, _ := unstructured.NestedSlice(obj.Object, "spec", "endpoints")
	var out []string
	for _, e := range endpoints {
		if m, ok := e.(map[string]any); ok {
			if h, ok, _ := unstructured.NestedString(m, "fqdn", "hostname"); ok {
				out = append(out, h)
			}
		}
	}
	return out
}

// listObjects returns a list's items as objects, each with its kind set: typed lists
// read from a cache carry none.
func listObjects(list client.ObjectList, kind schema.GroupVersionKind) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, it := range items {
		obj, ok := it.(client.Object)
		if !ok {
			return nil, fmt.Errorf("list item %T is not an object", it)
		}
		obj.GetObjectKind().SetGroupVersionKind(kind)
		out = append(out, obj)
	}
	return out, nil
}

// unstructuredOf is an empty object of kind gvk, for the kinds the operator has no Go
// type of.
func unstructuredOf(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// unstructuredListOf is an empty list of objects of kind gvk.
func unstructuredListOf(gvk schema.GroupVersionKind) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l
}
