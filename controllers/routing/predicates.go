package routing

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
)

// routingInputChanged passes the updates of a map that the routing reconciler has to look
// at: its spec (a hand edit is put back), its metadata, and the routing reconciler's own
// share of the status. The publisher's writes (its status fields and conditions, its
// finalizer) change none of these, and at fleet size they are one write per map and probe
// round: each would cost a reconcile that has nothing to do.
type routingInputChanged struct{ predicate.Funcs }

func (routingInputChanged) Update(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*omev1beta1.TrafficMap)
	after, ok2 := e.ObjectNew.(*omev1beta1.TrafficMap)
	if !ok1 || !ok2 {
		return true
	}
	if before.Generation != after.Generation ||
		!before.DeletionTimestamp.Equal(after.DeletionTimestamp) ||
		!equality.Semantic.DeepEqual(before.OwnerReferences, after.OwnerReferences) ||
		!equality.Semantic.DeepEqual(before.Labels, after.Labels) ||
		!equality.Semantic.DeepEqual(before.Annotations, after.Annotations) ||
		before.Status.SourceUID != after.Status.SourceUID ||
		!equality.Semantic.DeepEqual(before.Status.Homes, after.Status.Homes) ||
		!equality.Semantic.DeepEqual(before.Status.GatedHomes, after.Status.GatedHomes) ||
		!equality.Semantic.DeepEqual(before.Status.ExcludedClusters, after.Status.ExcludedClusters) ||
		// The publisher's word on what its route leaves out goes into noTraffic.
		!equality.Semantic.DeepEqual(before.Status.LeftOutOfRoute, after.Status.LeftOutOfRoute) ||
		before.Status.NoTraffic != after.Status.NoTraffic {
		return true
	}
	for _, t := range mapstatus.RoutingConditionTypes {
		if !equality.Semantic.DeepEqual(meta.FindStatusCondition(before.Status.Conditions, t), meta.FindStatusCondition(after.Status.Conditions, t)) {
			return true
		}
	}
	return false
}
