package publisher

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// The publisher's queue is controller-runtime's priority queue, like the routing
// controller's. Each probe round moves every map's generation, and the publisher must
// follow it (observedTrafficMapGeneration and its conditions' observedGeneration), so at
// fleet size it always has a queue of maps whose only news is a generation. A map whose
// route changes (a gate, a lift, a drain, a capacity cap, a new endpoint) goes ahead of
// them all; the generation-only ones go last.

// mapEventHandler enqueues a TrafficMap's events at their priority.
func mapEventHandler(lane *priority.Lane) handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !published(e.Object) {
				priority.Add(q, requestFor(e.Object), 0)
				return
			}
			// TypedFuncs has lowered the priority of the initial list's events: a manager
			// that starts finds published maps with nothing to do.
			q.Add(requestFor(e.Object))
		},
		UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			lane.Add(q, requestFor(e.ObjectNew), mapUpdatePriority(e.ObjectOld, e.ObjectNew))
		},
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.Add(requestFor(e.Object))
		},
	}
}

func requestFor(obj client.Object) reconcile.Request {
	return reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

// published says whether the map's status says it is published.
func published(obj client.Object) bool {
	tm, ok := obj.(*omev1beta1.TrafficMap)
	return ok && tm.Status.Published
}

// mapUpdatePriority is how urgent a map's update is for the publisher: a change of what
// the route carries first, a change of only the generation of a published map last,
// anything else (a map not published yet, a deletion, a finalizer, an annotation)
// between.
func mapUpdatePriority(oldObj, newObj client.Object) int {
	before, ok1 := oldObj.(*omev1beta1.TrafficMap)
	after, ok2 := newObj.(*omev1beta1.TrafficMap)
	switch {
	case !ok1 || !ok2:
		return 0
	case trafficmap.RouteChanged(before.Spec.Entries, after.Spec.Entries):
		return priority.Transition
	case after.Status.Published && before.Generation != after.Generation && before.DeletionTimestamp.Equal(after.DeletionTimestamp) &&
		len(before.Finalizers) == len(after.Finalizers):
		return priority.Refresh
	}
	return 0
}
