package trafficmap

import (
	"math"
	"math/big"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// factorDigits is the number of decimal places a factor is held to. A Quantity parses to at
// most nine (nano), so every factor a user can write is an exact integer in these units and
// the ratio reduction below never has to round. Quantity.MilliValue would round 0.0005 up to
// a whole milli-unit and overflows int64 for large factors, which is why it is not used.
const factorDigits = 9

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
func servableCapacity(homes []Home, factors map[string]resource.Quantity, ignoreGates bool) []*big.Int {
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
	}
	return out
}

// rampPercent is the share of its weight a home gets: its probe record's rampPercent
// while it ramps up after a lift, 100 otherwise. A gated home's ramp is over (a gate ends
// it), and a Shadow probe records none, so neither is ever scaled.
func rampPercent(h Home) int32 {
	if h.Probe == nil || h.Probe.Gated || h.Probe.RampPercent <= 0 || h.Probe.RampPercent >= 100 {
		return 100
	}
	return h.Probe.RampPercent
}

// factorUnits converts a capacity factor to an integer count of 1e-9 units. It works on the
// decimal's unscaled digits and exponent so that an absurd exponent costs nothing: a factor
// below one unit rounds up to one (as Quantity itself rounds up, so a positive factor never
// silences a home), and one above 2^63-1 is capped there. A factor that is not positive
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
		// unscaled >= 1, so 10^29 alone is already past maxFactor (about 9.2e27).
		if shift > 28 {
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
// rounding. Only when that ratio still exceeds MaxWeight are the weights scaled so that the
// largest becomes MaxWeight, each rounded half up, with a floor of 1 for any home that has
// capacity: a tiny share is still a share, and rounding it to 0 would silently drain the home.
// The rounded weights are reduced once more so that what is written is always in lowest terms.
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
	// round(v * MaxWeight / largest) = floor((2 * v * MaxWeight + largest) / (2 * largest))
	den := new(big.Int).Lsh(largest, 1)
	for i, v := range reduced {
		if v.Sign() == 0 {
			continue
		}
		num := new(big.Int).Mul(v, bigMaxWeight)
		num.Lsh(num, 1).Add(num, largest)
		w := num.Quo(num, den).Int64()
		weights[i] = int32(max(w, 1)) //nolint:gosec // scaled to at most MaxWeight
	}
	var d int32
	for _, w := range weights {
		d = gcd(d, w)
	}
	for i := range weights {
		weights[i] /= d
	}
	return weights
}

func gcd(a, b int32) int32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
