package routing

import (
	"context"
	"maps"
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

// appliedTracker keeps each map's withdrawals and its split check (pkg/applied).
type appliedTracker struct {
	mu   sync.Mutex
	maps map[types.NamespacedName]trackedMap
}

// trackedMap is what one map's TrafficApplied follows.
type trackedMap struct {
	withdrawals []applied.Withdrawal
	split       *applied.Split
}

// clusters are the clusters whose traffic the signal reads for TrafficApplied: those a
// map holds at weight 0, and while its split check is open, those its route weighs.
func (t *appliedTracker) clusters(key types.NamespacedName) map[string]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.maps[key]
	out := map[string]bool{}
	for _, w := range m.withdrawals {
		out[w.Cluster] = true
	}
	if m.split != nil && !m.split.Settled() {
		for c := range m.split.Weights {
			out[c] = true
		}
	}
	return out
}

// update brings a map's withdrawals and split check in line with the map as written: a
// cluster at weight 0 in the route is tracked from now, one given weight again or gone is
// dropped, and one whose route generation the publisher has now published is marked
// written; a change of the route's weights opens a new split check. It returns what it
// tracks now, and the withdrawals just marked written.
func (t *appliedTracker) update(key types.NamespacedName, tm *omev1beta1.TrafficMap, routeGeneration int64,
	now time.Time) (m trackedMap, written []applied.Withdrawal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	prev := t.maps[key]
	known := map[string]applied.Withdrawal{}
	for _, w := range prev.withdrawals {
		known[w.Cluster] = w
	}
	leftOut := map[string]bool{}
	for _, l := range tm.Status.LeftOutOfRoute {
		leftOut[l.Cluster] = true
	}
	published := meta.IsStatusConditionTrue(tm.Status.Conditions, omev1beta1.TrafficMapPublished)
	carries := func(generation int64) bool {
		return published && tm.Status.ObservedTrafficMapGeneration >= generation
	}
	weights := map[string]int32{}
	for _, e := range tm.Spec.Entries {
		// A cluster the route leaves out gets nothing through it, whatever its weight.
		if leftOut[e.Cluster] {
			continue
		}
		if e.Weight != 0 {
			weights[e.Cluster] = e.Weight
			continue
		}
		w, ok := known[e.Cluster]
		if !ok {
			w = applied.Withdrawal{Cluster: e.Cluster, Decided: now, RouteGeneration: routeGeneration}
		}
		if w.Written.IsZero() && carries(w.RouteGeneration) {
			w.Written = now
			written = append(written, w)
		}
		m.withdrawals = append(m.withdrawals, w)
	}
	if prev.split != nil && maps.Equal(prev.split.Weights, weights) {
		// The same check goes on. Judge settles it in place, outside the lock: only the
		// reconcile of this map reads or writes it, and controller-runtime never runs two
		// reconciles of one map at once.
		c := *prev.split
		m.split = &c
	} else {
		m.split = applied.NewSplit(weights, routeGeneration)
	}
	if m.split != nil && m.split.Written.IsZero() && carries(m.split.RouteGeneration) {
		m.split.Written = now
	}
	t.store(key, m)
	return m, written
}

// store keeps a map's tracking; the caller holds the lock.
func (t *appliedTracker) store(key types.NamespacedName, m trackedMap) {
	if t.maps == nil {
		t.maps = map[types.NamespacedName]trackedMap{}
	}
	if len(m.withdrawals) == 0 && m.split == nil {
		delete(t.maps, key)
		return
	}
	t.maps[key] = m
}

// keep stores the tracking as a judgement left it.
func (t *appliedTracker) keep(key types.NamespacedName, m trackedMap) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.store(key, m)
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
	m, written := r.applied.update(s.key, s.written, trafficmap.RouteGeneration(s.current, s.written), now)
	for _, w := range written {
		observeTrafficApplied(stageRouteWritten, w.Written.Sub(w.Decided))
	}
	v, ws := applied.Judge(m.withdrawals, m.split, s.readings, applied.Signal{Configured: r.Signal.Configured(), Interval: r.Signal.Interval()}, now)
	m.withdrawals = ws
	r.applied.keep(s.key, m)
	for _, w := range v.Moved {
		observeTrafficApplied(stageTrafficMoved, w.Moved.Sub(w.Decided))
	}
	setServedAtZero(s.key, len(v.Served))
	s.counters = countersOf(v)
	setSplitOffWeights(s.key, m.split != nil && m.split.Verdict == applied.SplitMismatched)
	s.trafficApplied = metav1.Condition{Type: omev1beta1.TrafficMapTrafficApplied, Status: v.Status, Reason: string(v.Reason),
		Message: v.Message, ObservedGeneration: s.written.Generation}
	if !v.Next.IsZero() {
		// Just after the reading is due, so that it has arrived.
		s.nextExpiry = earliest(s.nextExpiry, v.Next.Add(time.Second))
	}
	return phase.Proceed
}
