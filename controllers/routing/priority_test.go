package routing

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
)

// A gate or a lift is worked on before the refreshes already queued, including one for
// the very service, which it raises.
func TestProbeNoticesQueueTransitionsFirst(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("routing-priority-test")
	defer q.ShutDown()
	h := probeNoticeHandler(nil)
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

// After a start or a takeover, the maps whose records a next probe may turn into a gate or a
// lift are worked on before the rest of the initial list.
func TestPendingRunsFirstAfterATakeover(t *testing.T) {
	q := priorityqueue.New[reconcile.Request]("routing-takeover-test")
	defer q.ShutDown()
	h := pendingRunsFirst(nil, &handler.EnqueueRequestForObject{})
	low := handler.LowPriority
	mapOf := func(name string, probe *omev1beta1.TrafficMapProbe) *omev1beta1.TrafficMap {
		tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "ome.io/v1beta1", Kind: "InferenceService", Name: name,
				Controller: ptr.To(true)}}},
			Spec: omev1beta1.TrafficMapSpec{Entries: []omev1beta1.TrafficMapEntry{{Cluster: "worker-a", Probe: probe}}}}
		// The initial list of the services themselves comes first, at the lowest priority.
		q.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}})
		return tm
	}
	for _, c := range []struct {
		tm      *omev1beta1.TrafficMap
		initial bool
	}{
		{mapOf("quiet", &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbePassing}), true},
		{mapOf("failing", &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing, ConsecutiveFailures: 2}), true},
		{mapOf("gated-quiet", &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing, Gated: true, ConsecutiveFailures: 5}), true},
		{mapOf("lifting", &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbePassing, Gated: true}), true},
		{mapOf("unprobed", nil), true},
		// A map created later is an ordinary event.
		{mapOf("created-later", &omev1beta1.TrafficMapProbe{Result: omev1beta1.ProbeFailing, ConsecutiveFailures: 1}), false},
	} {
		h.Create(context.Background(), event.CreateEvent{Object: c.tm, IsInInitialList: c.initial}, q)
	}
	var first []string
	for range 2 {
		req, _, _ := q.GetWithPriority()
		first = append(first, req.Name)
		q.Done(req)
	}
	slices.Sort(first)
	if !slices.Equal(first, []string{"failing", "lifting"}) {
		t.Fatalf("first out of the queue: %v, want failing and lifting", first)
	}
}
