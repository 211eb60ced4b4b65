package trafficmap

import (
	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// A probe gate and a passive gate are independent: either holds a home out, and the
// all-failed policy counts a home gated by either. The helpers below are the one place
// that says so.

// EntryGated says whether a gate holds the entry out: its probe's, or an enforcing
// passive gate's.
func EntryGated(e omev1beta1.TrafficMapEntry) bool {
	return (e.Probe != nil && e.Probe.Gated) || passiveGated(e.PassiveGate)
}

func passiveGated(p *omev1beta1.TrafficMapPassiveGate) bool {
	return p != nil && p.Gated
}

// passiveCause is the zero-weight cause of an enforcing passive gate, "" when none holds.
func passiveCause(p *omev1beta1.TrafficMapPassiveGate) string {
	if !passiveGated(p) {
		return ""
	}
	if p.Message != "" {
		return p.Message
	}
	return "held out by its passive gate"
}
