package publisher

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/pkg/retry"
)

// EventRouteRetryDropped is sent when the API server dropped the retry of a route the publisher
// wrote, because its HTTPRoute CRD is Gateway API's standard channel, which has no retry
// before v1.7. The gateway keys on the backend Services still apply it on HAProxy
// Ingress; gateways that read only the route retry nothing.
const EventRouteRetryDropped = "RouteRetryDropped"

// retryPolicy is the retry and timeouts the service's route carries: the service's own
// blocks over the installation's. The routing reconciler has checked the service's (a bad
// one freezes the map, and the publisher keeps its route), and the manager the
// installation's at startup.
func (r *Reconciler) retryPolicy(isvc *omev1beta1.InferenceService) retry.Policy {
	own, ownTimeouts := retry.Service(isvc)
	return retry.Resolve(own, r.Publisher.Retry, ownTimeouts, r.Publisher.Timeouts)
}

// withRetry writes the service's retry into the plan. Once the API server has been seen
// to drop a route's retry, routes are written without it until the manager restarts
// (after the CRD is upgraded): a field the server drops would make every published route
// differ from its plan, and be written again every round. A budget reaches Envoy Gateway
// only where the control plane serves BackendTrafficPolicy.
func (r *Reconciler) withRetry(plan publish.Plan, isvc *omev1beta1.InferenceService) publish.Plan {
	return plan.WithRetry(r.retryPolicy(isvc), publish.RetryAPIs{
		RouteRetry:    !r.routeRetryDropped.Load(),
		TrafficPolicy: r.TrafficPolicies != nil,
	})
}

// noticeDroppedRetry compares the route as the API server stored it with the plan's: a
// retry the plan has and the stored route lacks was dropped by the CRD's schema. It says
// so once, in a Warning event on the map and the log, and stops writing the field.
func (r *Reconciler) noticeDroppedRetry(ctx context.Context, tm *omev1beta1.TrafficMap, plan publish.Plan, stored map[string]any) {
	if plan.Route == nil || len(plan.Route.Spec.Rules) == 0 || plan.Route.Spec.Rules[0].Retry == nil || stored == nil {
		return
	}
	rules, _, _ := unstructured.NestedSlice(stored, "spec", "rules")
	if len(rules) > 0 {
		if rule, ok := rules[0].(map[string]any); ok && rule["retry"] != nil {
			return
		}
	}
	if r.routeRetryDropped.Swap(true) {
		return
	}
	const msg = "the API server dropped the route's retry: its HTTPRoute CRD is Gateway API's standard channel, which has no retry before v1.7; " +
		"routes are written without it until the manager restarts (install the experimental HTTPRoute CRD, or v1.7 or later); " +
		"HAProxy Ingress still applies the retry from the backend Services"
	ctrl.LoggerFrom(ctx).Info("Route retry dropped by the HTTPRoute CRD", "route", plan.Route.Namespace+"/"+plan.Route.Name)
	r.Recorder.Eventf(tm, plan.Route, corev1.EventTypeWarning, EventRouteRetryDropped, actionPublish, "%s", msg)
}
