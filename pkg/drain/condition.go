package drain

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// OverrideActive decides the TrafficMap's OverrideActive condition from the parsed drains
// and the entries after Apply. It is True as soon as one drain holds an entry; a drain that
// names no entry only counts as configured, which is how a misspelt cluster name shows.
func OverrideActive(overrides []Override, entries []omev1beta1.TrafficMapEntry) trafficmap.Condition {
	if len(overrides) == 0 {
		return trafficmap.Condition{Status: metav1.ConditionFalse, Reason: omev1beta1.TrafficMapReasonNoOverrides,
			Message: "no traffic-drain annotation override is configured"}
	}
	applied := map[string]bool{}
	arms := 0
	for _, e := range entries {
		if len(e.DrainRefs) == 0 {
			continue
		}
		arms++
		for _, id := range e.DrainRefs {
			applied[id] = true
		}
	}
	if len(applied) == 0 {
		return trafficmap.Condition{Status: metav1.ConditionFalse, Reason: omev1beta1.TrafficMapReasonOverridesPending,
			Message: fmt.Sprintf("%d traffic-drain annotation override(s) pending; no matching routable arm", len(overrides))}
	}
	return trafficmap.Condition{Status: metav1.ConditionTrue, Reason: omev1beta1.TrafficMapReasonOverridesApplied,
		Message: fmt.Sprintf("%d of %d traffic-drain annotation override(s) active across %d route arm(s); inspect spec.entries[].drainRefs",
			len(applied), len(overrides), arms)}
}
