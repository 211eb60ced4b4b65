package publisher

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
)

// This file owns status.routeParents: what the gateways themselves report on the route
// (its status.parents), read back from the route as it stands after each publication and
// shown beside the map, never trusted alone (pkg/publish/routeparents.go says why). The
// route watch brings every change a gateway makes to its report.

// routeParents reads the gateways' reports from the route as it stands (the cache's copy,
// or the API server's answer to the publisher's write, whose generation no report has
// seen yet).
func routeParents(ctx context.Context, route map[string]any) []omev1beta1.RouteParentStatus {
	if route == nil {
		return nil
	}
	typed := &gatewayv1.HTTPRoute{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(route, typed); err != nil {
		// A route the API server took always converts; say so rather than show nothing.
		ctrl.LoggerFrom(ctx).Error(err, "Cannot read the route's status.parents")
		return nil
	}
	return publish.RouteParents(typed)
}

// keptParents are the reports as the map shows them, for an outcome that did not read the
// route again; none once no route stands.
func keptParents(tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason, ref *omev1beta1.TrafficMapGatewayRef) []omev1beta1.RouteParentStatus {
	if ref == nil || noRouteReasons[reason] {
		return nil
	}
	return tm.Status.RouteParents
}
