package placement

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/drain"
	"github.com/ome-routing/operator/pkg/trafficmap"
)

// Why a map does not show the service as it is now: the codes of the Routable freshness
// row and of content.routingStaleCause.
const (
	// StaleGeneration: the manager has not observed the service's generation or its
	// ome.io/traffic-drain annotation yet.
	StaleGeneration = "StaleGeneration"
	// Frozen: the manager refuses a routing setting (SettingsAccepted False), and keeps the
	// map as last written.
	Frozen = "Frozen"
	// NoRecentProbe: no probe has been recorded for longer than a running manager takes
	// (see staleProbes).
	NoRecentProbe = "NoRecentProbe"
)

// staleRouting says why the map does not show the service as it is now, as a code and a
// sentence, or "", "" when it does. A frozen map says so first: its refusal is what to fix,
// and it is also why the rest is old.
//
// The generation alone is not enough: a drain is an annotation, which does not move
// the generation, so a map can carry the current generation and still predate the drain
// (the manager stopped, or behind). What the manager last observed of the drains is in the
// map itself: each entry's drainRefs and the OverrideActive condition, which the manager
// writes from the annotation it read. They are recomputed here from the annotation as it is
// now, with the same pure functions the manager uses, and compared. Nor is the service
// alone enough: a manager that stopped leaves a map that matches the service forever, and
// only the time of its last recorded probe tells (staleProbes).
func staleRouting(isvc *omev1beta1.InferenceService, tm *omev1beta1.TrafficMap, now time.Time) (string, string) {
	if c := meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapSettingsAccepted); c != nil && c.Status == "False" {
		return Frozen, "frozen: the manager refuses a routing setting and keeps the map as last written (see Frozen)"
	}
	if tm.Spec.ObservedISVCGeneration != isvc.Generation {
		return StaleGeneration, fmt.Sprintf("generation %d not observed yet (map built from %d)", isvc.Generation, tm.Spec.ObservedISVCGeneration)
	}
	value, present := isvc.Annotations[drain.Annotation]
	overrides, err := drain.Parse(value, present)
	if err != nil {
		return StaleGeneration, drain.Annotation + " does not parse, so the manager keeps the map as it was"
	}
	if !drainsObserved(overrides, tm) {
		return StaleGeneration, drain.Annotation + " change not observed yet"
	}
	if reason := staleProbes(tm, now); reason != "" {
		return NoRecentProbe, reason
	}
	return "", ""
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
	return cond.Status == expected.Status && cond.Reason == string(expected.Reason) && cond.Message == expected.Message
}

// conditionCurrent says whether a condition describes the map as it is. Nearly every
// generation of a probed map is a probe round that moves only probe records
// (lastProbeTime, counts), and each writer of a condition follows it a moment later; the
// publisher follows such generations last of all. Compared with the generation alone,
// every condition would read Stale in those moments, Published most often. What a
// condition says depends on what the route is made of, so a condition written at or after
// the generation at which that last changed (status.routeGeneration, which the routing
// reconciler records) still holds. A map without routeGeneration is compared with its
// generation, as before there was one.
func conditionCurrent(observed int64, tm *omev1beta1.TrafficMap) bool {
	return trafficmap.ObservedCurrent(observed, tm)
}
