package trafficmap

import (
	"math/big"
)

// This file holds the arithmetic of ordered failover (issue 36): how much of a service's
// traffic each tier of clusters takes, by Envoy's priority-load rule. It is not wired into
// Build yet; the tier settings and the weights that use it come next.

// DefaultOverprovisioningPercent is Envoy's default overprovisioning factor, 1.4, in
// percent: a tier counts as fully healthy while at least 1/1.4 (about 71.4%) of its
// capacity is healthy.
const DefaultOverprovisioningPercent = 140

// TierHealth is a tier's health score in whole percent, as Envoy computes a priority
// level's: healthy over total capacity, times the overprovisioning factor, rounded down
// and capped at 100. A tier without capacity has a score of 0.
func TierHealth(healthy, total *big.Int, overprovisioningPercent int64) int64 {
	if total.Sign() <= 0 || healthy.Sign() <= 0 {
		return 0
	}
	score := new(big.Int).Mul(healthy, big.NewInt(overprovisioningPercent))
	score.Quo(score, total)
	if score.Cmp(big.NewInt(100)) >= 0 {
		return 100
	}
	return score.Int64()
}

// PriorityLoad splits the traffic over tiers in order of preference, given each tier's
// health score (TierHealth): each tier takes its score of what the tiers before it left,
// so the first takes everything while it is healthy and spills the rest to the next as it
// degrades. When the scores add up to less than 100, each is scaled by 100 over their sum
// first (Envoy's normalized total health), so that the healthy capacity there is still
// takes all of the traffic. Envoy rounds those scaled loads to whole percents; they stay
// exact here (the difference is under one point) and the weights are reduced from them.
// The loads are fractions of 1 and add up to 1, or are all 0 when no tier has a score.
func PriorityLoad(health []int64) []*big.Rat {
	loads := make([]*big.Rat, len(health))
	var sum int64
	for i, h := range health {
		loads[i] = new(big.Rat)
		sum += max(h, 0)
	}
	if sum == 0 {
		return loads
	}
	normalized := min(sum, 100)
	left := big.NewRat(1, 1)
	for i, h := range health {
		if h <= 0 {
			continue
		}
		share := big.NewRat(h, normalized)
		if share.Cmp(left) > 0 {
			share.Set(left)
		}
		loads[i].Set(share)
		left.Sub(left, share)
	}
	return loads
}
