package trafficmap

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// What the map's status says at a glance besides the weights: how many homes ramp, when a
// probe was last recorded, and at which generation the route last changed. Readers that
// cannot see the manager's settings (kubectl, an alert on the object) judge the map's
// freshness from these.

// Ramping says whether a home ramps back up after a gate lifted, its probe's or its
// passive gate's: it takes only part of its weight. This is the share Build applies, so a
// home counted here is exactly one whose weight a ramp lowers.
func Ramping(e omev1beta1.TrafficMapEntry) bool {
	return rampOf(e.Probe, e.PassiveGate) < 100
}

// rampOf is the share of its weight, in percent, a home gets: the lower of its probe's
// and its passive gate's rampPercent while either ramps up after a lift, 100 otherwise. A
// gate ends its own ramp (and holds the home at 0 anyway), and Shadow records no ramp, so
// neither is ever scaled.
func rampOf(p *omev1beta1.TrafficMapProbe, pg *omev1beta1.TrafficMapPassiveGate) int32 {
	share := int32(100)
	if p != nil && !p.Gated && p.RampPercent > 0 && p.RampPercent < 100 {
		share = p.RampPercent
	}
	if pg != nil && !pg.Gated && pg.RampPercent > 0 && pg.RampPercent < 100 {
		share = min(share, pg.RampPercent)
	}
	return share
}

// NewestProbeTime is the latest lastProbeTime of the entries, nil when none records one.
// While the manager runs it moves every probe period (or every recordInterval, for rounds
// that change nothing else); when it stops moving, nothing probes the homes.
func NewestProbeTime(entries []omev1beta1.TrafficMapEntry) *metav1.Time {
	var newest *metav1.Time
	for _, e := range entries {
		if e.Probe == nil || e.Probe.LastProbeTime == nil {
			continue
		}
		if newest == nil || e.Probe.LastProbeTime.After(newest.Time) {
			newest = e.Probe.LastProbeTime
		}
	}
	return newest.DeepCopy()
}

// RouteChanged says whether the entries differ in what a route is made of: which
// clusters, their endpoints and their weights. A probe round that only moves probe
// records (lastProbeTime, counts, messages) changes none of it.
func RouteChanged(before, after []omev1beta1.TrafficMapEntry) bool {
	if len(before) != len(after) {
		return true
	}
	for i, e := range before {
		n := after[i]
		if e.Cluster != n.Cluster || e.Endpoint != n.Endpoint || e.Weight != n.Weight {
			return true
		}
	}
	return false
}

// RouteGeneration is the generation of the map as written at which its entries last
// changed in what a route is made of (RouteChanged), given the map as it was before the
// write (nil when there was none). A publisher that has published that generation or a
// later one carries the current weights, however many probe rounds have moved the
// generation since.
//
// A map without a recorded routeGeneration (new, or last written by an earlier release)
// gets the written generation: the latest the route may have changed at, never an earlier
// one. The value lives in the status, which the routing reconciler applies after the spec.
// If that status write fails after a route change, the next reconcile sees the change
// already in the spec and keeps the older value: until the publisher has published the
// change (it takes route changes first), a reader then takes its Published for current a
// little early. The other way round would be worse: a spurious Stale at steady state.
func RouteGeneration(before, written *omev1beta1.TrafficMap) int64 {
	switch {
	case before == nil, before.Status.RouteGeneration <= 0, before.Status.RouteGeneration > written.Generation:
		return written.Generation
	case RouteChanged(before.Spec.Entries, written.Spec.Entries):
		return written.Generation
	}
	return before.Status.RouteGeneration
}
