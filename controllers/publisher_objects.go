package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
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

// envoyBackendGVK is Envoy Gateway's Backend, which the operator writes unstructured.
var envoyBackendGVK = schema.GroupVersionKind{Group: publish.EnvoyGatewayGroup, Version: publish.EnvoyGatewayVersion, Kind: "Backend"}

// preflight checks that every name the plan writes is free or already ours, and that no
// other route holds the hostname on the same Gateway. It reports whether the route
// exists already.
func (r *PublisherReconciler) preflight(ctx context.Context, plan publish.Plan) (bool, error) {
	route := &gatewayv1.HTTPRoute{}
	exists, err := r.claimable(ctx, "HTTPRoute", client.ObjectKeyFromObject(plan.Route), route, plan)
	if err != nil {
		return false, err
	}
	if err := r.hostnameFree(ctx, plan); err != nil {
		return false, err
	}
	for _, b := range plan.Backends {
		kind, obj := backendObject(b.Kind)
		if _, err := r.claimable(ctx, kind, types.NamespacedName{Namespace: b.Namespace, Name: b.Name}, obj, plan); err != nil {
			return false, err
		}
	}
	return exists, nil
}

// claimable reads the object at key: absent, or labelled as the plan's service's and not
// terminating, or it belongs to another source.
func (r *PublisherReconciler) claimable(ctx context.Context, kind string, key types.NamespacedName, obj client.Object, plan publish.Plan) (bool, error) {
	if err := r.Reader.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return false, nil
		}
		return false, fmt.Errorf("read global %s %s: %w", kind, key, err)
	}
	if !publish.OwnedBy(obj.GetLabels(), plan.Labels[publish.LabelServiceNamespace], plan.Labels[publish.LabelService]) {
		return true, rejectClaim("global %s %s belongs to another source", kind, key)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return true, rejectClaim("global %s %s is terminating", kind, key)
	}
	return true, nil
}

// hostnameFree refuses a hostname that another source's route already publishes on the
// plan's Gateway: two routes with one hostname would split its traffic.
func (r *PublisherReconciler) hostnameFree(ctx context.Context, plan publish.Plan) error {
	routes := &gatewayv1.HTTPRouteList{}
	if err := r.Client.List(ctx, routes); err != nil {
		return fmt.Errorf("list HTTPRoutes for Gateway hostname ownership: %w", err)
	}
	gwNamespace := plan.Namespace
	if plan.Gateway.Namespace != nil {
		gwNamespace = string(*plan.Gateway.Namespace)
	}
	for i := range routes.Items {
		other := &routes.Items[i]
		if publish.OwnedBy(other.Labels, plan.Labels[publish.LabelServiceNamespace], plan.Labels[publish.LabelService]) ||
			!slices.Contains(other.Spec.Hostnames, gatewayv1.Hostname(plan.Hostname)) {
			continue
		}
		for _, p := range other.Spec.ParentRefs {
			ns := other.Namespace
			if p.Namespace != nil {
				ns = string(*p.Namespace)
			}
			if (p.Group == nil || *p.Group == gatewayv1.GroupName) && (p.Kind == nil || *p.Kind == "Gateway") &&
				ns == gwNamespace && p.Name == plan.Gateway.Name {
				return rejectClaim("Gateway hostname %q on %s/%s is already published by HTTPRoute %s/%s",
					plan.Hostname, gwNamespace, plan.Gateway.Name, other.Namespace, other.Name)
			}
		}
	}
	return nil
}

// apply writes the backends (in name order), then the route, with server-side apply under
// the publisher's field manager: a backend exists before the route names it.
func (r *PublisherReconciler) apply(ctx context.Context, plan publish.Plan) error {
	backends := slices.Clone(plan.Backends)
	slices.SortFunc(backends, func(a, b publish.Backend) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range backends {
		var obj runtime.Object = b.Service()
		if b.Kind == config.BackendEnvoyGateway {
			obj = b.EnvoyBackend()
		}
		if err := r.applyObject(ctx, obj); err != nil {
			kind, _ := backendObject(b.Kind)
			return fmt.Errorf("apply global %s %s/%s: %w", kind, b.Namespace, b.Name, err)
		}
	}
	if err := r.applyObject(ctx, plan.Route); err != nil {
		return fmt.Errorf("apply global HTTPRoute %s/%s: %w", plan.Route.Namespace, plan.Route.Name, err)
	}
	return nil
}

func (r *PublisherReconciler) applyObject(ctx context.Context, obj runtime.Object) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		// Only what the publisher means to own: no status, no empty creation time.
		delete(m, "status")
		unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
		u = &unstructured.Unstructured{Object: m}
	}
	return r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u),
		client.FieldOwner(PublisherStatusManager), client.ForceOwnership)
}

// removeAll deletes every route and backend labelled as the service's (the map's
// namespace and name), in any namespace, except the objects named keep in keepNamespace.
// Routes go first, so that no route names a backend that is gone.
func (r *PublisherReconciler) removeAll(ctx context.Context, key types.NamespacedName, keepNamespace string, keep ...string) error {
	selector := client.MatchingLabels(publish.Labels(key.Namespace, key.Name))
	lists := []client.ObjectList{&gatewayv1.HTTPRouteList{}, &corev1.ServiceList{}, envoyBackendList()}
	for _, list := range lists {
		if err := r.Reader.List(ctx, list, selector); err != nil {
			if meta.IsNoMatchError(err) {
				continue // Envoy Gateway's CRD is not installed: there is nothing of that kind.
			}
			return fmt.Errorf("list published objects of %s: %w", key, err)
		}
		objs, err := listObjects(list)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if obj.GetNamespace() == keepNamespace && slices.Contains(keep, obj.GetName()) {
				continue
			}
			uid := obj.GetUID()
			if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("delete %s %s/%s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), err)
			}
		}
	}
	return nil
}

func envoyBackendList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(envoyBackendGVK.GroupVersion().WithKind("BackendList"))
	return l
}

// backendObject is the kind name (for messages) and an empty object of a backend kind.
func backendObject(kind config.BackendKind) (string, client.Object) {
	if kind == config.BackendEnvoyGateway {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(envoyBackendGVK)
		return "Envoy Gateway Backend", u
	}
	return "backend Service", &corev1.Service{}
}

// listObjects returns a list's items as objects.
func listObjects(list client.ObjectList) ([]client.Object, error) {
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
		out = append(out, obj)
	}
	return out, nil
}
