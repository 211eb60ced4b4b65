package trafficmap

import (
	"math/big"
)

// This file holds the arithmetic of ordered failover: how much of a service's traffic
// each tier of clusters takes, by Envoy's priority-load rule (failover.go applies it).

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
// serve if nothing held it back (its allocated replicas times its factor, at a full ramp and a full load share).
type tierCapacity struct {
	tier     int
	servable *big.Int
	total    *big.Int
}

// spill is the split of one table over its tiers: each home's weight, each tier's
// health score and load.
type spill struct {
	weights []int32
	health  []int64
	loads   []*big.Rat
}

// spillWeights gives each home its weight under ordered failover: its tier's priority
// load, split inside the tier by servable capacity as weights are without tiers, then
// reduced to whole numbers by reduceWeights. tiers is the number of tiers, the implicit
// last one included; every home's tier is below it.
//
// When some home can serve but no tier scores above 0 (each tier's healthy share times
// the factor is under 1%), the tiers are set aside and the weights follow capacity alone:
// a tier with too little healthy capacity to score is skipped, but all of them being so
// never drains a service that can serve.
func spillWeights(homes []tierCapacity, tiers int, overprovisioningPercent int64) spill {
	healthy := make([]*big.Int, tiers)
	total := make([]*big.Int, tiers)
	for t := range tiers {
		healthy[t], total[t] = new(big.Int), new(big.Int)
	}
	servable := make([]*big.Int, len(homes))
	for i, h := range homes {
		healthy[h.tier].Add(healthy[h.tier], h.servable)
		total[h.tier].Add(total[h.tier], h.total)
		servable[i] = h.servable
	}
	out := spill{health: make([]int64, tiers)}
	for t := range tiers {
		out.health[t] = TierHealth(healthy[t], total[t], overprovisioningPercent)
	}
	out.loads = PriorityLoad(out.health)
	if allZero(out.loads) {
		out.weights = reduceWeights(servable)
		out.loads = capacityLoads(healthy)
		return out
	}
	// A home's share is load(tier) x servable / healthy(tier), a fraction; scaling every
	// share by the product of the tiers' denominators makes them whole numbers with the
	// same ratio, which reduceWeights then brings to the smallest form.
	shares := make([]*big.Rat, len(homes))
	scale := big.NewInt(1)
	for i, h := range homes {
		shares[i] = new(big.Rat)
		if h.servable.Sign() <= 0 || out.loads[h.tier].Sign() == 0 {
			continue
		}
		shares[i].SetFrac(h.servable, healthy[h.tier])
		shares[i].Mul(shares[i], out.loads[h.tier])
		scale = lcm(scale, shares[i].Denom())
	}
	scaled := make([]*big.Int, len(homes))
	for i, s := range shares {
		v := new(big.Int).Mul(s.Num(), scale)
		scaled[i] = v.Quo(v, s.Denom())
	}
	out.weights = reduceWeights(scaled)
	return out
}

func allZero(loads []*big.Rat) bool {
	for _, l := range loads {
		if l.Sign() != 0 {
			return false
		}
	}
	return true
}

// capacityLoads are the tiers' loads when weights follow capacity alone: each tier's
// healthy capacity over all of it (all 0 when there is none).
func capacityLoads(healthy []*big.Int) []*big.Rat {
	sum := new(big.Int)
	for _, h := range healthy {
		sum.Add(sum, h)
	}
	loads := make([]*big.Rat, len(healthy))
	for t, h := range healthy {
		loads[t] = new(big.Rat)
		if sum.Sign() > 0 {
			loads[t].SetFrac(h, sum)
		}
	}
	return loads
}

func lcm(a, b *big.Int) *big.Int {
	g := new(big.Int).GCD(nil, nil, a, b)
	out := new(big.Int).Quo(a, g)
	return out.Mul(out, b)
}
