package routing

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ome-routing/operator/controllers/internal/priority"
	"github.com/ome-routing/operator/controllers/probing"
)

// probeNoticeHandler enqueues the service of a prober notice at its priority (see package
// priority): a gate or a lift goes ahead of everything, then a pass that ended an ungated
// home's run of failures (a new leader counts on from the map, see probing.ProbeNotice.Counted),
// and a refresh behind everything else (a service's own changes, its copies on the members,
// capacity readings, its map being edited); a refusal of new settings, which comes from a
// change to the service, never waits behind refreshes either.
func probeNoticeHandler() handler.TypedEventHandler[probing.ProbeNotice, reconcile.Request] {
	return handler.TypedFuncs[probing.ProbeNotice, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[probing.ProbeNotice], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			p := priority.Refresh
			switch {
			case e.Object.Transition:
				p = priority.Transition
			case e.Object.Counted:
				p = priority.Count
			}
			priority.Add(q, reconcile.Request{NamespacedName: e.Object.Service}, p)
		},
	}
}
