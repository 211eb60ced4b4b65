package routing

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/phase"
	"github.com/ome-routing/operator/controllers/internal/related"
	"github.com/ome-routing/operator/pkg/applied"
	"github.com/ome-routing/operator/pkg/verdict"
)

// This file owns each home's serving state (spec.entries[].serving): the one verdict every
// view of a map reads. The routing reconciler judges it (pkg/verdict) from what it knows
// of the home and what the publisher's status says of the route (Published,
// leftOutOfRoute), and writes it with the entries it already writes. The gateway's counters
// are read after the spec is written (judgeApplied), so the states go into the spec twice
// at most: first with the counters of the last judgement (prejudge), then, only when the
// new reading changes a state, once more (judgeHomes).

// homesByServingState is the gauge of a map's homes by serving state.
var homesByServingState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "ome_routing_homes_by_serving_state",
	Help: "Homes of a service by serving state (spec.entries[].serving): Serving, HeldOut, HeldOutUnconfirmed, StillServedAtZero, LeftOutOfRoute, Unobserved and Unknown; every state has a series, 0 when no home is in it.",
}, []string{"namespace", "name", "state"})

// counterMemory keeps what the gateway's counters last said of each map's homes at weight
// 0, so that the spec written before the next reading carries the states as they stand.
type counterMemory struct {
	mu   sync.Mutex
	maps map[types.NamespacedName]map[string]verdict.Counters
}

func (m *counterMemory) get(key types.NamespacedName) map[string]verdict.Counters {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maps[key]
}

func (m *counterMemory) set(key types.NamespacedName, c map[string]verdict.Counters) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.maps == nil {
		m.maps = map[types.NamespacedName]map[string]verdict.Counters{}
	}
	m.maps[key] = c
}

func (m *counterMemory) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.maps, key)
}

// countersOf is what a TrafficApplied judgement says of each home at weight 0.
func countersOf(v applied.Verdict) map[string]verdict.Counters {
	out := map[string]verdict.Counters{}
	for _, c := range v.Confirmed {
		out[c] = verdict.CountersMoved
	}
	for _, c := range v.Served {
		out[c] = verdict.CountersStillServed
	}
	return out
}

// withServing judges each entry's serving state against the publisher's word in status
// (the map as last read) and the counters, on a copy of the entries.
func withServing(entries []omev1beta1.TrafficMapEntry, status omev1beta1.TrafficMapStatus,
	counters map[string]verdict.Counters) []omev1beta1.TrafficMapEntry {
	leftOut := map[string]*omev1beta1.LeftOutCluster{}
	for i := range status.LeftOutOfRoute {
		leftOut[status.LeftOutOfRoute[i].Cluster] = &status.LeftOutOfRoute[i]
	}
	published := meta.IsStatusConditionTrue(status.Conditions, omev1beta1.TrafficMapPublished)
	out := make([]omev1beta1.TrafficMapEntry, len(entries))
	for i, e := range entries {
		e.Serving = verdict.Judge(verdict.Home{Weight: e.Weight, WeightReason: e.WeightReason, LeftOut: leftOut[e.Cluster],
			Published: published, Unobserved: e.UnobservedSince != nil, Counters: counters[e.Cluster]}).State
		out[i] = e
	}
	return out
}

// prejudge gives the built entries their serving states before the spec is written, with
// the counters of the last judgement, so that a steady map's spec is not written twice.
func (r *Reconciler) prejudge(_ context.Context, s *routingScope) phase.Outcome {
	var status omev1beta1.TrafficMapStatus
	if s.current != nil {
		status = s.current.Status
	}
	s.result.Entries = withServing(s.result.Entries, status, r.counters.get(s.key))
	return phase.Proceed
}

// judgeHomes judges the states again with the counters just read (judgeApplied), writes
// the entries once more when a state moved, and sends the event of a home still served at
// weight 0.
func (r *Reconciler) judgeHomes(ctx context.Context, s *routingScope) phase.Outcome {
	r.counters.set(s.key, s.counters)
	entries := withServing(s.written.Spec.Entries, s.written.Status, s.counters)
	changed := false
	for i := range entries {
		changed = changed || entries[i].Serving != s.written.Spec.Entries[i].Serving
	}
	if changed {
		before := s.written
		tm := before.DeepCopy()
		tm.Spec.Entries = entries
		patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
		if err := r.ownWrite(tm, func() error { return r.Client.Patch(ctx, tm, patch, r.owner()) }); err != nil {
			return phase.Finish(r.retryConflict(s.key, err))
		}
		s.written = tm
	}
	s.result.Entries = entries
	r.announceStillServed(s.isvc, s.current, entries)
	setHomesByServingState(s.key, entries)
	return phase.Proceed
}

// announceStillServed sends a Warning when a home becomes StillServedAtZero: the one
// serving state no other event announces, and the one that needs a person (the gateway
// does not follow the route).
func (r *Reconciler) announceStillServed(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]omev1beta1.ServingState{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.Serving
		}
	}
	for _, e := range entries {
		if e.Serving == omev1beta1.ServingStateStillServedAtZero && was[e.Cluster] != e.Serving {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeStillServedAtZero, actionRoute,
				"Cluster %s %s", e.Cluster, verdict.Message(e.Serving, string(e.WeightReason)))
		}
	}
}

// setHomesByServingState records a map's homes by serving state.
func setHomesByServingState(key types.NamespacedName, entries []omev1beta1.TrafficMapEntry) {
	n := map[omev1beta1.ServingState]int{}
	for _, e := range entries {
		n[e.Serving]++
	}
	for _, st := range verdict.States {
		homesByServingState.WithLabelValues(key.Namespace, key.Name, string(st)).Set(float64(n[st]))
	}
}

// forgetServing drops a map's counters and gauge series.
func (r *Reconciler) forgetServing(key types.NamespacedName) {
	r.counters.forget(key)
	homesByServingState.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
}

// servingFields are the map-level summary of the serving states in the routing
// reconciler's status: servingHomes (SERVING) and homeStates (STATES).
func servingFields(fields map[string]any, entries []omev1beta1.TrafficMapEntry, leftOut []omev1beta1.LeftOutCluster) map[string]any {
	reasons := map[string]omev1beta1.LeftOutReason{}
	for _, l := range leftOut {
		reasons[l.Cluster] = l.Reason
	}
	sum := verdict.Summarize(entries, reasons)
	// Set to now by the apply that records them (mapstatus.Share.Stamp).
	fields["verdictTime"] = nil
	fields["servingHomes"] = int64(sum.Serving)
	fields["homeStates"] = nil
	if sum.HomeStates != "" {
		fields["homeStates"] = sum.HomeStates
	}
	return fields
}
