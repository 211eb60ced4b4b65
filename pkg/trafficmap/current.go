package trafficmap

// This file owns the rule that says whether something recorded at a generation of the map
// (a condition's observedGeneration, the publisher's observedTrafficMapGeneration) still
// describes the map as it is.

import omev1beta1 "github.com/ome-routing/operator/api/v1beta1"

// ObservedCurrent says whether a record made at generation observed describes tm now.
// Most generations of a probed map are probe rounds that move only probe records, and each
// writer follows them a moment later (the publisher last), so a comparison with the
// generation alone would call nearly every record stale. What a record says depends on what
// the route is made of, so one made at or after status.routeGeneration still holds. A map
// without routeGeneration is compared with its generation. A record from a generation the
// map has not reached belongs to something else (a deleted map of the same name) and is
// not current either.
func ObservedCurrent(observed int64, tm *omev1beta1.TrafficMap) bool {
	since := tm.Generation
	if g := tm.Status.RouteGeneration; g > 0 && g < since {
		since = g
	}
	return observed >= since && observed <= tm.Generation
}
