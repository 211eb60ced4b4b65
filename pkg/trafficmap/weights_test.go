package trafficmap

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// TestBuildWeights walks the weight algorithm step by step. Homes are named a, b, c so that
// want and healthy read in entry order.
func TestBuildWeights(t *testing.T) {
	const maxInt32 = math.MaxInt32
	tests := []struct {
		name    string
		homes   []Home
		factors map[string]resource.Quantity
		policy  omev1beta1.AllFailedPolicy
		want    []int32
		healthy []bool
	}{
		// Step 1: servable replicas.
		{
			name:    "servable replicas are the lower of allocated and ready",
			homes:   homes(makeHome("a").replicas(4, 2), makeHome("b").replicas(1, 3)),
			want:    []int32{2, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "no allocated replica gives 0 but stays healthy",
			homes:   homes(makeHome("a").replicas(0, 3), makeHome("b").replicas(2, 2)),
			want:    []int32{0, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "no ready replica gives 0",
			homes:   homes(makeHome("a").replicas(3, 0), makeHome("b").replicas(2, 2)),
			want:    []int32{0, 1},
			healthy: []bool{false, true},
		},
		{
			name:    "factor multiplies servable replicas",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1)),
			factors: factors("a", "3"),
			want:    []int32{3, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "factor does not give weight to a home with no servable replica",
			homes:   homes(makeHome("a").replicas(5, 0), makeHome("b").replicas(1, 1)),
			factors: factors("a", "10"),
			want:    []int32{0, 1},
			healthy: []bool{false, true},
		},
		{
			name:    "factor of a cluster that is not a home is ignored",
			homes:   homes(makeHome("a").replicas(2, 2), makeHome("b").replicas(1, 1)),
			factors: factors("z", "7"),
			want:    []int32{2, 1},
			healthy: []bool{true, true},
		},
		// Step 2: gates.
		{
			name:    "gated home gets 0",
			homes:   homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(1, 1).passing()),
			policy:  omev1beta1.AllFailedPreserveTraffic,
			want:    []int32{0, 1},
			healthy: []bool{false, true},
		},
		{
			name:    "PreserveTraffic keeps gates while one home is open, even with no capacity",
			homes:   homes(makeHome("a").replicas(2, 2).gated(), makeHome("b").replicas(0, 0).passing()),
			policy:  omev1beta1.AllFailedPreserveTraffic,
			want:    []int32{0, 0},
			healthy: []bool{false, false},
		},
		{
			name:    "every home gated with PreserveTraffic ignores the gates",
			homes:   homes(makeHome("a").replicas(4, 4).gated(), makeHome("b").replicas(2, 2).gated()),
			policy:  omev1beta1.AllFailedPreserveTraffic,
			want:    []int32{2, 1},
			healthy: []bool{false, false},
		},
		{
			name:    "every home gated with PreserveTraffic still applies min and factor",
			homes:   homes(makeHome("a").replicas(4, 1).gated(), makeHome("b").replicas(3, 3).gated(), makeHome("c").replicas(5, 0).gated()),
			factors: factors("a", "2"),
			policy:  omev1beta1.AllFailedPreserveTraffic,
			want:    []int32{2, 3, 0},
			healthy: []bool{false, false, false},
		},
		{
			name:    "every home gated with Drain leaves every weight at 0",
			homes:   homes(makeHome("a").replicas(4, 4).gated(), makeHome("b").replicas(2, 2).gated()),
			policy:  omev1beta1.AllFailedDrain,
			want:    []int32{0, 0},
			healthy: []bool{false, false},
		},
		{
			name:    "every home gated with no policy keeps the gates",
			homes:   homes(makeHome("a").replicas(4, 4).gated(), makeHome("b").replicas(2, 2).gated()),
			want:    []int32{0, 0},
			healthy: []bool{false, false},
		},
		// Step 3: smallest whole-number ratio.
		{
			name:    "4 and 2 reduce to 2 and 1",
			homes:   homes(makeHome("a").replicas(4, 4), makeHome("b").replicas(2, 2)),
			want:    []int32{2, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "4x1 and 2x3 reduce to 2 and 3",
			homes:   homes(makeHome("a").replicas(4, 4), makeHome("b").replicas(2, 2)),
			factors: factors("a", "1", "b", "3"),
			want:    []int32{2, 3},
			healthy: []bool{true, true},
		},
		{
			name:    "a single home reduces to 1",
			homes:   homes(makeHome("a").replicas(7, 7)),
			want:    []int32{1},
			healthy: []bool{true},
		},
		{
			name:    "coprime weights stay as they are",
			homes:   homes(makeHome("a").replicas(3, 3), makeHome("b").replicas(2, 2), makeHome("c").replicas(0, 0)),
			want:    []int32{3, 2, 0},
			healthy: []bool{true, true, false},
		},
		{
			name:    "many replicas reduce exactly",
			homes:   homes(makeHome("a").replicas(1500000, 1500000), makeHome("b").replicas(1000000, 1000000)),
			want:    []int32{3, 2},
			healthy: []bool{true, true},
		},
		// Factors in whole thousandths are exact: no rounding below MaxWeight (finer ones
		// round up, see TestBuildRoundsLikeOME).
		{
			name:    "factor 0.5 halves a home",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1)),
			factors: factors("a", "0.5"),
			want:    []int32{1, 2},
			healthy: []bool{true, true},
		},
		{
			name:    "factor 0.5 on two replicas equals one replica",
			homes:   homes(makeHome("a").replicas(2, 2), makeHome("b").replicas(1, 1)),
			factors: factors("a", "500m"),
			want:    []int32{1, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "factor 1.5",
			homes:   homes(makeHome("a").replicas(2, 2), makeHome("b").replicas(2, 2)),
			factors: factors("a", "1.5"),
			want:    []int32{3, 2},
			healthy: []bool{true, true},
		},
		{
			name:    "factor 0.333",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1)),
			factors: factors("a", "0.333"),
			want:    []int32{333, 1000},
			healthy: []bool{true, true},
		},
		{
			name:    "factor 0.333 on three replicas",
			homes:   homes(makeHome("a").replicas(3, 3), makeHome("b").replicas(1, 1)),
			factors: factors("a", "0.333"),
			want:    []int32{999, 1000},
			healthy: []bool{true, true},
		},
		{
			name:    "fractional factors on both homes",
			homes:   homes(makeHome("a").replicas(4, 4), makeHome("b").replicas(3, 3)),
			factors: factors("a", "0.25", "b", "0.125"),
			want:    []int32{8, 3},
			healthy: []bool{true, true},
		},
		// Step 3, past MaxWeight: scale so the largest is MaxWeight, each rounded up (more
		// in TestBuildRoundsLikeOME).
		{
			name:    "largest above MaxWeight becomes MaxWeight and a small share stays at 1",
			homes:   homes(makeHome("a").replicas(3000000, 3000000), makeHome("b").replicas(1, 1)),
			want:    []int32{omev1beta1.MaxWeight, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "scaling rounds up",
			homes:   homes(makeHome("a").replicas(2000000, 2000000), makeHome("b").replicas(13, 13)),
			want:    []int32{omev1beta1.MaxWeight, 7},
			healthy: []bool{true, true},
		},
		{
			name:    "many replicas against one",
			homes:   homes(makeHome("a").replicas(maxInt32, maxInt32), makeHome("b").replicas(1, 1)),
			want:    []int32{omev1beta1.MaxWeight, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "huge factor",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1)),
			factors: factors("a", "1E"),
			want:    []int32{omev1beta1.MaxWeight, 1},
			healthy: []bool{true, true},
		},
		{
			name:    "huge factors keep their exact ratio",
			homes:   homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1), makeHome("c").replicas(1, 1)),
			factors: factors("a", "4e18", "b", "8e18", "c", "3e15"),
			want:    []int32{4000, 8000, 3},
			healthy: []bool{true, true, true},
		},
		{
			name:    "huge factor on many replicas against one thousandth",
			homes:   homes(makeHome("a").replicas(maxInt32, maxInt32), makeHome("b").replicas(1, 1)),
			factors: factors("a", "1E", "b", "1m"),
			want:    []int32{omev1beta1.MaxWeight, 1},
			healthy: []bool{true, true},
		},
		{
			name:  "factors beyond 2^63-1 are capped there",
			homes: homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1), makeHome("c").replicas(1, 1)),
			factors: map[string]resource.Quantity{
				"a": resource.MustParse("1e30"),
				"b": *resource.NewScaledQuantity(1, 999999999),
				"c": resource.MustParse("9223372036854775807"),
			},
			want:    []int32{1, 1, 1},
			healthy: []bool{true, true, true},
		},
		{
			name:  "factors below one thousandth round up to one thousandth",
			homes: homes(makeHome("a").replicas(1, 1), makeHome("b").replicas(1, 1), makeHome("c").replicas(1, 1)),
			factors: map[string]resource.Quantity{
				"a": *resource.NewScaledQuantity(1, -12),
				"b": *resource.NewScaledQuantity(1, -999999999),
				"c": resource.MustParse("1m"),
			},
			want:    []int32{1, 1, 1},
			healthy: []bool{true, true, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(Input{Candidates: len(tt.homes), Homes: tt.homes, CapacityFactors: tt.factors, AllFailedPolicy: tt.policy})
			if w := weightsOf(got.Entries); !slices.Equal(w, tt.want) {
				t.Errorf("weights = %v, want %v", w, tt.want)
			}
			if h := healthyOf(got.Entries); !slices.Equal(h, tt.healthy) {
				t.Errorf("healthy = %v, want %v", h, tt.healthy)
			}
		})
	}
}

func TestFactorUnits(t *testing.T) {
	maxUnits := new(big.Int).Mul(big.NewInt(math.MaxInt64), big.NewInt(1e3))
	tests := []struct {
		name   string
		factor resource.Quantity
		want   *big.Int
	}{
		{"one", resource.MustParse("1"), big.NewInt(1e3)},
		{"milli", resource.MustParse("333m"), big.NewInt(333)},
		{"decimal", resource.MustParse("1.5"), big.NewInt(1500)},
		{"one milli", resource.MustParse("1m"), big.NewInt(1)},
		{"binary suffix", resource.MustParse("1Ki"), big.NewInt(1024e3)},
		{"exponent", resource.MustParse("2e3"), big.NewInt(2e6)},
		{"half a milli rounds up", resource.MustParse("0.0005"), big.NewInt(1)},
		{"a micro past a milli rounds up", resource.MustParse("1001u"), big.NewInt(2)},
		{"a tenth of a milli past a whole rounds up", resource.MustParse("1.0001"), big.NewInt(1001)},
		{"nano rounds up to one milli", resource.MustParse("1n"), big.NewInt(1)},
		{"finer than nano rounds up", *resource.NewScaledQuantity(15, -10), big.NewInt(1)},
		{"far below a milli rounds up to one unit", *resource.NewScaledQuantity(7, -999999999), big.NewInt(1)},
		{"9e18 is below the cap", *resource.NewScaledQuantity(9, 18), new(big.Int).Mul(big.NewInt(9e18), big.NewInt(1e3))},
		{"largest Quantity", resource.MustParse("9223372036854775807"), maxUnits},
		{"above the largest Quantity", resource.MustParse("1e19"), maxUnits},
		{"far above the largest Quantity", *resource.NewScaledQuantity(1, 999999999), maxUnits},
		{"zero", resource.MustParse("0"), big.NewInt(0)},
		{"negative", resource.MustParse("-2"), big.NewInt(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.factor.String()
			if got := factorUnits(tt.factor); got.Cmp(tt.want) != 0 {
				t.Errorf("factorUnits(%s) = %s, want %s", before, got, tt.want)
			}
			if after := tt.factor.String(); after != before {
				t.Errorf("factor changed from %s to %s", before, after)
			}
		})
	}
}

// TestWeightInvariants checks, over many generated inputs, the properties every table must
// have: weights within 0..MaxWeight, a positive weight exactly for a home with servable
// capacity, weights in lowest terms unless they were scaled (then the largest is exactly
// MaxWeight), Routable True exactly when a weight is positive, and a result that does not
// depend on the order of the homes.
func TestWeightInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := []int32{0, 1, 2, 3, 7, 1000, 999999, 1000001, math.MaxInt32}
	factorValues := []string{"", "1n", "0.001", "0.333", "0.5", "1", "1.5", "3", "1000", "1E", "1e30"}
	policies := []omev1beta1.AllFailedPolicy{"", omev1beta1.AllFailedPreserveTraffic, omev1beta1.AllFailedDrain}
	for i := range 2000 {
		in := Input{AllFailedPolicy: policies[rng.IntN(len(policies))], CapacityFactors: map[string]resource.Quantity{}}
		for c := range 1 + rng.IntN(5) {
			name := string(rune('a' + c))
			w := makeHome(name).replicas(counts[rng.IntN(len(counts))], counts[rng.IntN(len(counts))])
			if rng.IntN(2) == 0 {
				w.gated()
			}
			in.Homes = append(in.Homes, w.obj())
			if f := factorValues[rng.IntN(len(factorValues))]; f != "" {
				in.CapacityFactors[name] = resource.MustParse(f)
			}
		}
		in.Candidates = len(in.Homes)
		got := Build(in)

		ignoreGates := allGated(in.Homes) && in.AllFailedPolicy == omev1beta1.AllFailedPreserveTraffic
		var g, largest int32
		positive := false
		for j, e := range got.Entries {
			h := in.Homes[j] // generated in name order
			servable := (ignoreGates || !gated(h)) && min(h.Allocated, h.Ready) > 0
			if e.Weight < 0 || e.Weight > omev1beta1.MaxWeight {
				t.Fatalf("input %d: weight %d out of range: %+v", i, e.Weight, in)
			}
			if (e.Weight > 0) != servable {
				t.Fatalf("input %d: %s weight %d, servable %v: %+v", i, e.Cluster, e.Weight, servable, in)
			}
			g = gcd(g, e.Weight)
			largest = max(largest, e.Weight)
			positive = positive || e.Weight > 0
		}
		if positive && g != 1 && largest != omev1beta1.MaxWeight {
			t.Fatalf("input %d: weights %v neither in lowest terms nor scaled to MaxWeight", i, weightsOf(got.Entries))
		}
		if (got.Routable.Status == "True") != positive {
			t.Fatalf("input %d: Routable %+v with weights %v", i, got.Routable, weightsOf(got.Entries))
		}

		shuffled := in
		shuffled.Homes = slices.Clone(in.Homes)
		rng.Shuffle(len(shuffled.Homes), func(a, b int) { shuffled.Homes[a], shuffled.Homes[b] = shuffled.Homes[b], shuffled.Homes[a] })
		again := Build(shuffled)
		if !slices.Equal(weightsOf(again.Entries), weightsOf(got.Entries)) || again.Routable != got.Routable {
			t.Fatalf("input %d: order changed the result: %v %+v, then %v %+v", i,
				weightsOf(got.Entries), got.Routable, weightsOf(again.Entries), again.Routable)
		}
	}
}

func gcd(a, b int32) int32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
