package routing

import (
	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// This file counts the homes of a set of entries by state: the numbers the map's status
// fields and its gauges share.

func countRefused(entries []omev1beta1.TrafficMapEntry) int {
	return countEntries(entries, func(e omev1beta1.TrafficMapEntry) bool { return e.Refused != "" })
}

// countEntries counts the entries that have the property.
func countEntries(entries []omev1beta1.TrafficMapEntry, has func(omev1beta1.TrafficMapEntry) bool) int {
	n := 0
	for _, e := range entries {
		if has(e) {
			n++
		}
	}
	return n
}

// countWouldGate counts the entries a Shadow probe would gate.
func countWouldGate(entries []omev1beta1.TrafficMapEntry) int {
	return countProbes(entries, func(p *omev1beta1.TrafficMapProbe) bool { return p.WouldGate })
}

func countGated(entries []omev1beta1.TrafficMapEntry) int {
	return countProbes(entries, func(p *omev1beta1.TrafficMapProbe) bool { return p.Gated })
}

// countProbes counts the entries with a probe record that has the property.
func countProbes(entries []omev1beta1.TrafficMapEntry, has func(*omev1beta1.TrafficMapProbe) bool) int {
	return countEntries(entries, func(e omev1beta1.TrafficMapEntry) bool { return e.Probe != nil && has(e.Probe) })
}
