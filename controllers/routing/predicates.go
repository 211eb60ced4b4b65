package routing

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/mapstatus"
)

// routingInputChanged passes the updates of a map that the routing reconciler has to look
// at: its spec (a hand edit is put back), its metadata, the routing reconciler's own
// share of the status, and the publisher's word that the route caught up with the map
// (TrafficApplied times from it). The publisher's other writes (its status fields and
// conditions, its finalizer) change none of these, and at fleet size they are one write per map and probe
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
		before.Status.NoTraffic != after.Status.NoTraffic ||
		routeCaughtUp(before, after) ||
		// Whether a route carries the map at all goes into the serving states.
		meta.IsStatusConditionTrue(before.Status.Conditions, omev1beta1.TrafficMapPublished) !=
			meta.IsStatusConditionTrue(after.Status.Conditions, omev1beta1.TrafficMapPublished) {
		return true
	}
	for _, t := range mapstatus.RoutingConditionTypes {
		if !equality.Semantic.DeepEqual(meta.FindStatusCondition(before.Status.Conditions, t), meta.FindStatusCondition(after.Status.Conditions, t)) {
			return true
		}
	}
	return false
}

// routeCaughtUp says whether the publisher's write says, for the first time, that the
// route carries the map's current weights (or, for a map with an entry at weight 0, that
// Published turned True): the moment a weight 0
// counts as written, for TrafficApplied. It passes one update per change of the route, not
// one per probe round.
func routeCaughtUp(before, after *omev1beta1.TrafficMap) bool {
	if !meta.IsStatusConditionTrue(before.Status.Conditions, omev1beta1.TrafficMapPublished) &&
		meta.IsStatusConditionTrue(after.Status.Conditions, omev1beta1.TrafficMapPublished) &&
		slices.ContainsFunc(after.Spec.Entries, func(e omev1beta1.TrafficMapEntry) bool { return e.Weight == 0 }) {
		return true
	}
	return before.Status.ObservedTrafficMapGeneration < after.Status.RouteGeneration &&
		after.Status.ObservedTrafficMapGeneration >= after.Status.RouteGeneration
}
