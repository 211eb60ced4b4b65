package config

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The chart works a duration out in integers, truncating a fraction to the nanosecond.
// time.ParseDuration goes through a float64 for the fraction; with at most nine decimals,
// which the grammar allows, the two agree. Where they could part is a fraction whose exact
// value is a whole number of nanoseconds (the float may fall just under it), so every such
// value of the microsecond unit is tried, and random ones of every unit.
func TestParseDurationIsExactWithinTheGrammar(t *testing.T) {
	units := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
	check := func(whole int64, frac string, unit string) {
		s := fmt.Sprintf("%d.%s%s", whole, frac, unit)
		got, err := time.ParseDuration(s)
		if err != nil || !inGrammar(s) {
			t.Fatalf("%s: %v, in grammar %v", s, err, inGrammar(s))
		}
		var f int64
		if _, err := fmt.Sscan(strings.TrimLeft(frac, "0")+"0", &f); err != nil {
			t.Fatalf("%s: fraction %q: %v", s, frac, err)
		}
		f /= 10
		scale := int64(1)
		for range frac {
			scale *= 10
		}
		u := units[unit]
		exact := whole * u
		if u%scale == 0 {
			exact += f * (u / scale)
		} else {
			exact += f * u / scale
		}
		if int64(got) != exact {
			t.Fatalf("%s: time.ParseDuration gives %d ns, exactly it is %d", s, int64(got), exact)
		}
	}
	for digits := 4; digits <= 9; digits++ {
		for m := int64(1); m < 1000; m++ {
			check(0, fmt.Sprintf("%0*d", digits, m*pow10(digits-3)), "us")
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		for unit := range units {
			digits := 1 + r.IntN(9)
			check(r.Int64N(1000), fmt.Sprintf("%0*d", digits, r.Int64N(pow10(digits))), unit)
		}
	}
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
