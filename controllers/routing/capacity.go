package routing

import (
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// forgetCapacity stops polling a service and drops its fallback series.
func (r *Reconciler) forgetCapacity(key types.NamespacedName) {
	r.Poller.Forget(key)
	forgetCapacityMetrics(key)
}

func serviceCapacity(isvc *omev1beta1.InferenceService) *omev1beta1.RoutingCapacitySpec {
	if isvc.Spec.Routing == nil {
		return nil
	}
	return isvc.Spec.Routing.Capacity
}
