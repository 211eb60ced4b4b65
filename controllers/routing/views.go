package routing

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// mapView is what the routing reconciler knows beyond the entries that readers of the map
// need to judge it: the probe in force, how long a quiet round may go unwritten, and the
// generation at which the route last changed. kubectl and a person reading the object see
// neither the manager's settings nor older versions of the map.
type mapView struct {
	policy          probe.Resolution
	recordInterval  time.Duration
	routeGeneration int64
	// lastProbeTime is the newest the written spec records. A quiet round that went
	// unwritten under recordInterval has newer times in memory; taking those would write
	// the status every round, the very write recordInterval spares.
	lastProbeTime *metav1.Time
	// leftOutOfRoute is what the publisher last said its route leaves out (the current
	// map's status), for noTraffic.
	leftOutOfRoute []omev1beta1.LeftOutCluster
}

// viewOf is the map view of one reconcile, once the spec is written.
func (r *Reconciler) viewOf(s *routingScope) mapView {
	v := mapView{policy: s.policy, recordInterval: r.RecordInterval, routeGeneration: trafficmap.RouteGeneration(s.current, s.written),
		lastProbeTime: trafficmap.NewestProbeTime(s.written.Spec.Entries)}
	if s.current != nil {
		v.leftOutOfRoute = s.current.Status.LeftOutOfRoute
	}
	return v
}

// withViews adds to the routing reconciler's status fields the counts of -o wide's
// WOULD-GATE, RAMPING and WARNINGS columns, the newest lastProbeTime (PROBED), the probe timings and
// routeGeneration. A value that does not apply is left out (nil), which drops the field.
func withViews(fields map[string]any, entries []omev1beta1.TrafficMapEntry, v mapView) map[string]any {
	fields["wouldGateHomes"] = int64(countWouldGate(entries))
	fields["rampingHomes"] = int64(countEntries(entries, trafficmap.Ramping))
	fields["warnedHomes"] = int64(countWarned(entries))
	fields["lastProbeTime"], fields["probePeriod"], fields["probeRecordInterval"] = nil, nil, nil
	if v.lastProbeTime != nil {
		fields["lastProbeTime"] = v.lastProbeTime.ToUnstructured()
	}
	if v.policy.Mode == probe.ModePolicy {
		// As metav1.Duration writes itself in JSON.
		fields["probePeriod"] = v.policy.Policy.Period.String()
		if v.recordInterval > 0 {
			fields["probeRecordInterval"] = v.recordInterval.String()
		}
	}
	fields["routeGeneration"] = nil
	if v.routeGeneration > 0 {
		fields["routeGeneration"] = v.routeGeneration
	}
	return fields
}

// countWarned counts the entries that carry a warning (WARNINGS).
func countWarned(entries []omev1beta1.TrafficMapEntry) int {
	n := 0
	for _, e := range entries {
		if e.Warning != "" {
			n++
		}
	}
	return n
}
