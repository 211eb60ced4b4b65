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

// tierCapacity is what one home brings to its tier: the capacity it can serve now
// (servableCapacity's value, 0 while gated, refused or drained) and the capacity it would
// serve if nothing held it back (its allocated replicas times its factor, at a full ramp).
type tierCapacity struct {
	tier     int
	servable *big.Int
	total    *big.Int
}

// spillWeights gives each home its weight under ordered failover: its tier's priority
// load, split inside the tier by servable capacity as weights are without tiers, then
// reduced to whole numbers by reduceWeights. tiers is the number of tiers, the implicit
// last one included; every home's tier is below it.
func spillWeights(homes []tierCapacity, tiers int, overprovisioningPercent int64) []int32 {
	healthy := make([]*big.Int, tiers)
	total := make([]*big.Int, tiers)
	for t := range tiers {
		healthy[t], total[t] = new(big.Int), new(big.Int)
	}
	for _, h := range homes {
		healthy[h.tier].Add(healthy[h.tier], h.servable)
		total[h.tier].Add(total[h.tier], h.total)
	}
	health := make([]int64, tiers)
	for t := range tiers {
		health[t] = TierHealth(healthy[t], total[t], overprovisioningPercent)
	}
	loads := PriorityLoad(health)
	// A home's share is load(tier) x servable / healthy(tier), a fraction; scaling every
	// share by the product of the tiers' denominators makes them whole numbers with the
	// same ratio, which reduceWeights then brings to the smallest form.
	shares := make([]*big.Rat, len(homes))
	scale := big.NewInt(1)
	for i, h := range homes {
		shares[i] = new(big.Rat)
		if h.servable.Sign() <= 0 || loads[h.tier].Sign() == 0 {
			continue
		}
		shares[i].SetFrac(h.servable, healthy[h.tier])
		shares[i].Mul(shares[i], loads[h.tier])
		scale = lcm(scale, shares[i].Denom())
	}
	servable := make([]*big.Int, len(homes))
	for i, s := range shares {
		v := new(big.Int).Mul(s.Num(), scale)
		servable[i] = v.Quo(v, s.Denom())
	}
	return reduceWeights(servable)
}

func lcm(a, b *big.Int) *big.Int {
	g := new(big.Int).GCD(nil, nil, a, b)
	out := new(big.Int).Quo(a, g)
	return out.Mul(out, b)
}
