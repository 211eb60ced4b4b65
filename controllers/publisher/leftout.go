package publisher

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
	"github.com/ome-routing/operator/pkg/publish"
)

// noRouteReasons are the Published reasons of an outcome with no route planned for the
// map's current version: nothing can be left out of a route that is not there, so
// RouteComplete and status.leftOutOfRoute are removed.
var noRouteReasons = map[omev1beta1.TrafficMapConditionReason]bool{
	omev1beta1.TrafficMapReasonWithdrawn:      true,
	omev1beta1.TrafficMapReasonUnpublished:    true,
	omev1beta1.TrafficMapReasonFinalizing:     true,
	omev1beta1.TrafficMapReasonInvalidOwner:   true,
	omev1beta1.TrafficMapReasonInvalidOptions: true,
}

// withRouteComplete adds the RouteComplete condition to conditions, and gives the value
// of status.leftOutOfRoute (nil when empty, which drops the field): what the publish
// guard last left out of the map's route. An outcome without a route has neither.
func (r *Reconciler) withRouteComplete(key types.NamespacedName, reason omev1beta1.TrafficMapConditionReason, generation int64,
	conditions []metav1.Condition) ([]metav1.Condition, any) {
	if noRouteReasons[reason] {
		return conditions, nil
	}
	leftOut := r.guard.leftOut(key)
	conditions = append(conditions, publish.RouteCompleteCondition(leftOut, generation))
	return conditions, mapstatus.ListField(leftOut)
}
