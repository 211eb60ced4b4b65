// Package priority holds the queue priorities the routing controller and the publisher
// share, and the one way both add a request at a priority. It writes nothing.
package priority

import (
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The routing controller's and the publisher's queues are controller-runtime's priority
// queue (its default). At steady state nearly every reconcile only moves lastProbeTime;
// with a few hundred maps and a short period those refreshes keep every worker busy, and a
// gate queued behind them would reach the map a second or two late. So a change that
// gates or lifts a home goes ahead of everything, and a refresh behind everything else.
const (
	// Transition is a change that gated or lifted a home.
	Transition = 100
	// Count is a probe pass that ended a run of failures, with no lift.
	Count = 50
	// Refresh is a change that moves no weight; it is the priority controller-runtime
	// gives to a resync.
	Refresh = handler.LowPriority
)

// Add adds req at priority; a queue without priorities just adds it. A request already
// queued at a lower priority is raised, never lowered.
func Add(q workqueue.TypedRateLimitingInterface[reconcile.Request], req reconcile.Request, priority int) {
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &priority}, req)
		return
	}
	q.Add(req)
}
