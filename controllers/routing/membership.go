package routing

import (
	corev1 "k8s.io/api/core/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
)

// announceMembership emits an event for every cluster that leaves the map or joins a map
// that already exists. A cluster that leaves takes its backend out of the route, so the
// Warning says why (its exclusion's reason and message) or, for a cluster that is no
// longer selected at all, that it is not a candidate any more.
func (r *Reconciler) announceMembership(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap,
	entries []omev1beta1.TrafficMapEntry, excluded []omev1beta1.ExcludedCluster) {
	if current == nil {
		return
	}
	now := map[string]bool{}
	for _, e := range entries {
		now[e.Cluster] = true
	}
	why := map[string]omev1beta1.ExcludedCluster{}
	for _, x := range excluded {
		why[x.Cluster] = x
	}
	was := map[string]bool{}
	for _, e := range current.Spec.Entries {
		was[e.Cluster] = true
		if now[e.Cluster] {
			continue
		}
		if x, ok := why[e.Cluster]; ok {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeLeft, actionRoute,
				"Cluster %s left the map and takes no traffic: %s: %s", e.Cluster, x.Reason, x.Message)
			continue
		}
		r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeLeft, actionRoute,
			"Cluster %s left the map and takes no traffic: the placement no longer selects it, or its WorkloadCluster is gone", e.Cluster)
	}
	for _, e := range entries {
		if !was[e.Cluster] {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeJoined, actionRoute,
				"Cluster %s joined the map with weight %d: %s", e.Cluster, e.Weight, e.WeightReason)
		}
	}
}

// announceCapacityCaps emits an event when a capacity report starts or stops holding a
// cluster at 0 replicas. Every other change of a ceiling only moves a ratio, and shows in
// the entry's capacity block and weightReason.
func (r *Reconciler) announceCapacityCaps(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]bool{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = cappedToZero(e)
		}
	}
	for _, e := range entries {
		switch {
		case cappedToZero(e) && !was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeCapacityCapped, actionRoute,
				"Cluster %s capped at 0 replicas by its capacity report: it takes no traffic until a report above 0", e.Cluster)
		case !cappedToZero(e) && was[e.Cluster]:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeCapacityRestored, actionRoute,
				"Cluster %s is no longer capped at 0 by its capacity report: %d allocated replica(s) count", e.Cluster, e.Capacity.Allocated)
		}
	}
}

// cappedToZero says whether a capacity report holds the entry at 0 replicas.
func cappedToZero(e omev1beta1.TrafficMapEntry) bool {
	return e.Capacity.Source == omev1beta1.CapacitySourceEndpoint && e.Capacity.Allocated == 0
}
