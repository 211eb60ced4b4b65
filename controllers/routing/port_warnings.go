package routing

import (
	corev1 "k8s.io/api/core/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/internal/related"
)

// EventProbePortMismatch (Warning): a home's probe goes to another port than the one the
// global route sends to (endpoint.backendPort), so its passing probes prove nothing about
// the route's port; the note names both. Sent when the entry's warning starts or changes,
// not every probe round.
const EventProbePortMismatch = "ProbePortMismatch"

// announcePortWarnings sends a ProbePortMismatch event for every entry whose port warning
// (see trafficmap.PortWarning) is new or changed against the map as it was.
func (r *Reconciler) announcePortWarnings(isvc *omev1beta1.InferenceService, current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry) {
	was := map[string]string{}
	if current != nil {
		for _, e := range current.Spec.Entries {
			was[e.Cluster] = e.Warning
		}
	}
	for _, e := range entries {
		if e.Warning != "" && e.Warning != was[e.Cluster] {
			r.Recorder.Eventf(isvc, related.WorkloadCluster(e.Cluster), corev1.EventTypeWarning, EventProbePortMismatch, actionRoute,
				"Cluster %s: %s", e.Cluster, e.Warning)
		}
	}
}
