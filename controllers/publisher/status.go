package publisher

// status.go is the publisher's one way to its share of a map's status: every outcome,
// published or failed, is written by record or recordConditions here, and fail is the
// one place a failure is logged, written and told in an event.

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/publish"
)

// resync looks at the map again after the resync interval, because what the publisher
// wrote can drift in ways no watch reports (a hostname freed by another route).
func (r *Reconciler) resync(err error) (ctrl.Result, error) {
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.Publisher.Resync()}, nil
}

// fail records a failed publication. A transient failure (a read or write that may work
// next time) is returned, for a retry with backoff; a terminal one waits for a change to
// the map or its service, or for the resync.
func (r *Reconciler) fail(ctx context.Context, tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason, cause error, transient bool) (ctrl.Result, error) {
	ctrl.LoggerFrom(ctx).Error(cause, "TrafficMap publisher reconciliation failed", "trafficMap", klog.KObj(tm), "reason", reason)
	prev := publishedReason(tm)
	if err := r.record(ctx, tm, reason, tm.Status.GatewayRef); err != nil {
		return ctrl.Result{}, errors.Join(cause, err)
	}
	if prev != reason {
		r.Recorder.Eventf(tm, nil, corev1.EventTypeWarning, string(reason), actionPublish, "%s", cause.Error())
	}
	if transient {
		return ctrl.Result{}, cause
	}
	return ctrl.Result{RequeueAfter: r.Publisher.Resync()}, nil
}

// record applies the publisher's share of the map's status for the outcome reason, when
// it changed. On success ref is the route; otherwise published turns false and ref is
// what stays (the last published route while it still stands, nothing once it is
// removed).
func (r *Reconciler) record(ctx context.Context, tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason, ref *omev1beta1.TrafficMapGatewayRef) error {
	return r.recordConditions(ctx, tm, reason, ref, publish.Conditions(reason, tm.Generation), keptParents(tm, reason, ref))
}

// recordConditions is record with the conditions given, for an outcome whose message is
// its own (see hold), and the gateways' reports on the route (routeparents.go).
func (r *Reconciler) recordConditions(ctx context.Context, tm *omev1beta1.TrafficMap, reason omev1beta1.TrafficMapConditionReason, ref *omev1beta1.TrafficMapGatewayRef,
	conditions []metav1.Condition, parents []omev1beta1.RouteParentStatus) error {
	journal, err := journalField(tm)
	if err != nil {
		return err
	}
	fields := map[string]any{"published": reason == omev1beta1.TrafficMapReasonPublished, "gatewayRef": nil, "routeParents": mapstatus.ListField(parents),
		"publisher": journal}
	if ref != nil {
		fields["gatewayRef"] = map[string]any{"group": ref.Group, "kind": ref.Kind, "name": ref.Name, "namespace": ref.Namespace}
	}
	conditions, fields["leftOutOfRoute"] = r.withRouteComplete(client.ObjectKeyFromObject(tm), reason, tm.Generation, conditions)
	observed := tm.Status.ObservedTrafficMapGeneration
	if reason == omev1beta1.TrafficMapReasonPublished || reason == omev1beta1.TrafficMapReasonNoBackends {
		// The route carries this generation, empty or not.
		observed = tm.Generation
	}
	fields["observedTrafficMapGeneration"] = observed
	if observed == 0 {
		fields["observedTrafficMapGeneration"] = nil
	}
	setPublicationFallback(client.ObjectKeyFromObject(tm), reason == omev1beta1.TrafficMapReasonLastPositiveRetained)
	_, err = mapstatus.Apply(ctx, r.Client, tm, mapstatus.Share{
		Manager:    mapstatus.PublisherStatusManager,
		Owned:      []string{omev1beta1.TrafficMapPublished, omev1beta1.TrafficMapPublicationFallback, omev1beta1.TrafficMapRouteComplete},
		Conditions: conditions,
		Fields:     fields,
	}, r.clock())
	return err
}
