package trafficmap

import (
	"fmt"
	"slices"
	"strings"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// explainTier adds an entry's failover tier to the explanation Explain found without it.
// A home in a tier after the first that takes traffic is Spilled, unless a reason of its
// own comes first (a preserved gate, a ramp, a Shadow gate, an unobserved cluster). A home
// that could serve but gets no traffic, because the tiers before its own take it all, is
// Standby: that is the only zero weight nothing else explains. Any other positive weight
// says which tier it is in and what share the tier takes.
func explainTier(e omev1beta1.TrafficMapEntry, reason omev1beta1.WeightReason, message string, split *omev1beta1.TrafficMapFailover) (omev1beta1.WeightReason, string) {
	at := slices.IndexFunc(split.Tiers, func(t omev1beta1.TrafficMapTier) bool { return t.Name == e.Tier })
	if at < 0 {
		return reason, message
	}
	tier := split.Tiers[at]
	if e.Weight == 0 {
		if hasNoOtherCause(e) {
			return omev1beta1.WeightStandby, fmt.Sprintf("standby in tier %s, which takes no traffic while the tiers before it can take all of it (%s); it could serve %s",
				tier.Name, TierHealthList(split.Tiers[:at]), strings.TrimPrefix(share(e), "takes traffic in proportion to "))
		}
		return reason, message + tierNote(tier)
	}
	switch reason {
	case omev1beta1.WeightRouted, omev1beta1.WeightCapacityCapped:
		if at > 0 {
			return omev1beta1.WeightSpilled, fmt.Sprintf("in tier %s, which takes %d%% of the traffic because the tiers before it have too little healthy capacity (%s); within the tier it %s",
				tier.Name, tier.LoadPercent, TierHealthList(split.Tiers[:at]), message)
		}
	}
	return reason, message + tierNote(tier)
}

// hasNoOtherCause says that nothing but its tier holds the entry at 0.
func hasNoOtherCause(e omev1beta1.TrafficMapEntry) bool {
	gate := ""
	if e.Probe != nil && e.Probe.Gated {
		gate = gateCause(e.Probe)
	}
	return len(zeroCauses(e, gate, passiveCause(e.PassiveGate))) == 0
}

func tierNote(t omev1beta1.TrafficMapTier) string {
	return fmt.Sprintf("; in tier %s, which takes %d%% of the traffic", t.Name, t.LoadPercent)
}

// TierHealthList lists tiers' health scores, such as "east at health 70 of 100", for
// weight messages and events.
func TierHealthList(tiers []omev1beta1.TrafficMapTier) string {
	parts := make([]string, len(tiers))
	for i, t := range tiers {
		parts[i] = fmt.Sprintf("%s at health %d of 100", t.Name, t.Health)
	}
	return strings.Join(parts, ", ")
}
