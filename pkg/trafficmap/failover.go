package trafficmap

import (
	"fmt"
	"math/big"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
)

// failoverWeights are the weights of a table under ordered failover, and the split that
// the map records. A home's healthy capacity is its servable capacity (0 while gated,
// refused or drained, at its share while ramping up); its whole capacity is what it would
// serve if nothing held it back: its allocated replicas before any capacity report lowered
// them, times its factor, at a full ramp and a full load share. So every cause that takes
// capacity out of a tier (a gate, a drain, a replica not ready, a capacity report, a ramp,
// an enforcing load share of a saturated tier) spills traffic to the next.
func failoverWeights(homes []Home, admitted []int32, servable []*big.Int, in Input) ([]int32, *omev1beta1.TrafficMapFailover) {
	a := in.Failover
	drained := make(map[string]bool, len(in.Drained))
	for _, c := range in.Drained {
		drained[c] = true
	}
	caps := make([]tierCapacity, len(homes))
	for i, h := range homes {
		caps[i] = tierCapacity{tier: a.TierOf[h.Cluster], servable: servable[i],
			total: wholeCapacity(admitted[i], in.CapacityFactors, h.Cluster)}
		if drained[h.Cluster] {
			caps[i].servable = new(big.Int)
		}
	}
	s := spillWeights(caps, len(a.Names), a.OverprovisioningPercent)
	split := &omev1beta1.TrafficMapFailover{OverprovisioningPercent: int32(a.OverprovisioningPercent)} //nolint:gosec // validated to at most 1000
	parts := make([]string, len(a.Names))
	for t, name := range a.Names {
		load := percentRounded(s.loads[t])
		split.Tiers = append(split.Tiers, omev1beta1.TrafficMapTier{Name: name, Health: int32(s.health[t]), LoadPercent: load}) //nolint:gosec // a score is at most 100
		parts[t] = fmt.Sprintf("%s %d%%", name, load)
	}
	split.Summary = strings.Join(parts, ", ")
	return s.weights, split
}

// wholeCapacity is a home's capacity in servableCapacity's units with nothing holding it
// back: admitted replicas times its factor, at a ramp of 100% and a load share of 100%.
func wholeCapacity(admitted int32, factors map[string]resource.Quantity, cluster string) *big.Int {
	factor := unitFactor
	if q, ok := factors[cluster]; ok {
		factor = factorUnits(q)
	}
	v := new(big.Int).Mul(big.NewInt(int64(max(admitted, 0))), factor)
	return v.Mul(v, big.NewInt(100*100))
}

// percentRounded is a load in whole percent, halves rounded up.
func percentRounded(load *big.Rat) int32 {
	v := new(big.Rat).Mul(load, big.NewRat(100, 1))
	v.Add(v, big.NewRat(1, 2))
	q := new(big.Int).Quo(v.Num(), v.Denom())
	return int32(q.Int64()) //nolint:gosec // a load is at most 1, so at most 100
}

// tierOf is the name of the tier a cluster is in, "" without failover.
func tierOf(a *failover.Assignment, cluster string) string {
	if a == nil {
		return ""
	}
	t, ok := a.TierOf[cluster]
	if !ok || t >= len(a.Names) {
		return ""
	}
	return a.Names[t]
}
