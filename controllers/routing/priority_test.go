package routing

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ome-routing/operator/controllers/probing"
)

// A gate or a lift is worked on before the refreshes already queued, including one for
// the very service, which it raises.
func TestProbeNoticesQueueTransitionsFirst(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("routing-priority-test")
	defer q.ShutDown()
	h := probeNoticeHandler()
	send := func(name string, transition, counted bool) {
		h.Generic(context.Background(), event.TypedGenericEvent[probing.ProbeNotice]{Object: probing.ProbeNotice{
			Service: types.NamespacedName{Namespace: "ns", Name: name}, Transition: transition, Counted: counted}}, q)
	}
	notice := func(name string, transition bool) { send(name, transition, false) }
	notice("refreshed-first", false)
	notice("refreshed-then-gated", false)
	// What the other watches add (a service edited, say, which may be refused) comes at
	// the queue's default priority.
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "edited"}})
	// A changed failure count goes behind gates, ahead of the rest.
	send("counted", false, true)
	notice("gated", true)
	notice("refreshed-then-gated", true)
	// A refresh never lowers a queued transition.
	notice("gated", false)

	want := []string{"gated", "refreshed-then-gated", "counted", "edited", "refreshed-first"}
	for i, name := range want {
		req, _, _ := q.GetWithPriority()
		if req.Name != name {
			t.Fatalf("item %d out of the queue is %s, want %s (order %v)", i, req.Name, name, want)
		}
		q.Done(req)
	}
}
