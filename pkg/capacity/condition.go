package capacity

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

// FallbackCondition is the map's CapacityFallback condition, without generation and time,
// which the writer sets. It is True, the abnormal state, when some home polls but counts
// its admitted replicas for lack of a ceiling. The checks run in this order: polling off,
// no homes, then the count.
func FallbackCondition(enabled bool, entries []v1beta1.TrafficMapEntry) metav1.Condition {
	c := metav1.Condition{Type: v1beta1.TrafficMapCapacityFallback, Status: metav1.ConditionFalse}
	n := len(entries)
	switch k := FallbackHomes(entries); {
	case !enabled:
		c.Reason, c.Message = string(v1beta1.TrafficMapReasonCapacityPollingDisabled), "endpoint capacity polling is disabled"
	case n == 0:
		c.Reason, c.Message = string(v1beta1.TrafficMapReasonNoCapacityTargets), "no addressable homes require endpoint capacity"
	case k == 0:
		c.Reason = string(v1beta1.TrafficMapReasonEndpointCapacityAvailable)
		c.Message = fmt.Sprintf("endpoint capacity is available for all %d home(s)", n)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, string(v1beta1.TrafficMapReasonEndpointCapacityUnavailable)
		c.Message = fmt.Sprintf("%d of %d home(s) are using control-plane capacity; inspect spec.entries[].capacity.fallbackReason", k, n)
	}
	return c
}

// FallbackHomes counts the entries that have a fallback reason: the gauge
// ome_trafficmap_capacity_fallback_homes.
func FallbackHomes(entries []v1beta1.TrafficMapEntry) int {
	k := 0
	for _, e := range entries {
		if e.Capacity.FallbackReason != "" {
			k++
		}
	}
	return k
}
