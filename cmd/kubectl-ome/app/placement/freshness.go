package placement

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// staleRouting says why the map does not show the service as it is now, or "" when it
// does. The generation alone is not enough: a drain is an annotation, which does not move
// the generation, so a map can carry the current generation and still predate the drain
// (the manager stopped, or behind). What the manager last observed of the drains is in the
// map itself: each entry's drainRefs and the OverrideActive condition, which the manager
// writes from the annotation it read. They are recomputed here from the annotation as it is
// now, with the same pure functions the manager uses, and compared.
func staleRouting(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap) string {
	if tm.Spec.ObservedISVCGeneration != isvc.Generation {
		return fmt.Sprintf("generation %d not observed yet (map built from %d)", isvc.Generation, tm.Spec.ObservedISVCGeneration)
	}
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		return drain.Annotation + " does not parse, so the manager keeps the map as it was"
	}
	if !drainsObserved(overrides, tm) {
		return drain.Annotation + " change not observed yet"
	}
	return ""
}

// drainsObserved says whether the map is what the manager writes for these overrides.
func drainsObserved(overrides []drain.Override, tm *omev1beta1.TrafficMap) bool {
	want := drain.Apply(trafficmap.Result{Entries: tm.Spec.Entries}, overrides)
	for i, e := range want.Entries {
		if !slices.Equal(e.DrainRefs, tm.Spec.Entries[i].DrainRefs) {
			return false
		}
	}
	cond := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapOverrideActive)
	if cond == nil {
		return len(overrides) == 0
	}
	expected := drain.OverrideActive(overrides, want.Entries)
	return cond.Status == expected.Status && cond.Reason == expected.Reason && cond.Message == expected.Message
}
