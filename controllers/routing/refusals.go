package routing

import (
	corev1 "k8s.io/api/core/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
)

// announceRefusals emits an event for every home the operator starts refusing, or now
// refuses for another reason, and for every refusal lifted. A refusal is loud on purpose:
// a guard setting left off (allowPrivateNetworks, by default) silently takes a cluster
// with a private ingress out of traffic, and the note says which setting to change.
func (r *Reconciler) announceRefusals(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]string{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.Refused
		}
	}
	for _, e := range entries {
		before := was[e.Cluster]
		switch {
		case e.Refused != "" && e.Refused != before:
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventHomeRefused, actionRoute,
				"Cluster %s takes no traffic: the operator refuses it: %s", e.Cluster, e.Refused)
		case e.Refused == "" && before != "":
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeNormal, EventHomeRefusalLifted, actionRoute,
				"Cluster %s is no longer refused", e.Cluster)
		}
	}
}

func countRefused(entries []omev1beta1.TrafficMapEntry) int {
	n := 0
	for _, e := range entries {
		if e.Refused != "" {
			n++
		}
	}
	return n
}
