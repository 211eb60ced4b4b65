package trafficmap

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/test/capacitycases"
)

// decodeFactors reads spec.routing.capacityFactors as the typed client does.
func decodeFactors(t *testing.T, raw string) map[string]omev1beta1.CapacityFactor {
	t.Helper()
	var factors map[string]omev1beta1.CapacityFactor
	if err := json.Unmarshal([]byte(raw), &factors); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return factors
}

// TestParseCapacityFactorCases holds the reconciler to the shared table: the API server
// refuses the same values (test/integration/api), and the reconciler refuses them too when
// an older schema let them in.
func TestParseCapacityFactorCases(t *testing.T) {
	for _, c := range capacitycases.FactorCases {
		t.Run(c.Name, func(t *testing.T) {
			if (c.APIMessage == "") != (c.ParseError == "") {
				t.Fatalf("the case must be refused by both or by neither: API %q, reconciler %q", c.APIMessage, c.ParseError)
			}
			parsed, errs := ParseCapacityFactors(decodeFactors(t, `{"worker-a": `+c.JSON+`}`))
			if c.ParseError != "" {
				want := `spec.routing.capacityFactors["worker-a"] ` + c.ParseError
				if len(errs) != 1 || errs[0].Error() != want || parsed != nil {
					t.Fatalf("got %v, %q\nwant the error %q", parsed, errs, want)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("refused: %v", errs)
			}
			q := parsed["worker-a"]
			if got := *factorOf(parsed, "worker-a"); got.String() != c.Canonical || q.String() != c.Canonical {
				t.Errorf("recorded %q, want %q", got, c.Canonical)
			}
		})
	}
}

func TestParseCapacityFactors(t *testing.T) {
	tests := []struct {
		name    string
		factors string
		want    []string
	}{
		{name: "none", factors: `{}`},
		{name: "all usable", factors: `{"worker-a": "0.5", "worker-b": "1n", "worker-c": 1000}`},
		{name: "every bad factor, in cluster order", factors: `{"worker-c": "-500m", "worker-a": "0.0", "worker-b": "2", "worker-d": "1e1.5"}`,
			want: []string{
				`spec.routing.capacityFactors["worker-a"] must be positive, got "0"`,
				`spec.routing.capacityFactors["worker-c"] must be positive, got "-500m"`,
				`spec.routing.capacityFactors["worker-d"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "1e1.5"`,
			}},
		{name: "a value that is not a number", factors: `{"worker-a": {"x": 1}, "worker-b": null, "worker-c": true}`,
			want: []string{
				`spec.routing.capacityFactors["worker-a"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "{\"x\": 1}"`,
				`spec.routing.capacityFactors["worker-b"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "null"`,
				`spec.routing.capacityFactors["worker-c"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "true"`,
			}},
		{name: "a long value is quoted in part", factors: `{"worker-a": "` + strings.Repeat("9", 100000) + `"}`,
			want: []string{
				`spec.routing.capacityFactors["worker-a"] must be a number of at most 32 characters such as "2", "1.5" or "500m" (an exponent has at most two digits), got "` + strings.Repeat("9", 64) + `"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			_, errs := ParseCapacityFactors(decodeFactors(t, tt.factors))
			for _, err := range errs {
				got = append(got, err.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestCapacityFactorPatternParses checks that the pattern is a subset of what
// resource.ParseQuantity reads: every random string the pattern admits parses (or is
// refused for its value), never for its form.
func TestCapacityFactorPatternParses(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	suffixes := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"}
	for range 20000 {
		mantissa := pick(digits(1+rng.IntN(12)), digits(1+rng.IntN(12))+"."+digits(rng.IntN(12)), "."+digits(1+rng.IntN(12)))
		suffix := pick(pick(suffixes...), pick("e", "E")+pick("", "+", "-")+digits(1+rng.IntN(2)))
		s := pick("", "+", "-") + mantissa + suffix
		if len(s) > omev1beta1.CapacityFactorMaxLength || !factorPattern.MatchString(s) {
			t.Fatalf("the generator made %q, which the pattern refuses", s)
		}
		if _, err := ParseCapacityFactor(omev1beta1.CapacityFactor(s)); err != nil &&
			!strings.HasPrefix(err.Error(), "must be positive") && !strings.HasPrefix(err.Error(), "must be at most") {
			t.Fatalf("%q: %v", s, err)
		}
	}
}
