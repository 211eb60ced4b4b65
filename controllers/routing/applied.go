package routing

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/pkg/applied"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// This file owns TrafficApplied: whether the global gateway's own counters show that it
// follows the route. The routing reconciler is its writer because it holds the traffic
// signal's readings; the publisher's word that the route carries a generation
// (Published True, observedTrafficMapGeneration) is what it reads of the route. Which
// clusters are held at weight 0, and since when, lives in memory: a new leader starts each
// withdrawal afresh, at the time it first sees it, so its figures are never shorter than
// the truth.

// appliedTracker keeps each map's withdrawals (pkg/applied).
type appliedTracker struct {
	mu   sync.Mutex
	maps map[types.NamespacedName][]applied.Withdrawal
}

// clusters are the clusters a map holds at weight 0, whose traffic the signal reads.
func (t *appliedTracker) clusters(key types.NamespacedName) map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]bool{}
	for _, w := range t.maps[key] {
		out[w.Cluster] = true
	}
	return out
}

// update brings a map's withdrawals in line with the map as written: a cluster at weight 0
// in the route is tracked from now, one given weight again or gone is dropped, and one
// whose route generation the publisher has now published is marked written. It returns
// the withdrawals, and those just marked written.
func (t *appliedTracker) update(key types.NamespacedName, tm *omev1beta1.TrafficMap, routeGeneration int64,
	now time.Time) (ws, written []applied.Withdrawal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	known := map[string]applied.Withdrawal{}
	for _, w := range t.maps[key] {
		known[w.Cluster] = w
	}
	leftOut := map[string]bool{}
	for _, l := range tm.Status.LeftOutOfRoute {
		leftOut[l.Cluster] = true
	}
	published := meta.IsStatusConditionTrue(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
	for _, e := range tm.Spec.Entries {
		// A cluster the route leaves out gets nothing through it, whatever its weight.
		if e.Weight != 0 || leftOut[e.Cluster] {
			continue
		}
		w, ok := known[e.Cluster]
		if !ok {
			w = applied.Withdrawal{Cluster: e.Cluster, Decided: now, RouteGeneration: routeGeneration}
		}
		if w.Written.IsZero() && published && tm.Status.ObservedTrafficMapGeneration >= w.RouteGeneration {
			w.Written = now
			written = append(written, w)
		}
		ws = append(ws, w)
	}
	t.store(key, ws)
	return ws, written
}

// store keeps a map's withdrawals; the caller holds the lock.
func (t *appliedTracker) store(key types.NamespacedName, ws []applied.Withdrawal) {
	if t.maps == nil {
		t.maps = map[types.NamespacedName][]applied.Withdrawal{}
	}
	if len(ws) == 0 {
		delete(t.maps, key)
		return
	}
	t.maps[key] = ws
}

// keep stores the withdrawals as a judgement left them.
func (t *appliedTracker) keep(key types.NamespacedName, ws []applied.Withdrawal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.store(key, ws)
}

func (t *appliedTracker) forget(key types.NamespacedName) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.maps, key)
}

// judgeApplied decides TrafficApplied for the map as written, observes the stages of each
// withdrawal that moved on, and sets the gauge of clusters at weight 0 still served. It
// asks for a reconcile when the next reading that can settle a withdrawal is due.
func (r *Reconciler) judgeApplied(_ context.Context, s *routingScope) phase.Outcome {
	now := time.Now()
	ws, written := r.applied.update(s.key, s.written, trafficmap.RouteGeneration(s.current, s.written), now)
	for _, w := range written {
		observeTrafficApplied(stageRouteWritten, w.Written.Sub(w.Decided))
	}
	v, ws := applied.Judge(ws, s.readings, applied.Signal{Configured: r.Signal.Configured(), Interval: r.Signal.Interval()}, now)
	r.applied.keep(s.key, ws)
	for _, w := range v.Moved {
		observeTrafficApplied(stageTrafficMoved, w.Moved.Sub(w.Decided))
	}
	setServedAtZero(s.key, len(v.Served))
	s.trafficApplied = metav1.Condition{Type: omev1beta1.TrafficMapTrafficApplied, Status: v.Status, Reason: string(v.Reason),
		Message: v.Message, ObservedGeneration: s.written.Generation}
	if !v.Next.IsZero() {
		// Just after the reading is due, so that it has arrived.
		s.nextExpiry = earliest(s.nextExpiry, v.Next.Add(time.Second))
	}
	return phase.Proceed
}
