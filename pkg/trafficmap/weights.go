package trafficmap

import (
	"math"
	"math/big"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// factorDigits is the number of decimal places a factor is held to: thousandths, rounded
// up, as OME's weight function holds them, so that a map computed by either has the same
// weights ("0.0005" counts as 0.001). Rounding up keeps every positive factor positive.
// Quantity.MilliValue rounds the same way but overflows int64 for large factors, which is
// why it is not used.
const factorDigits = 3

var (
	bigTen       = big.NewInt(10)
	unitFactor   = pow10(factorDigits)
	bigMaxWeight = big.NewInt(omev1beta1.MaxWeight)
	// maxFactor is 2^63-1, the largest magnitude a Quantity documents, in factor units.
	// DecimalSI and exponent forms are not capped by the parser, so without this a typo such
	// as 1e999999999 would make the arithmetic allocate without bound.
	maxFactor = new(big.Int).Mul(big.NewInt(math.MaxInt64), unitFactor)
)

func pow10(n int64) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(n), nil)
}

// servableCapacity returns each home's servable capacity, min(allocated, ready) times its
// factor, in factor units, times its ramp share in percent (100 for a home that is not
// ramping up). A gated home has none unless ignoreGates, which the caller sets only when
// every home is gated and the policy is PreserveTraffic; a refused home has none at all.
// Every home is scaled by a percentage, so a table without a ramp has the same ratio, and
// the same weights, as without the scaling.
//
// Each home is also scaled by the share its load gives it (loadShare): under Enforce
// always, under Shadow only when shadow is set, for the weights Shadow would set.
func servableCapacity(homes []Home, factors map[string]resource.Quantity, ignoreGates, shadow bool) []*big.Int {
	out := make([]*big.Int, len(homes))
	for i, h := range homes {
		out[i] = new(big.Int)
		if h.Refused != "" || (gated(h) && !ignoreGates) {
			continue
		}
		replicas := max(min(h.Allocated, h.Ready), 0)
		if replicas == 0 {
			continue
		}
		factor := unitFactor
		if q, ok := factors[h.Cluster]; ok {
			factor = factorUnits(q)
		}
		out[i].Mul(big.NewInt(int64(replicas)), factor)
		out[i].Mul(out[i], big.NewInt(int64(rampPercent(h))))
		out[i].Mul(out[i], big.NewInt(int64(loadShare(h, shadow))))
	}
	return out
}

// loadShare is the share of its weight, in percent, that a home's load record gives it:
// 100 without one, and under Shadow unless shadow asks for the weights it would set.
func loadShare(h Home, shadow bool) int32 {
	l := h.Load
	if l == nil || (l.Mode != omev1beta1.LoadBalancingEnforce && !shadow) || l.SharePercent < 1 || l.SharePercent > 100 {
		return 100
	}
	return l.SharePercent
}

// rampPercent is the share of its weight a home gets while a ramp lowers it (rampOf).
func rampPercent(h Home) int32 {
	return rampOf(h.Probe, h.PassiveGate)
}

// factorUnits converts a capacity factor to an integer count of thousandths, rounding any
// finer part up. It works on the decimal's unscaled digits and exponent so that an absurd
// exponent costs nothing: a factor below one thousandth counts as one (so a positive factor
// never silences a home), and one above 2^63-1 is capped there. A factor that is not positive
// yields 0; validation refuses those before Build runs, this only keeps weights non-negative.
func factorUnits(q resource.Quantity) *big.Int {
	if q.Sign() <= 0 {
		return new(big.Int)
	}
	// q is a copy: AsDec may switch the copy's representation, never the caller's value.
	// The unscaled digits may be shared with the caller, so they are only read.
	dec := q.AsDec()
	unscaled := dec.UnscaledBig()
	shift := factorDigits - int64(dec.Scale())
	if shift >= 0 {
		// unscaled >= 1, and 10^(19+factorDigits) alone is already past maxFactor
		// (about 9.2 x 10^(18+factorDigits)).
		if shift > 18+factorDigits {
			return maxFactor
		}
		v := new(big.Int).Mul(unscaled, pow10(shift))
		if v.Cmp(maxFactor) > 0 {
			return maxFactor
		}
		return v
	}
	drop := -shift
	// 10^drop > 2^(3*drop) >= 2^BitLen > unscaled: the factor is below one unit.
	if 3*drop >= int64(unscaled.BitLen()) {
		return big.NewInt(1)
	}
	v, rem := new(big.Int).QuoRem(unscaled, pow10(drop), new(big.Int))
	if rem.Sign() != 0 {
		v.Add(v, big.NewInt(1))
	}
	if v.Cmp(maxFactor) > 0 {
		return maxFactor
	}
	return v
}

// reduceWeights turns servable capacities into route weights. The capacities are exact, so
// dividing by their greatest common divisor gives the smallest whole-number ratio with no
// rounding. Only when that ratio still exceeds MaxWeight are the weights scaled, as OME
// scales them: each positive weight becomes ceil(v * MaxWeight / largest), so the largest is
// exactly MaxWeight and a home with capacity keeps at least 1 (rounding never silently
// drains it). The scaled weights are written as they are, not reduced again, because OME
// writes them so and the two must give the same map.
func reduceWeights(servable []*big.Int) []int32 {
	weights := make([]int32, len(servable))
	g := new(big.Int)
	for _, v := range servable {
		if v.Sign() > 0 {
			g.GCD(nil, nil, g, v)
		}
	}
	if g.Sign() == 0 {
		return weights
	}
	reduced := make([]*big.Int, len(servable))
	largest := new(big.Int)
	for i, v := range servable {
		reduced[i] = new(big.Int)
		if v.Sign() > 0 {
			reduced[i].Quo(v, g)
		}
		if reduced[i].Cmp(largest) > 0 {
			largest = reduced[i]
		}
	}
	if largest.Cmp(bigMaxWeight) <= 0 {
		for i, v := range reduced {
			weights[i] = int32(v.Int64()) //nolint:gosec // at most MaxWeight, checked above
		}
		return weights
	}
	// ceil(v * MaxWeight / largest) = floor((v * MaxWeight + largest - 1) / largest)
	bias := new(big.Int).Sub(largest, big.NewInt(1))
	for i, v := range reduced {
		if v.Sign() == 0 {
			continue
		}
		num := new(big.Int).Mul(v, bigMaxWeight)
		num.Add(num, bias)
		weights[i] = int32(num.Quo(num, largest).Int64()) //nolint:gosec // v <= largest, so at most MaxWeight
	}
	return weights
}
