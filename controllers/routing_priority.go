package controllers

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The routing controller's queue is controller-runtime's priority queue (its default). At
// steady state nearly every reconcile only moves lastProbeTime; with a few hundred maps
// and a short period those refreshes keep every worker busy, and a gate queued behind
// them would reach the map a second or two late. So the prober's notices carry a
// priority: a gate or a lift goes ahead of everything, then a pass that ended an ungated
// home's run of failures (a new leader counts on from the map, see ProbeNotice.Counted), and a
// refresh behind everything else (a service's own changes, its copies on the members,
// capacity readings, its map being edited), and a refusal of new settings, which comes
// from a change to the service, never waits behind refreshes either.
const (
	// priorityTransition is a notice that gated or lifted a home.
	priorityTransition = 100
	// priorityCount is a notice of a pass that ended a run of failures, with no lift.
	priorityCount = 50
	// priorityRefresh is a notice of results that change no weight; it is the priority
	// controller-runtime gives to a resync.
	priorityRefresh = handler.LowPriority
)

// probeNoticeHandler enqueues the service of a prober notice at its priority.
func probeNoticeHandler() handler.TypedEventHandler[ProbeNotice, reconcile.Request] {
	return handler.TypedFuncs[ProbeNotice, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[ProbeNotice], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			priority := priorityRefresh
			switch {
			case e.Object.Transition:
				priority = priorityTransition
			case e.Object.Counted:
				priority = priorityCount
			}
			addWithPriority(q, reconcile.Request{NamespacedName: e.Object.Service}, priority)
		},
	}
}

// addWithPriority adds req at priority; a queue without priorities just adds it. A request
// already queued at a lower priority is raised, never lowered.
func addWithPriority(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request, priority int) {
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &priority}, req)
		return
	}
	q.Add(req)
}
