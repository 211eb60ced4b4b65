package routing

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/controllers/probing"
)

// probeNoticeHandler enqueues the service of a prober notice at its priority (see package
// priority): a gate or a lift goes ahead of everything, then a pass that ended an ungated
// home's run of failures (a new leader counts on from the map, see probing.ProbeNotice.Counted),
// and a refresh behind everything else (a service's own changes, its copies on the members,
// capacity readings, its map being edited); a refusal of new settings, which comes from a
// change to the service, never waits behind refreshes either.
func probeNoticeHandler(lane *priority.Lane) handler.TypedEventHandler[probing.ProbeNotice, reconcile.Request] {
	return handler.TypedFuncs[probing.ProbeNotice, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[probing.ProbeNotice], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			p := priority.Refresh
			switch {
			case e.Object.Transition:
				p = priority.Transition
			case e.Object.Counted:
				p = priority.Count
			}
			lane.Add(q, reconcile.Request{NamespacedName: e.Object.Service}, p)
		},
	}
}

// pendingRunsFirst passes the TrafficMap events on to next and, for a map in the initial
// list (the manager just started, or just won the Lease) that records a run in progress
// on an entry (failures short of a gate, or passes while gated), raises its service to
// priority.Count. Such a map's next probe may gate or lift a home, and the old leader may
// have decided that already and died before writing it: the new leader reads and probes it
// ahead of the hundreds of maps with nothing pending, whose rounds come as they come.
func pendingRunsFirst(lane *priority.Lane, next handler.EventHandler) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			next.Create(ctx, e, q)
			tm, ok := e.Object.(*omev1beta1.TrafficMap)
			if !ok || !e.IsInInitialList || !runInProgress(tm) {
				return
			}
			if owner := metav1.GetControllerOf(tm); owner != nil && owner.Kind == "InferenceService" {
				lane.Add(q, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: tm.Namespace, Name: owner.Name}}, priority.Count)
			}
		},
		UpdateFunc:  next.Update,
		DeleteFunc:  next.Delete,
		GenericFunc: next.Generic,
	}
}

// runInProgress says whether an entry of the map records failures that have not gated it
// yet, or a gated home whose last probe passed: the records a next probe may turn into a
// gate or a lift.
func runInProgress(tm *omev1beta1.TrafficMap) bool {
	for _, e := range tm.Spec.Entries {
		p := e.Probe
		if p == nil {
			continue
		}
		if (!p.Gated && p.ConsecutiveFailures > 0) || (p.Gated && p.Result == omev1beta1.ProbePassing) {
			return true
		}
	}
	return false
}
