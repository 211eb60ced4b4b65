package publisher

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

// A template hostname wins over an annotated one: the installation's globalHostTemplate
// gives each service its own hostname, and another namespace's ome.io/global-host
// annotation must not take it from it by publishing first. A service's template hostname
// is its own whether or not it is published yet, so an annotation that names it is
// refused (GlobalHostRefused) and its route removed, and the service it belongs to waits
// for that instead of being refused as ClaimRejected.

// templateHostIndex indexes the cached InferenceServices without an ome.io/global-host
// annotation by the hostname the template gives them.
const templateHostIndex = "ome.io/template-host"

// templateHosts is the index function of templateHostIndex.
func (r *Reconciler) templateHosts(obj client.Object) []string {
	if obj.GetAnnotations()[publish.GlobalHostAnnotation] != "" {
		return nil
	}
	host, err := publish.TemplateHostname(obj.GetNamespace(), obj.GetName(), r.Endpoint.GlobalHostTemplate)
	if err != nil || host == "" {
		return nil // such a service's own publication says why
	}
	return []string{host}
}

// templateHostFree refuses an annotated hostname that the template gives another service.
func (r *Reconciler) templateHostFree(ctx context.Context, key types.NamespacedName, host string) error {
	owner, err := r.templateOwner(ctx, key, host)
	if err != nil || owner == nil {
		return err
	}
	return &publish.GlobalHostRefused{Msg: fmt.Sprintf("global hostname: the %s annotation %q is refused: it is the hostname endpoint.globalHostTemplate gives InferenceService %s, and a template hostname wins over an annotation",
		publish.GlobalHostAnnotation, host, owner)}
}

// templateOwner is the service other than key whose template hostname host is, nil when
// there is none.
func (r *Reconciler) templateOwner(ctx context.Context, key types.NamespacedName, host string) (*types.NamespacedName, error) {
	list := &omev1beta1.InferenceServiceList{}
	if err := r.Client.List(ctx, list, client.MatchingFields{templateHostIndex: host}); err != nil {
		return nil, fmt.Errorf("list InferenceServices by template hostname: %w", err)
	}
	for i := range list.Items {
		if k := client.ObjectKeyFromObject(&list.Items[i]); k != key {
			return &k, nil
		}
	}
	return nil, nil
}

// heldByAnnotation says whether the map at holder publishes host because its service's
// annotation names it: a holder that gives way to a template hostname.
func (r *Reconciler) heldByAnnotation(ctx context.Context, holder types.NamespacedName, host string) bool {
	isvc := &omev1beta1.InferenceService{}
	if err := r.Client.Get(ctx, holder, isvc); err != nil {
		return false
	}
	return isvc.Annotations[publish.GlobalHostAnnotation] == host
}

// annotatedHolderRetry is how soon a service whose template hostname an annotated route
// still holds tries again: that route's map is refused on its own reconcile, queued by
// the same event.
const annotatedHolderRetry = time.Second

// annotatedHolder is a template hostname that an annotated route still holds: the
// publication is tried again after annotatedHolderRetry, until that route is gone.
type annotatedHolder struct{ msg string }

func (e *annotatedHolder) Error() string { return e.msg }

func waitForAnnotated(host string, route types.NamespacedName) error {
	return &annotatedHolder{msg: fmt.Sprintf("Gateway hostname %q is still published by HTTPRoute %s, whose %s annotation names it; a template hostname wins, and that route is being removed",
		host, route, publish.GlobalHostAnnotation)}
}

// mapsHoldingTemplateHost are the maps whose routes publish the hostname that the
// template gives the service obj: each must give it up if its hostname is annotated.
func (r *Reconciler) mapsHoldingTemplateHost(ctx context.Context, obj client.Object) []ctrl.Request {
	hosts := r.templateHosts(obj)
	if len(hosts) == 0 {
		return nil
	}
	routes := &gatewayv1.HTTPRouteList{}
	if err := r.Client.List(ctx, routes, client.MatchingFields{routeHostnameIndex: hosts[0]}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "Cannot list the routes with a service's template hostname", "hostname", hosts[0])
		return nil
	}
	var out []ctrl.Request
	for i := range routes.Items {
		out = append(out, mapOfPublished(ctx, &routes.Items[i])...)
	}
	return out
}
