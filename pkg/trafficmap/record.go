package trafficmap

import (
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// Deferrable says whether a probe round that would turn the recorded entries into next
// may go unwritten for now, under routing.observer.recordInterval: next differs from
// recorded in nothing but lastProbeTime, and the newest lastProbeTime recorded is less
// than interval before now. Anything else a round brings (a result, a message, a count, a
// gate, a weight, an endpoint, an entry more or less) is written at once; so is a quiet
// round once interval has passed. The time comes from the map itself, so a restarted
// manager or a new leader keeps the same pace.
func Deferrable(recorded, next []omev1beta1.TrafficMapEntry, interval time.Duration, now time.Time) bool {
	if interval <= 0 || len(recorded) != len(next) {
		return false
	}
	var newest time.Time
	for i := range recorded {
		a, b := recorded[i], next[i]
		if a.Probe == nil || b.Probe == nil || a.Probe.LastProbeTime == nil {
			return false
		}
		if t := a.Probe.LastProbeTime.Time; t.After(newest) {
			newest = t
		}
		pa, pb := *a.Probe, *b.Probe
		pa.LastProbeTime, pb.LastProbeTime = nil, nil
		a.Probe, b.Probe = &pa, &pb
		if !equality.Semantic.DeepEqual(a, b) {
			return false
		}
	}
	return now.Sub(newest) < interval
}
