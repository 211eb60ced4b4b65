package trafficmap

import (
	"math/big"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// percentOf gives a tier's health score from a percentage of healthy capacity.
func percentOf(healthy int64) int64 {
	return TierHealth(big.NewInt(healthy), big.NewInt(100), omev1beta1.DefaultOverprovisioningPercent)
}

// TestPriorityLoadReproducesEnvoysTables checks the loads against the examples in Envoy's
// priority-level documentation, two and three levels, within one percentage point (Envoy
// rounds scaled loads to whole percents, PriorityLoad keeps them exact).
func TestPriorityLoadReproducesEnvoysTables(t *testing.T) {
	cases := []struct {
		healthy []int64 // percent of each tier's capacity that is healthy
		want    []float64
	}{
		// Two levels, the second fully healthy.
		{[]int64{100, 100}, []float64{100, 0}},
		{[]int64{72, 100}, []float64{100, 0}},
		{[]int64{71, 100}, []float64{99, 1}},
		{[]int64{50, 100}, []float64{70, 30}},
		{[]int64{25, 100}, []float64{35, 65}},
		{[]int64{0, 100}, []float64{0, 100}},
		// Two levels, both degraded: below a total of 100 the scores are scaled up.
		{[]int64{72, 72}, []float64{100, 0}},
		{[]int64{71, 71}, []float64{99, 1}},
		{[]int64{50, 50}, []float64{70, 30}},
		{[]int64{25, 25}, []float64{50, 50}},
		// Three levels.
		{[]int64{100, 100, 100}, []float64{100, 0, 0}},
		{[]int64{72, 72, 100}, []float64{100, 0, 0}},
		{[]int64{71, 71, 100}, []float64{99, 1, 0}},
		{[]int64{50, 50, 100}, []float64{70, 30, 0}},
		{[]int64{25, 100, 100}, []float64{35, 65, 0}},
		{[]int64{25, 25, 100}, []float64{35, 35, 30}},
		{[]int64{25, 25, 20}, []float64{36, 36, 28}},
		// No healthy capacity anywhere: nothing to split.
		{[]int64{0, 0}, []float64{0, 0}},
	}
	for _, c := range cases {
		health := make([]int64, len(c.healthy))
		for i, h := range c.healthy {
			health[i] = percentOf(h)
		}
		loads := PriorityLoad(health)
		total := new(big.Rat)
		for i, l := range loads {
			got, _ := new(big.Rat).Mul(l, big.NewRat(100, 1)).Float64()
			if d := got - c.want[i]; d > 1 || d < -1 {
				t.Errorf("healthy %v: tier %d takes %.2f%%, Envoy's table says %.0f%%", c.healthy, i, got, c.want[i])
			}
			total.Add(total, l)
		}
		wantTotal := big.NewRat(1, 1)
		if c.want[0] == 0 && c.want[len(c.want)-1] == 0 {
			wantTotal = new(big.Rat)
		}
		if total.Cmp(wantTotal) != 0 {
			t.Errorf("healthy %v: loads add up to %s, want %s", c.healthy, total.FloatString(4), wantTotal.FloatString(0))
		}
	}
}

// TestTierHealthRoundsDownAndCaps pins the score's edges: 1.4 x 71.4% is just under 100,
// a tier with no capacity scores 0, and a custom factor is honoured.
func TestTierHealthRoundsDownAndCaps(t *testing.T) {
	cases := []struct {
		healthy, total, factor, want int64
	}{
		{714, 1000, 140, 99},
		{715, 1000, 140, 100},
		{1000, 1000, 140, 100},
		{0, 1000, 140, 0},
		{5, 0, 140, 0},
		{50, 100, 100, 50},
		{50, 100, 200, 100},
	}
	for _, c := range cases {
		if got := TierHealth(big.NewInt(c.healthy), big.NewInt(c.total), c.factor); got != c.want {
			t.Errorf("TierHealth(%d/%d, %d%%) = %d, want %d", c.healthy, c.total, c.factor, got, c.want)
		}
	}
}

// TestSpillWeightsSharesFollowTheTiers: two tiers of two equal clusters. With tier 0 whole
// it takes everything; with half of it gated (one of two clusters) tier 1 gets 30%, split
// evenly; with all of it gated tier 1 takes everything; the whole-number weights give
// those shares exactly.
func TestSpillWeightsSharesFollowTheTiers(t *testing.T) {
	home := func(tier int, servable int64) tierCapacity {
		return tierCapacity{tier: tier, servable: big.NewInt(servable), total: big.NewInt(100)}
	}
	cases := []struct {
		name  string
		homes []tierCapacity
		want  []float64 // percent of the traffic each home takes
	}{
		{"all healthy", []tierCapacity{home(0, 100), home(0, 100), home(1, 100), home(1, 100)}, []float64{50, 50, 0, 0}},
		{"half of tier 0 gated", []tierCapacity{home(0, 0), home(0, 100), home(1, 100), home(1, 100)}, []float64{0, 70, 15, 15}},
		{"tier 0 gated", []tierCapacity{home(0, 0), home(0, 0), home(1, 100), home(1, 100)}, []float64{0, 0, 50, 50}},
		{"uneven tier 1", []tierCapacity{home(0, 0), home(0, 100), home(1, 100), home(1, 50)}, []float64{0, 70, 20, 10}},
		{"nothing healthy", []tierCapacity{home(0, 0), home(1, 0)}, []float64{0, 0}},
	}
	for _, c := range cases {
		weights := spillWeights(c.homes, 2, omev1beta1.DefaultOverprovisioningPercent).weights
		var sum int64
		for _, w := range weights {
			sum += int64(w)
		}
		for i, w := range weights {
			got := 0.0
			if sum > 0 {
				got = 100 * float64(w) / float64(sum)
			}
			if d := got - c.want[i]; d > 0.01 || d < -0.01 {
				t.Errorf("%s: home %d takes %.2f%% (weights %v), want %.0f%%", c.name, i, got, weights, c.want[i])
			}
		}
	}
}
